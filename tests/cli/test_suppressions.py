"""Inline suppressions and rule levels, replayed as a platform team used them: a GPU job
whose limits the cluster's admission webhook sets, a public read-only token, a legacy
runtime kept for old jobs, and an ``experiments/`` tree held to looser rules.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke
from tests.support.manifests import TORCH_RUNTIME, write
from trainc.diagnostics import rule_for

CREDENTIAL = "compile.plaintext-credential"
#: The rule's default level (a warning, or an error where the lead made it one).
CREDENTIAL_LEVEL = rule_for(CREDENTIAL).severity.value

#: upstream's torch runtime, with a literal credential on line 27 its heading silences.
RUNTIME = (
    "# A legacy runtime, kept for the jobs that still use it.\n"
    "# trainc: ignore[compile.plaintext-credential]\n"
    + TORCH_RUNTIME
    + "                      env:\n"
    + "                        - {name: GIT_PASSWORD, value: hunter2}\n"
)

#: Line 11 asks for a GPU without a limit (``pod.resource-limits``, an error); line 13
#: holds a literal token (``compile.plaintext-credential``).
TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: resnet
spec:
  runtimeRef:
    name: torch
  trainer:
    numNodes: 2
    resourcesPerNode:
      requests: {{nvidia.com/gpu: 1}}{limits}
    env:
      - {{name: HF_TOKEN, value: hf_public_readonly}}{env}
"""
LIMITS = "  # trainc: ignore[pod.resource-limits]"
CREDENTIAL_SUPPRESSED = "  # trainc: ignore[compile.plaintext-credential]"


def _trainjob(*, limits: str = "", env: str = "") -> str:
    return TRAINJOB.format(limits=limits, env=env)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "trainc.yaml", "namespace: vision\ncompile:\n  output: rendered\n")
    write(tmp_path, "runtimes/torch.yaml", RUNTIME)
    write(tmp_path, "jobs/resnet.yaml", _trainjob())
    return tmp_path


def _codes(outcome_json: str) -> list[tuple[str, str, str, int]]:
    found = json.loads(outcome_json)["diagnostics"]
    return [(d["code"], d["severity"], d["file"], d["line"]) for d in found]


def test_without_suppressions_the_error_blocks_compile(repo: Path, invoke: Invoke) -> None:
    outcome = invoke(repo, "compile")
    assert outcome.code == 1
    assert "jobs/resnet.yaml:11:18: error[pod.resource-limits]" in outcome.err
    assert not (repo / "rendered").exists()


def test_a_suppressed_error_no_longer_blocks(repo: Path, invoke: Invoke) -> None:
    write(repo, "jobs/resnet.yaml", _trainjob(limits=LIMITS, env=CREDENTIAL_SUPPRESSED))
    validated = invoke(repo, "validate", "--format", "json")
    assert (validated.code, _codes(validated.out)) == (0, [])
    compiled = invoke(repo, "compile")
    assert compiled.code == 0, compiled.err
    assert (repo / "rendered/vision/resnet.yaml").is_file()


def test_a_suppression_covers_only_its_line_and_codes(repo: Path, invoke: Invoke) -> None:
    write(repo, "jobs/resnet.yaml", _trainjob(limits=CREDENTIAL_SUPPRESSED, env=LIMITS))
    outcome = invoke(repo, "validate", "--format", "json")
    assert outcome.code == 1
    assert _codes(outcome.out) == [
        ("pod.resource-limits", "error", "jobs/resnet.yaml", 11),
        ("suppression.unused", "warning", "jobs/resnet.yaml", 11),
        (CREDENTIAL, CREDENTIAL_LEVEL, "jobs/resnet.yaml", 13),
        ("suppression.unused", "warning", "jobs/resnet.yaml", 13),
    ]


def test_a_runtime_s_finding_is_suppressed_where_it_points(repo: Path, invoke: Invoke) -> None:
    """The runtime's credential is reported for the TrainJob that uses it, at the
    runtime's line: the comment heading the runtime's document silences it there."""
    write(repo, "runtimes/torch.yaml", RUNTIME.replace("# trainc: ignore", "# ignore"))
    found = _codes(invoke(repo, "validate", "--format", "json").out)
    assert (CREDENTIAL, CREDENTIAL_LEVEL, "runtimes/torch.yaml", 27) in found
    write(repo, "runtimes/torch.yaml", RUNTIME)
    found = _codes(invoke(repo, "validate", "--format", "json").out)
    assert [f for f in found if f[2] == "runtimes/torch.yaml"] == []


def test_an_unused_suppression_is_reported(repo: Path, invoke: Invoke) -> None:
    write(repo, "jobs/resnet.yaml", _trainjob(limits=LIMITS, env=CREDENTIAL_SUPPRESSED))
    stale = RUNTIME.replace("plaintext-credential]", "plaintext-credential, xobj.ttl-short]")
    write(repo, "runtimes/torch.yaml", stale)
    outcome = invoke(repo, "validate")
    assert outcome.code == 0
    assert (
        "runtimes/torch.yaml:2:1: warning[suppression.unused]: this suppression silences "
        "nothing: no 'xobj.ttl-short' finding in this document"
    ) in outcome.out


