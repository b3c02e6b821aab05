"""The Pod Security family on a TrainJob's pods: refused, warned, exempt, versioned."""

from __future__ import annotations

from tests.support.builders import container, make_runtime, make_trainjob, resolved, rjob
from trainc.checks.admission.cluster import ClusterObjects, cluster_objects
from trainc.checks.admission.created import AdmissionInput
from trainc.checks.admission.judge import check_admission
from trainc.checks.admission.pod_security.judge import (
    PSA_FORBIDDEN,
    PSA_WOULD_VIOLATE,
    judge_pod_security,
    prepared,
)
from trainc.config.limits import InputLimits
from trainc.config.settings import ClusterSettings, PodSecurityExemptions
from trainc.diagnostics import Severity
from trainc.load.cluster_files import ClusterDocuments
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import JsonObject, as_object, get_path


def namespace(labels: str) -> str:
    return f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ml\n  labels:\n{labels}"


def cluster(text: str, settings: ClusterSettings | None = None) -> ClusterObjects:
    source = SourceFile(path="platform/ns.yaml", text=text)
    documents = parse_documents(source, InputLimits()).documents
    return cluster_objects(
        settings or ClusterSettings(),
        ClusterDocuments(manifests=tuple(documents)),
        default_namespace="ml",
    )


RESTRICTED = namespace("    pod-security.kubernetes.io/enforce: restricted\n")
SAFE: JsonObject = {
    "allowPrivilegeEscalation": False,
    "runAsNonRoot": True,
    "capabilities": {"drop": ["ALL"]},
    "seccompProfile": {"type": "RuntimeDefault"},
}


def admission(
    objects: ClusterObjects, *jobs: JsonObject, version: tuple[int, int] = (1, 33)
) -> AdmissionInput:
    runtime = make_runtime(replicated_jobs=list(jobs) or None)
    job = resolved(make_trainjob(namespace="ml"), runtime)
    return AdmissionInput(job, objects, version)


def test_restricted_refuses_a_runtime_without_security_context() -> None:
    [found] = judge_pod_security(admission(cluster(RESTRICTED))).findings
    assert found.code == PSA_FORBIDDEN.code
    assert found.severity == Severity.ERROR
    assert found.message == (
        "the pods of replicatedJob 'node', created by the Job controller in namespace 'ml', "
        "are refused: "
        'pods "…" is forbidden: violates PodSecurity "restricted:latest": '
        'allowPrivilegeEscalation != false (container "node" must set '
        "securityContext.allowPrivilegeEscalation=false), unrestricted capabilities "
        '(container "node" must set securityContext.capabilities.drop=["ALL"]), '
        'runAsNonRoot != true (pod or container "node" must set '
        'securityContext.runAsNonRoot=true), seccompProfile (pod or container "node" must '
        'set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
    )
    # Unset: the container the field must be added to, in the runtime.
    assert found.file == "runtime.yaml"
    assert (
        found.field_path
        == "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0]"
    )
    assert found.hint is not None
    assert "allowPrivilegeEscalation=false" in found.hint


def test_a_compliant_runtime_is_admitted() -> None:
    node = rjob("node", ancestor="trainer", containers=[container("node", securityContext=SAFE)])
    assert judge_pod_security(admission(cluster(RESTRICTED), node)).findings == []


def test_baseline_refuses_host_network_and_privileged_at_the_field() -> None:
    node = rjob(
        "node",
        ancestor="trainer",
        containers=[container("node", securityContext={"privileged": True})],
        job_spec={},
    )
    template = as_object(get_path(node, ("template", "spec", "template", "spec")))
    template["hostNetwork"] = True
    objects = cluster(namespace("    pod-security.kubernetes.io/enforce: baseline\n"))
    [found] = judge_pod_security(admission(objects, node)).findings
    assert found.code == PSA_FORBIDDEN.code
    assert 'violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)' in (
        found.message
    )
    assert 'privileged (container "node" must not set securityContext.privileged=true)' in (
        found.message
    )
    assert found.field_path is not None
    assert found.field_path.endswith("template.spec.hostNetwork")


def test_host_network_defaults_host_ports() -> None:
    spec: JsonObject = {
        "hostNetwork": True,
        "containers": [{"name": "n", "ports": [{"containerPort": 29500}]}],
    }
    assert prepared(spec)["containers"] == [
        {"name": "n", "ports": [{"containerPort": 29500, "hostPort": 29500}]}
    ]


def test_warn_only_is_a_warning() -> None:
    objects = cluster(namespace("    pod-security.kubernetes.io/warn: restricted\n"))
    [found] = judge_pod_security(admission(objects)).findings
    assert found.code == PSA_WOULD_VIOLATE.code
    assert found.severity == Severity.WARNING
    assert 'warn: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation' in (
        found.message
    )


def test_an_exempt_namespace_gives_no_finding() -> None:
    settings = ClusterSettings(pod_security_exemptions=PodSecurityExemptions(namespaces=("ml",)))
    assert judge_pod_security(admission(cluster(RESTRICTED, settings))).findings == []


def test_a_pinned_version_judges_by_its_checks() -> None:
    # seccompProfile is required by restricted from 1.19; at v1.18 it was not checked yet,
    # and the capabilities check came with 1.22.
    pinned = namespace(
        "    pod-security.kubernetes.io/enforce: restricted\n"
        "    pod-security.kubernetes.io/enforce-version: v1.21\n"
    )
    [found] = judge_pod_security(admission(cluster(pinned))).findings
    assert '"restricted:v1.21"' in found.message
    assert "unrestricted capabilities" not in found.message


def test_pods_of_several_replicated_jobs_refused_alike_are_one_finding_per_line() -> None:
    jobs = (rjob("a", ancestor="trainer"), rjob("b"))
    found = judge_pod_security(admission(cluster(RESTRICTED), *jobs)).findings
    assert [f.message.split(" in namespace")[0] for f in found] == [
        "the pods of replicatedJob 'a', created by the Job controller",
        "the pods of replicatedJob 'b', created by the Job controller",
    ]


def test_the_family_runs_in_admission_order() -> None:
    assert [f.code for f in check_admission(admission(cluster(RESTRICTED)))][:1] == [
        PSA_FORBIDDEN.code
    ]


def test_an_unset_field_goes_where_it_can_be_added() -> None:
    safe = {**SAFE}
    del safe["runAsNonRoot"]
    node = rjob("node", ancestor="trainer", containers=[container("node", securityContext=safe)])
    [found] = judge_pod_security(admission(cluster(RESTRICTED), node)).findings
    assert "runAsNonRoot != true" in found.message
    assert found.field_path is not None
    assert found.field_path.endswith("containers[0].securityContext")
    template = as_object(get_path(node, ("template", "spec", "template", "spec")))
    template["securityContext"] = {"runAsUser": 1000}
    [found] = judge_pod_security(admission(cluster(RESTRICTED), node)).findings
    assert found.field_path is not None
    assert found.field_path.endswith("template.spec.securityContext")
