from __future__ import annotations

import pytest

from trainc.model.json import FieldPath
from trainc.policy.compile import violation_path


@pytest.mark.parametrize(
    ("expression", "path"),
    [
        ("has(object.spec.activeDeadlineSeconds)", ("spec", "activeDeadlineSeconds")),
        ("object.spec.trainer.numNodes <= params.max", ("spec", "trainer", "numNodes")),
        ("object.spec.trainer.command.size() > 0", ("spec", "trainer", "command")),
        ("object.spec.trainer.numNodes < 4 && has(object.spec.trainer.image)", ("spec", "trainer")),
        ("object.metadata.name != '' && object.spec.suspend", ()),
        ("resolved.totalGPUs <= params.maxGPUs", ("spec",)),  # no object reference
        ("variables.object.x && oldObject.spec.a", ("spec",)),  # not `object`
        ("'object.spec.x' == params.a", ("spec", "x")),  # a cheap heuristic: text inside
    ],
)
def test_violation_path(expression: str, path: FieldPath) -> None:
    assert violation_path(expression) == path
