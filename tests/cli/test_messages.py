"""What the commands say: nothing with ``-q`` when all is well, counts in the right number,
and, in a report, the files that were checked."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.diagnostics import counted

WARNING_RUNTIME = TORCH_RUNTIME.replace(
    "spec:\n  mlPolicy", "spec:\n  ttlSecondsAfterFinished: 5\n  mlPolicy"
)


@pytest.fixture
def repo(repo: Path) -> Path:
    """The repository of every CLI test, its runtime's short TTL a warning."""
    write(repo, "runtime.yaml", WARNING_RUNTIME)
    return repo


@pytest.mark.parametrize(
    "args",
    [
        ("validate", "-q"),
        ("validate", "-q", "--format", "github"),
        ("compile", "-q", "-o", "out"),
    ],
)
def test_quiet_prints_nothing_when_all_is_well(
    repo: Path, invoke: Invoke, args: tuple[str]
) -> None:
    assert invoke(repo, *args) == (0, "", "")


def test_quiet_check_of_a_current_output_prints_nothing(repo: Path, invoke: Invoke) -> None:
    assert invoke(repo, "compile", "-o", "out").code == 0
    assert invoke(repo, "compile", "-q", "--check", "-o", "out") == (0, "", "")


def test_quiet_still_reports_errors_and_differences(repo: Path, invoke: Invoke) -> None:
    assert invoke(repo, "compile", "-o", "out").code == 0
    write(repo, "jobs/b.yaml", trainjob_yaml("beta"))
    stale = invoke(repo, "compile", "-q", "--check", "-o", "out")
    assert stale.code == 1
    assert "out: missing default/beta.yaml" in stale.err
    write(repo, "jobs/b.yaml", trainjob_yaml("Beta"))
    failed = invoke(repo, "validate", "-q")
    assert failed.code == 1
    assert "error[cel.trainjob.name-format]" in failed.out
    assert "warning" not in failed.out
    assert failed.out.endswith("(3 objects checked).\n")
    assert "Found 1 error in " in failed.out


def test_quiet_machine_formats_still_write_their_document(repo: Path, invoke: Invoke) -> None:
    result = invoke(repo, "validate", "-q", "--format", "json")
    assert result.code == 0
    assert '"diagnostics": []' in result.out


def test_without_quiet_the_all_clear_is_said_in_the_singular(repo: Path, invoke: Invoke) -> None:
    written = invoke(repo, "compile", "-o", "out")
    assert written.err.endswith("Compiled 1 TrainJob into out.\n")
    current = invoke(repo, "compile", "--check", "-o", "out")
    assert current.err.endswith("out is up to date (1 TrainJob).\n")
    assert "1 TrainJob sets a deadline, TTL or progress deadline" in invoke(repo, "validate").out


def test_schemas_count_changed_files_in_the_right_number(tmp_path: Path, invoke: Invoke) -> None:
    assert invoke(tmp_path, "schemas", "-o", "out").code == 0
    target = next((tmp_path / "out" / "crds").glob("*trainjobs.yaml"))
    target.write_text("edited\n", encoding="utf-8")
    assert invoke(tmp_path, "schemas", "-o", "out").err.endswith("out: 1 file changed.\n")
    assert invoke(tmp_path, "schemas", "-o", "out").err == "out: no files changed.\n"


def test_counted_words() -> None:
    assert [counted(n, "TrainJob") for n in (0, 1, 2)] == [
        "0 TrainJobs",
        "1 TrainJob",
        "2 TrainJobs",
    ]
    assert counted(1, "policy", "policies") == "1 policy"
    assert counted(3, "policy", "policies") == "3 policies"


def test_junit_lists_the_files_checked_and_only_enabled_policies(
    repo: Path, invoke: Invoke
) -> None:
    write(repo, "trainc.yaml", "policies:\n  enable: [require-active-deadline]\n")
    result = invoke(repo, "validate", "--format", "junit")
    suites = re.findall(r'<testsuite name="([^"]+)"', result.out)
    assert suites == [
        "&lt;builtin&gt;/require-active-deadline.yaml",
        "jobs/a.yaml",
        "runtime.yaml",
        "trainc.yaml",
    ]


BROKEN_POLICY = """\
apiVersion: trainc.dev/v1alpha1
kind: ValidationPolicy
metadata:
  name: broken
spec:
  validations:
    - expression: "object.spec.trainer.numNodes <= )"
"""


def test_a_cel_compile_error_shows_its_caret_diagram_in_every_format(
    repo: Path, invoke: Invoke
) -> None:
    write(repo, "policies/broken.yaml", BROKEN_POLICY)
    text = invoke(repo, "validate").out
    assert "\\n" not in text
    heading = text.index("policies/broken.yaml:7:52: error[policy.invalid]: expression does not ")
    diagram = text[heading:].splitlines()[1:3]
    assert diagram[0] == "     | object.spec.trainer.numNodes <= )"
    assert diagram[1].startswith("     | ....")
    assert diagram[1].endswith("^")
    findings = json.loads(invoke(repo, "validate", "--format", "json").out)["diagnostics"]
    (finding,) = (f for f in findings if f["code"] == "policy.invalid")
    assert "\n | object.spec.trainer.numNodes <= )\n | ...." in finding["message"]
    (github,) = (
        line
        for line in invoke(repo, "validate", "--format", "github").out.splitlines()
        if "policy.invalid" in line
    )
    assert "%0A | object.spec.trainer.numNodes <= )%0A | ...." in github


def test_a_bound_of_one_is_said_in_the_singular(repo: Path, invoke: Invoke) -> None:
    write(repo, "trainc.yaml", "limits:\n  maxDepth: 1\n")
    result = invoke(repo, "validate")
    assert "the document nests deeper than 1 level;" in result.out
