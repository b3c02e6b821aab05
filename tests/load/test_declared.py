"""The TrainJobs of the rest of the repository, found by the names a clash needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainc.load import declared
from trainc.load.declared import Declared, declared_trainjobs
from trainc.load.input_settings import InputSettings
from trainc.load.inputs import FileLoad, load_file

from .files import TRAINJOB, config, write


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the files parsed, in order."""
    paths: list[str] = []

    def spy(path: str, data: bytes, settings: InputSettings) -> FileLoad:
        paths.append(path)
        return load_file(path, data, settings)

    monkeypatch.setattr(declared, "load_file", spy)
    return paths


def test_only_files_that_name_a_needle_are_parsed(tmp_path: Path, parsed: list[str]) -> None:
    write(tmp_path, "jobs/a.yaml", TRAINJOB.format(name="resnet"))
    write(tmp_path, "jobs/b.yaml", TRAINJOB.format(name="bert"))
    write(tmp_path, "jobs/c.yaml", "# resnet, in a comment\n" + TRAINJOB.format(name="gpt"))
    write(tmp_path, "jobs/copy.yaml", TRAINJOB.format(name="resnet"))
    cfg = config(tmp_path)

    found = declared_trainjobs({"resnet"}, skip={"jobs/copy.yaml"}, config=cfg)

    assert found == (
        Declared("resnet", "team", "jobs/a.yaml", 4, None, "torch"),
        Declared("gpt", "team", "jobs/c.yaml", 5, None, "torch"),
    )
    assert parsed == ["jobs/a.yaml", "jobs/c.yaml"]


def test_without_needles_nothing_is_read(tmp_path: Path, parsed: list[str]) -> None:
    write(tmp_path, "jobs/a.yaml", TRAINJOB.format(name="resnet"))
    assert declared_trainjobs((), skip=(), config=config(tmp_path)) == ()
    assert parsed == []


def test_lists_templates_and_runtime_kinds_are_read_as_the_loader_reads_them(
    tmp_path: Path,
) -> None:
    item = TRAINJOB.format(name="resnet").replace("\n", "\n    ").rstrip()
    write(tmp_path, "jobs/list.yaml", f"apiVersion: v1\nkind: List\nitems:\n  - {item}\n")
    template = TRAINJOB.format(name="{{ name }}").replace(
        "    name: torch", "    kind: TrainingRuntime\n    name: torch"
    )
    write(tmp_path, "jobs/job.yaml.j2", template)
    cfg = config(tmp_path, values={"name": "resnet"})

    found = declared_trainjobs({"resnet", "name"}, skip=(), config=cfg)

    assert [(d.path, d.line, d.name, d.runtime_kind) for d in found] == [
        ("jobs/job.yaml.j2", 4, "resnet", "TrainingRuntime"),
        ("jobs/list.yaml", 7, "resnet", None),
    ]


def test_a_whole_directory_of_names_is_matched_word_by_word(
    tmp_path: Path, parsed: list[str]
) -> None:
    write(tmp_path, "jobs/a.yaml", TRAINJOB.format(name="resnet"))
    write(tmp_path, "jobs/b.yaml", TRAINJOB.format(name="resnet-v2"))
    write(tmp_path, "jobs/c.yaml", TRAINJOB.format(name="gpt"))
    write(
        tmp_path,
        "jobs/d.json",
        '{"kind": "TrainJob", "metadata": {"name": "job-7"},\n'
        ' "apiVersion": "trainer.kubeflow.org/v1alpha1", "spec": {}}\n',
    )
    named = {f"job-{number}" for number in range(100)} | {"resnet"}

    found = declared_trainjobs(named, skip=(), config=config(tmp_path))

    assert [(d.path, d.name) for d in found] == [
        ("jobs/a.yaml", "resnet"),
        ("jobs/d.json", "job-7"),
    ]
    assert parsed == ["jobs/a.yaml", "jobs/d.json"]  # resnet-v2 is another name
