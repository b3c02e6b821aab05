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


NAMESPACE_POLICY = """\
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: namespace-team
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [namespaces]}
  validations:
    - expression: "'team' in object.metadata.labels"
      message: every namespace names its team
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: namespace-team
spec:
  policyName: namespace-team
  validationActions: [Deny]
"""


def test_validate_judges_the_namespaces_the_repository_applies(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(CASE, root)
    (root / "expect.yaml").unlink()
    (root / ".git").mkdir()
    with (root / "platform" / "policies.yaml").open("a", encoding="utf-8") as policies:
        policies.write(NAMESPACE_POLICY)
    (root / "namespace.yaml").write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ml\n  labels:\n    purpose: tests\n",
        encoding="utf-8",
    )

    report = validate_paths([], cwd=root)

    [refused] = [f for f in report.diagnostics if f.file == "namespace.yaml" and f.is_error]
    assert refused.code == "vap.denied"
    assert refused.message == (
        "the Namespace 'ml', applied by the GitOps tool, is refused: namespaces \"ml\" is "
        "forbidden: ValidatingAdmissionPolicy 'namespace-team' with binding 'namespace-team' "
        "denied request: every namespace names its team"
    )
    assert (refused.line, refused.field_path) == (5, "metadata.labels")
