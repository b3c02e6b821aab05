"""The per-file stage reads a file twice when it does not hold its bytes: the second read
must be the first one's bytes, or the run stops rather than judge a mix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.config.settings import RepoConfig
from trainc.engine.file_pass import check_files
from trainc.errors import UsageError
from trainc.load.inputs import InputFiles, find_inputs


def _inputs(root: Path) -> tuple[InputFiles, RepoConfig]:
    (root / ".git").mkdir()
    write(root, "runtime.yaml", TORCH_RUNTIME)
    write(root, "jobs/a.yaml", trainjob_yaml("alpha"))
    config = RepoConfig(root=root)
    return find_inputs([root], config=config), config


def test_a_trainjob_file_is_read_again_when_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files, config = _inputs(tmp_path)
    reads: list[str] = []
    read = InputFiles.read

    def counted(self: InputFiles, path: str) -> object:
        reads.append(path)
        return read(self, path)

    monkeypatch.setattr(InputFiles, "read", counted)
    [job, runtime] = check_files(files, config)
    assert reads == ["jobs/a.yaml", "runtime.yaml", "jobs/a.yaml"]  # the runtime once
    assert [obj.loaded.name for obj in job.objects] == ["alpha"]
    assert runtime.objects[0].defaulted is not None


def test_a_file_that_changes_between_its_reads_stops_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files, config = _inputs(tmp_path)
    read = InputFiles.read
    seen: set[str] = set()

    def changing(self: InputFiles, path: str) -> object:
        if path in seen:
            (tmp_path / path).write_text(trainjob_yaml("beta"), encoding="utf-8")
        seen.add(path)
        return read(self, path)

    monkeypatch.setattr(InputFiles, "read", changing)
    with pytest.raises(UsageError, match=re.escape("jobs/a.yaml: the file changed while")):
        check_files(files, config)
