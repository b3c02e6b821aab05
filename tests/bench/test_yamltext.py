"""The generator's YAML text reads back as the data it was written from."""

from __future__ import annotations

import io

from ruamel.yaml import YAML

from bench.yamltext import Node, render


def load(text: str) -> object:
    return YAML(typ="safe", pure=True).load(io.StringIO(text))


def test_round_trips_nested_data_and_tricky_strings() -> None:
    data: dict[str, Node] = {
        "plain": "registry.example.com/team/model:1.2.3",
        "uri": "hf://tatsu-lab/alpaca",
        "words": ["yes", "no", "on", "off", "null", "true", "y"],
        "numbers": ["1", "3e-4", "1.33", "0755", "16Gi"],
        "text": "has(object.metadata.labels) && 'team' in object.metadata.labels",
        "colon": "key: value",
        "flag": "--output-dir=/checkpoints/a",
        "flow": ("torchrun", "train.py", "-De", "a,b", "x:y"),
        "count": 3,
        "enabled": True,
        "empty_map": {},
        "empty_list": [],
        "jobs": [{"name": "node", "env": [{"name": "A", "value": "1"}]}, [["deep"]]],
    }
    assert load(render(data)) == {**data, "flow": ["torchrun", "train.py", "-De", "a,b", "x:y"]}


def test_writes_flow_lists_and_comments_as_people_do() -> None:
    text = render({"command": ("torchrun", "train.py"), "args": ["--a=1"]}, comment="One.\nTwo.")
    assert text == "# One.\n# Two.\ncommand: [torchrun, train.py]\nargs:\n  - --a=1\n"
