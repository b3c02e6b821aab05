"""The per-file stage reads a file twice when it does not hold its bytes: the second read
must be the first one's bytes, or the run stops rather than judge a mix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.config.settings import RepoConfig
from trainc.engine.file_pass import CheckedFile, check_files
from trainc.errors import UsageError
from trainc.load.inputs import InputFiles, find_inputs
from trainc.load.source import SourceFile


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


def _sources(root: Path) -> dict[str, tuple[SourceFile, CheckedFile]]:
    """Each file's source as the run keeps it, with its check."""
    config = RepoConfig(root=root)
    files = check_files(find_inputs([root], config=config), config)
    return {file.load.source.path: (file.load.source, file) for file in files if file.load.source}


def test_only_a_clean_trainjob_file_without_marker_lets_its_text_go(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/clean.yaml", trainjob_yaml("clean", deadline=3600))
    marked = trainjob_yaml("marked", deadline=3600) + "# trainc: ignore[policy.violation]\n"
    write(tmp_path, "jobs/marked.yaml", marked)
    write(tmp_path, "jobs/wrong.yaml", trainjob_yaml("wrong", deadline='"soon"'))
    found = _sources(tmp_path)
    source, clean = found["jobs/clean.yaml"]
    assert source.text == ""
    assert source.released is not None
    # The outline's document holds the released file too, not the text.
    assert clean.objects[0].loaded.document.source is source
    for kept in ("runtime.yaml", "jobs/marked.yaml", "jobs/wrong.yaml"):
        held, _ = found[kept]
        assert held.released is None
        assert held.text == (tmp_path / kept).read_text(encoding="utf-8")
