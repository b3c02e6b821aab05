"""A finding made after the file pass let a TrainJob file's text go quotes the file read
again, and says so instead when the file changed in the meantime."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.engine import job_pass

CHANGED_NOTE = "(line not quoted: the file changed after trainc read it)"


def _policy_repo(root: Path) -> Path:
    """A repository whose one TrainJob breaks a policy: a finding of the job pass, made
    after the file pass let the file's text go."""
    (root / ".git").mkdir()
    write(root, "trainc.yaml", "policies:\n  enable: [require-active-deadline]\n")
    write(root, "runtime.yaml", TORCH_RUNTIME)
    return write(root, "jobs/a.yaml", trainjob_yaml("alpha"))


def _located(out: str) -> int:
    found = re.search(r"^jobs/a\.yaml:(\d+):\d+: error\[policy", out, re.MULTILINE)
    assert found is not None, out
    return int(found[1])


def test_a_later_finding_quotes_the_file_read_again(tmp_path: Path, invoke: Invoke) -> None:
    job = _policy_repo(tmp_path)
    result = invoke(tmp_path, "validate")
    assert result.code == 1
    line = _located(result.out)
    quoted = job.read_text(encoding="utf-8").splitlines()[line - 1]
    assert f"{line} | {quoted}" in result.out
    assert CHANGED_NOTE not in result.out


def test_a_file_changed_during_the_run_is_not_quoted(
    tmp_path: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = _policy_repo(tmp_path)
    judged = job_pass.check_trainjobs

    def then_edited(*args: object, **kwargs: object) -> job_pass.JobPassResult:
        result = judged(*args, **kwargs)  # type: ignore[arg-type]
        job.write_text("# moved down\n" + trainjob_yaml("alpha"), encoding="utf-8")
        return result

    monkeypatch.setattr("trainc.engine.pipeline.check_trainjobs", then_edited)
    result = invoke(tmp_path, "validate")
    assert result.code == 1
    line = _located(result.out)
    assert f"{line} | " not in result.out
    assert CHANGED_NOTE in result.out
