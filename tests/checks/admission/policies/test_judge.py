"""The policies family on one TrainJob: every object it leads to, judged with its creator's
identity, each finding in the API server's words at the line of the value the policy reads."""

from __future__ import annotations

import json

import pytest

from tests.checks.admission.test_cluster import INPUT_NAMESPACE
from tests.checks.created.test_childjobs import RUNTIME as CHILD_RUNTIME
from tests.support.builders import defaulted, object_from_yaml, resolved
from trainc.build.job import build_job
from trainc.checks.admission.cluster import ClusterObjects, cluster_objects
from trainc.checks.admission.created import AdmissionInput
from trainc.checks.admission.judge import check_admission
from trainc.checks.admission.policies.judge import check_namespace_objects, judge_policies
from trainc.checks.workload.version import parse_version
from trainc.config.limits import InputLimits
from trainc.config.settings import ClusterSettings, Identity
from trainc.diagnostics import Diagnostic, Severity
from trainc.load.cluster_files import ClusterDocuments
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents

#: torch's shape, one ``node`` container (the image on line 21, its resources below).
RUNTIME = (
    CHILD_RUNTIME
    + "                      image: docker.io/pytorch/pytorch:2\n"
    + "                      resources: {requests: {cpu: '4'}}\n"
)

#: A ``prepare`` replicatedJob before ``node``: two Jobs that share only the TrainJob.
TWO_JOBS = CHILD_RUNTIME.replace(
    "      replicatedJobs:\n",
    "      replicatedJobs:\n"
    "        - name: prepare\n"
    "          template:\n"
    "            spec:\n"
    "              template:\n"
    "                spec:\n"
    "                  containers: [{name: prepare, image: registry.internal/prepare:1}]\n",
)

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: llama
  namespace: ml
spec:
  suspend: true
  runtimeRef:
    name: torch
"""

GITOPS = "system:serviceaccount:argocd:argocd-application-controller"


def policy(  # noqa: PLR0913 - a policy's parts, each a keyword
    name: str,
    resources: str,
    expression: str,
    *,
    message: str = "",
    actions: str = "Deny",
    group: str = '""',
    version: str = "v1",
    conditions: str = "",
    message_expression: str = "",
) -> str:
    """A ValidatingAdmissionPolicy on CREATE of ``resources`` and its binding ``name``."""
    said = f"      message: {message}\n" if message else ""
    if message_expression:
        said += f"      messageExpression: {json.dumps(message_expression)}\n"
    return (
        "apiVersion: admissionregistration.k8s.io/v1\n"
        "kind: ValidatingAdmissionPolicy\n"
        f"metadata: {{name: {name}}}\n"
        "spec:\n"
        "  matchConstraints:\n"
        "    resourceRules:\n"
        f"      - {{apiGroups: [{group}], apiVersions: [{version}], operations: [CREATE], "
        f"resources: [{resources}]}}\n"
        f"{conditions}"
        "  validations:\n"
        f"    - expression: {json.dumps(expression)}\n"
        f"{said}"
        "---\n"
        "apiVersion: admissionregistration.k8s.io/v1\n"
        "kind: ValidatingAdmissionPolicyBinding\n"
        f"metadata: {{name: {name}-binding}}\n"
        f"spec: {{policyName: {name}, validationActions: [{actions}]}}\n"
    )


def registry(actions: str = "Deny") -> str:
    return policy(
        "approved-registry",
        "pods",
        "object.spec.containers.all(c, c.image.startsWith('registry.internal/'))",
        message="images must come from registry.internal",
        actions=actions,
    )


NOT_SUSPENDED = policy(
    "no-suspended-jobs",
    "jobs",
    "!object.spec.suspend",
    message="Jobs must not be created suspended",
    group="batch",
)
LIMITS_REQUIRED = policy(
    "limits-required",
    "pods",
    "object.spec.containers.all(c, has(c.resources.limits))",
    message="every container must set resource limits",
)
#: Only the GitOps tool's own requests: a JobSet must carry a team label.
JOBSET_TEAM = policy(
    "jobset-team",
    "jobsets",
    "has(object.metadata.labels) && 'team' in object.metadata.labels",
    message="JobSets must carry a team label",
    group="jobset.x-k8s.io",
    version="v1alpha2",
    conditions=(
        "  matchConditions:\n"
        "    - name: from-gitops\n"
        f"      expression: \"request.userInfo.username == '{GITOPS}'\"\n"
    ),
)
AUTHORIZER = policy(
    "may-create",
    "pods, jobs",
    "authorizer.group('').resource('pods').check('create').allowed()",
    group='"", batch',
)

DEFAULT_LIMITS = """\
apiVersion: v1
kind: LimitRange
metadata:
  name: defaults
  namespace: ml
