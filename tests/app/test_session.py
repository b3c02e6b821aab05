"""The façade: one Session per command, over one RunOptions, set up once."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.app import RunOptions, Session
from trainc.emit.sinks import StreamOutput
from trainc.errors import UsageError


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "trainc.yaml", "# the defaults\n")
    write(tmp_path, "runtimes/torch.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/a.yaml", trainjob_yaml("a"))
    write(tmp_path, "jobs/b.yaml", trainjob_yaml("b"))
    return tmp_path


def test_the_commands_of_a_session_share_one_reading_of_trainc_yaml(repo: Path) -> None:
    session = Session(RunOptions(cwd=repo))
    assert session.validate().exit_code == 0
    first = session.loaded_config
    (repo / "trainc.yaml").write_text("not: [valid\n", encoding="utf-8")

    assert session.compile(StreamOutput(io.BytesIO())).jobs == 2
    assert session.loaded_config is first


def test_validate_and_compile_judge_a_repository_alike(repo: Path) -> None:
    write(repo, "jobs/c.yaml", trainjob_yaml("c", runtime="missing"))
    options = RunOptions(cwd=repo, paths=(Path("jobs"),))
    out = io.BytesIO()

    validated = Session(options).validate()
    compiled = Session(options).compile(StreamOutput(out))

    assert validated.exit_code == compiled.exit_code == 1
    assert compiled.diagnostics == validated.diagnostics
    assert (compiled.jobs, out.getvalue()) == (0, b"")


def test_explain_keeps_the_built_objects_of_each_resolved_job(repo: Path) -> None:
    report = Session(RunOptions(cwd=repo)).explain(object_name="JobSet/b")
    assert [(obj.kind, obj.name) for obj in report.objects] == [("JobSet", "b")]


def test_a_diff_needs_a_base_revision(repo: Path) -> None:
    with pytest.raises(UsageError, match="--base REF"):
        Session(RunOptions(cwd=repo)).diff()


def test_a_jobs_count_below_one_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        Session(RunOptions(cwd=tmp_path / "nowhere", jobs=0)).validate()
