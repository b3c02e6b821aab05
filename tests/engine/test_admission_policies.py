"""ValidatingAdmissionPolicies through ``trainc validate``: a policy among the cluster's
manifests refuses the pods a TrainJob leads to, named and placed as the engine reports it."""

from __future__ import annotations

import shutil
from pathlib import Path

from trainc.app import validate_paths

CASE = Path(__file__).parents[1] / "cases" / "vap" / "invalid" / "denied"


def test_validate_reports_the_policys_refusal_of_the_pods(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(CASE, root)
    (root / "expect.yaml").unlink()
    (root / ".git").mkdir()  # the repository root marker, so discovery stops here

    report = validate_paths([], cwd=root)

    [denied] = [f for f in report.diagnostics if f.code == "vap.denied"]
    assert denied.message == (
        "TrainJob ml/job: the pods of replicatedJob 'node', created by the Job controller, "
        "are refused: pods \"…\" is forbidden: ValidatingAdmissionPolicy 'approved-registry' with "
        "binding 'approved-registry' denied request: images must come from registry.internal/"
    )
    assert (denied.file, denied.line) == ("runtime.yaml", 21)
    assert denied.field_path == (
        "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image"
    )