spec:
  limits:
    - type: Container
      default: {cpu: "8"}
"""


def cluster(*manifests: str) -> ClusterObjects:
    """The cluster the ``manifests`` describe, read as a run reads ``cluster.manifests``."""
    documents = tuple(
        document
        for index, text in enumerate(manifests)
        for document in parse_documents(
            SourceFile(path=f"platform/{index}.yaml", text=text), InputLimits()
        ).documents
    )
    return cluster_objects(
        ClusterSettings(gitops=Identity(GITOPS)),
        ClusterDocuments(manifests=documents),
        default_namespace="ml",
    )


def admission(
    objects: ClusterObjects, *, runtime: str = RUNTIME, trainjob: str = TRAINJOB
) -> AdmissionInput:
    job = resolved(
        defaulted(object_from_yaml(trainjob, "trainjob.yaml")),
        defaulted(object_from_yaml(runtime, "runtime.yaml")),
    )
    return AdmissionInput(job, objects, parse_version("1.33"))


def where(found: Diagnostic) -> tuple[str | None, int | None, str | None]:
    return found.file, found.line, found.field_path


def test_a_deny_binding_refuses_the_pods_at_the_containers_image_line() -> None:
    found = judge_policies(admission(cluster(registry()))).findings

    assert len(found) == 1
    (denied,) = found
    assert (denied.code, denied.severity) == ("vap.denied", Severity.ERROR)
    assert denied.message == (
        "the pods of replicatedJob 'node', created by the Job controller, are refused: "
        "pods \"…\" is forbidden: ValidatingAdmissionPolicy 'approved-registry' "
        "with binding 'approved-registry-binding' denied request: images must come from "
        "registry.internal"
    )
    assert where(denied) == (
        "runtime.yaml",
        21,
        "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image",
    )
    assert denied.hint == (
        "change spec.containers[0].image as the policy requires, or exempt these objects "
        "in the binding 'approved-registry-binding' (spec.matchResources)"
    )


def test_the_admission_list_runs_the_family_only_with_a_cluster() -> None:
    objects = cluster(registry())
    assert [f.code for f in check_admission(admission(objects))] == ["vap.denied"]
    assert check_admission(admission(ClusterObjects())) == []
    assert judge_policies(admission(cluster(DEFAULT_LIMITS))).findings == []


@pytest.mark.parametrize(
    ("actions", "code", "said"),
    [
        (
            "Warn",
            "vap.warned",
            "are admitted with a warning: Validation failed for "
            "ValidatingAdmissionPolicy 'approved-registry' with binding "
            "'approved-registry-binding': images must come from registry.internal",
        ),
        (
            "Audit",
            "vap.audited",
            "are admitted with an audit annotation: validation failure of "
            "ValidatingAdmissionPolicy 'approved-registry' with binding "
            "'approved-registry-binding': images must come from registry.internal",
        ),
    ],
)
def test_warn_and_audit_bindings_are_warnings_at_the_same_line(
    actions: str, code: str, said: str
) -> None:
    (found,) = judge_policies(admission(cluster(registry(actions)))).findings
    assert (found.code, found.severity) == (code, Severity.WARNING)
    assert found.message == (
        f"the pods of replicatedJob 'node', created by the Job controller, {said}"
    )
    assert where(found)[1] == 21


def test_one_value_refusing_the_jobs_of_two_replicated_jobs_is_one_finding() -> None:
    found = judge_policies(admission(cluster(NOT_SUSPENDED), runtime=TWO_JOBS)).findings

    assert len(found) == 1
    (denied,) = found
    assert denied.code == "vap.denied"
    assert denied.message.startswith(
        "the Jobs of replicatedJobs 'prepare' and 'node', created by the JobSet controller, "
        "are refused, each as the first: "
        'jobs.batch "llama-prepare-0" is forbidden: '
    )
    assert denied.message.endswith(
        "is forbidden: ValidatingAdmissionPolicy 'no-suspended-jobs' with binding "
        "'no-suspended-jobs-binding' denied request: Jobs must not be created suspended"
    )
    # The TrainJob's suspend, which the JobSet controller copies into every Job.
    assert where(denied) == ("trainjob.yaml", 7, "spec.suspend")


def test_pods_are_judged_after_the_limit_ranges_defaults() -> None:
    refused = judge_policies(admission(cluster(LIMITS_REQUIRED))).findings
    assert [f.code for f in refused] == ["vap.denied"]
    assert "every container must set resource limits" in refused[0].message
    # has() reads resources.limits, absent where written: the resources line.
    assert where(refused[0])[2] == (
        "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources"
    )
    assert judge_policies(admission(cluster(LIMITS_REQUIRED, DEFAULT_LIMITS))).findings == []


def test_the_gitops_tools_identity_sends_the_jobset() -> None:
    (denied,) = judge_policies(admission(cluster(JOBSET_TEAM))).findings
    assert denied.code == "vap.denied"
    assert denied.message == (
        "the JobSet 'llama', applied by the GitOps tool, is refused: "
        'jobsets.jobset.x-k8s.io "llama" is forbidden: ValidatingAdmissionPolicy '
        "'jobset-team' with binding 'jobset-team-binding' denied request: JobSets must carry a "
        "team label"
    )
    assert where(denied)[0] == "trainjob.yaml"
    assert denied.hint is not None
    assert "binding 'jobset-team-binding'" in denied.hint
    # Another identity is not matched by the policy's matchCondition.
    other = cluster(JOBSET_TEAM.replace(GITOPS, "system:serviceaccount:flux:kustomize"))
    assert judge_policies(admission(other)).findings == []


def test_a_policy_using_the_authorizer_is_reported_once_as_not_evaluated() -> None:
    found = judge_policies(admission(cluster(AUTHORIZER), runtime=TWO_JOBS)).findings

    assert len(found) == 1
    (skipped,) = found
    assert (skipped.code, skipped.severity) == ("vap.not-evaluated", Severity.WARNING)
    assert skipped.message.startswith(
        "the Job of replicatedJob 'prepare', created by the JobSet controller: "
        "ValidatingAdmissionPolicy 'may-create' with binding 'may-create-binding' cannot be "
        "evaluated offline on it: "
    )
    assert "authorizer" in skipped.message
    assert skipped.file == "runtime.yaml"


def test_of_several_containers_the_one_the_policy_refuses_is_the_line() -> None:
    sidecar = RUNTIME.replace("docker.io/pytorch/pytorch:2", "registry.internal/train:1") + (
        "                    - name: logger\n"
        "                      image: docker.io/fluent/fluent-bit:3\n"
    )
    (denied,) = judge_policies(admission(cluster(registry()), runtime=sidecar)).findings
    assert where(denied) == (
        "runtime.yaml",
        24,
        "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[1].image",
    )
    assert denied.hint is not None
    assert denied.hint.startswith("change spec.containers[1].image as the policy requires")


NAMESPACE_TEAM = policy(
    "namespace-team",
    "namespaces",
    "'team' in object.metadata.labels",
    message_expression="'namespace ' + object.metadata.name + ' has no team label'",
)

#: The repository's Namespace of the cluster's tests, and one without a team label.
NAMESPACES = (
    INPUT_NAMESPACE
    + "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: scratch\n"
    + "  labels:\n    purpose: tests\n"
)


def test_the_namespaces_of_the_inputs_are_judged_once_at_their_lines() -> None:
    documents = parse_documents(
        SourceFile(path="namespaces.yaml", text=NAMESPACES), InputLimits()
    ).documents
    (denied,) = check_namespace_objects(cluster(NAMESPACE_TEAM), documents)
    assert (denied.code, denied.severity) == ("vap.denied", Severity.ERROR)
    assert denied.message == (
        "the Namespace 'scratch', applied by the GitOps tool, is refused: "
        'namespaces "scratch" is forbidden: ValidatingAdmissionPolicy '
        "'namespace-team' with binding 'namespace-team-binding' denied request: namespace "
        "scratch "
        "has no team label"
    )
    assert where(denied) == ("namespaces.yaml", 13, "metadata.labels")


def test_a_namespace_in_a_list_is_judged_at_its_item() -> None:
    listed = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        ("  - " if line.startswith("apiVersion") else "    ") + line + "\n"
        for line in NAMESPACES.split("---\n")[1].splitlines()
    )
    documents = parse_documents(
        SourceFile(path="namespaces.yaml", text=listed), InputLimits()
    ).documents
    (denied,) = check_namespace_objects(cluster(NAMESPACE_TEAM), documents)
    assert where(denied) == ("namespaces.yaml", 8, "items[0].metadata.labels")
    assert check_namespace_objects(ClusterObjects(), documents) == []


def test_a_claim_the_gitops_tool_applies_is_placed_on_its_template() -> None:
    runtime = CHILD_RUNTIME.replace(
        "      replicatedJobs:\n",
        "      volumeClaimPolicies:\n"
        "        - templates:\n"
        "            - metadata: {name: cache}\n"
        "              spec:\n"
        "                accessModes: [ReadWriteOnce]\n"
        "                resources: {requests: {storage: 10Gi}}\n"
        "      replicatedJobs:\n",
    )
    storage_class = policy(
        "storage-class",
        "persistentvolumeclaims",
        "has(object.spec.storageClassName)",
        message="claims must name a storage class",
    )
    found = admission(cluster(storage_class), runtime=runtime)
    built = AdmissionInput(
        found.job, found.cluster, found.release, tuple(build_job(found.job).objects)
    )
    (denied,) = judge_policies(built).findings
    assert denied.message == (
        "the PersistentVolumeClaim 'cache-llama', applied by the GitOps tool, is refused: "
        'persistentvolumeclaims "cache-llama" is forbidden: ValidatingAdmissionPolicy '
        "'storage-class' with binding 'storage-class-binding' denied request: claims must "
        "name a storage class"
    )
    assert where(denied) == (
        "runtime.yaml",
        13,
        "spec.template.spec.volumeClaimPolicies[0].templates[0].spec",
    )


def test_a_namespace_selector_on_an_undeclared_namespace_is_not_evaluated() -> None:
    selective = policy("gpu-teams", "pods", "false", message="no").replace(
        "  matchConstraints:\n",
        "  matchConstraints:\n    namespaceSelector: {matchLabels: {team: ml}}\n",
    )
    (skipped,) = judge_policies(admission(cluster(selective))).findings
    assert skipped.code == "vap.not-evaluated"
    assert skipped.message == (
        "the pods of replicatedJob 'node', created by the Job controller: "
        "ValidatingAdmissionPolicy 'gpu-teams' cannot be evaluated offline on them: "
        "namespace 'ml' is not among the cluster's Namespaces"
    )
    assert skipped.hint is not None
    assert skipped.hint.startswith("declare the Namespace 'ml' among `cluster.manifests`")
    # Declared, and labelled as the selector asks: the policy refuses.
    declared = judge_policies(admission(cluster(selective, INPUT_NAMESPACE))).findings
    assert [found.code for found in declared] == ["vap.denied"]


def _match_policy(text: str, policy_: str) -> str:
    return text.replace("    resourceRules:\n", f"    matchPolicy: {policy_}\n    resourceRules:\n")


@pytest.mark.parametrize("match_policy", ["Exact", "Equivalent"])
def test_both_match_policies_select_the_jobs_under_their_one_served_version(
    match_policy: str,
) -> None:
    """Jobs are served as batch/v1 alone: there is no equivalent resource to try, so
    Equivalent and Exact select the same requests."""
    found = judge_policies(admission(cluster(_match_policy(NOT_SUSPENDED, match_policy)))).findings
    assert [finding.code for finding in found] == ["vap.denied"]


@pytest.mark.parametrize("match_policy", ["Exact", "Equivalent"])
def test_a_rule_naming_a_version_no_release_serves_matches_nothing(match_policy: str) -> None:
    """A rule for batch/v1beta1 jobs (never served; CronJobs' v1beta1 went in 1.25): the
    API server stores the policy, and neither Exact nor Equivalent finds a served
    resource it names, so no request is judged by it."""
    old = NOT_SUSPENDED.replace("apiVersions: [v1]", "apiVersions: [v1beta1]")
    assert judge_policies(admission(cluster(_match_policy(old, match_policy)))).findings == []