def test_a_run_on_a_named_job_does_not_judge_the_runtime_s_suppressions(
    repo: Path, invoke: Invoke
) -> None:
    """Other TrainJobs may need the runtime's suppression: only a run that resolves
    every TrainJob can say it serves none."""
    write(repo, "jobs/resnet.yaml", _trainjob(limits=LIMITS, env=CREDENTIAL_SUPPRESSED))
    write(repo, "runtimes/torch.yaml", RUNTIME.replace("compile.plaintext-credential", "pod.image"))
    named = invoke(repo, "validate", "jobs/resnet.yaml").out
    assert f"runtimes/torch.yaml:27:48: {CREDENTIAL_LEVEL}[{CREDENTIAL}]" in named
    assert "suppression.unused" not in named
    assert invoke(repo, "validate", "runtimes/torch.yaml").out.startswith("All checks passed")
    assert "suppression.unused" in invoke(repo, "validate").out


def test_a_suppression_that_cannot_work_is_an_error(repo: Path, invoke: Invoke) -> None:
    bare = _trainjob(
        limits="  # trainc: ignore", env="  # trainc: ignore[compile.plaintext-credentail]"
    )
    write(repo, "jobs/resnet.yaml", bare)
    outcome = invoke(repo, "validate", "jobs/resnet.yaml")
    assert outcome.code == 1
    assert (
        "jobs/resnet.yaml:11:38: error[suppression.invalid]: this suppression names no rule: "
        "write the codes it is for, `# trainc: ignore[CODE, ...]`"
    ) in outcome.out
    assert "names 'compile.plaintext-credentail', which is no rule code" in outcome.out
    assert "hf_public_readonly" not in outcome.out  # the line is not quoted
    assert "help: did you mean 'compile.plaintext-credential'?" in outcome.out
    write(repo, "runtimes/torch.yaml", RUNTIME.replace("]", ", pod.imgae]", 1))
    outcome = invoke(repo, "validate", "runtimes/torch.yaml")
    assert "runtimes/torch.yaml:2:1: error[suppression.invalid]" in outcome.out


def test_rules_set_any_rule_and_per_path_rules_win_in_their_files(
    repo: Path, invoke: Invoke
) -> None:
    write(repo, "experiments/resnet.yaml", _trainjob().replace("resnet", "resnet-exp"))
    config = (
        "namespace: vision\n"
        "rules:\n"
        "  compile.plaintext-credential: error\n"
        "perPathRules:\n"
        "  - paths: [experiments/**]\n"
        "    rules: {pod.resource-limits: warning, compile.plaintext-credential: 'off'}\n"
        "  - paths: [runtimes/**]\n"
        "    rules: {compile.plaintext-credential: warning}\n"
    )
    write(repo, "trainc.yaml", config)
    write(repo, "runtimes/torch.yaml", RUNTIME.replace("# trainc: ignore", "# ignore"))
    found = _codes(invoke(repo, "validate", "--format", "json").out)
    assert found == [
        ("pod.resource-limits", "warning", "experiments/resnet.yaml", 11),
        ("pod.resource-limits", "error", "jobs/resnet.yaml", 11),
        ("compile.plaintext-credential", "error", "jobs/resnet.yaml", 13),
        ("compile.plaintext-credential", "warning", "runtimes/torch.yaml", 27),
    ]


def test_turning_a_suppression_rule_off_hides_its_findings(repo: Path, invoke: Invoke) -> None:
    write(repo, "trainc.yaml", "namespace: vision\nrules:\n  suppression.unused: 'off'\n")
    write(repo, "jobs/resnet.yaml", _trainjob(limits=LIMITS, env=CREDENTIAL_SUPPRESSED + " # x"))
    write(
        repo,
        "runtimes/torch.yaml",
        RUNTIME.replace("plaintext-credential]", "plaintext-credential, xobj.ttl-short]"),
    )
    assert _codes(invoke(repo, "validate", "--format", "json").out) == []


def test_a_template_s_finding_is_suppressed_on_the_template_s_line(
    repo: Path, invoke: Invoke
) -> None:
    (repo / "jobs/resnet.yaml").unlink()
    template = _trainjob(limits=LIMITS).replace(
        "{nvidia.com/gpu: 1}", "{nvidia.com/gpu: {{ gpus }}}"
    )
    template = "{# one file per team #}\n" + template.replace(
        "hf_public_readonly}", "hf_public_readonly}" + CREDENTIAL_SUPPRESSED
    )
    write(repo, "jobs/resnet.yaml.j2", template)
    write(repo, "trainc.yaml", "namespace: vision\nvalues: {gpus: 2}\n")
    assert _codes(invoke(repo, "validate", "--format", "json").out) == []
    write(repo, "jobs/resnet.yaml.j2", template.replace(LIMITS, ""))
    found = _codes(invoke(repo, "validate", "--format", "json").out)
    assert found == [("pod.resource-limits", "error", "jobs/resnet.yaml.j2", 12)]
