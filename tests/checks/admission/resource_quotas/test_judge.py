"""The ResourceQuota plugin wired to a TrainJob: refusals in the API server's words at the
line of the amount at fault, object counts, and a gang that can never fit."""

from __future__ import annotations

from dataclasses import replace

from tests.checks.admission.wiring import DATA_CLAIMS, DATA_NODE, admission_input
from tests.support.builders import container
from trainc.checks.admission.resource_quotas.judge import is_gang, judge_resource_quotas
from trainc.diagnostics import Severity
from trainc.model.json import JsonObject

GPUS = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: research}
spec:
  hard: {requests.nvidia.com/gpu: "4"}
"""

POD = "the pods of replicatedJob 'node', created by the Job controller"
ASSUMED = "trainc assumes nothing else runs in the namespace (its usage is unknown offline)"
SINGLE: JsonObject = {"numNodes": 1, "torch": {}}


def test_one_pod_above_the_hard_limit_is_refused_at_the_trainjobs_request() -> None:
    found = admission_input(
        GPUS, ml_policy=SINGLE, resourcesPerNode={"requests": {"nvidia.com/gpu": 8}}
    )
    [finding] = judge_resource_quotas(found).findings
    assert finding.code == "quota.exceeded"
    assert finding.severity is Severity.ERROR
    assert finding.message == (
        f"the API server would refuse {POD}: exceeded quota: gpus, requested: "
        "requests.nvidia.com/gpu=8, used: requests.nvidia.com/gpu=0, limited: "
        "requests.nvidia.com/gpu=4"
    )
    assert (finding.file, finding.field_path) == (
        "trainjob.yaml",
        "spec.trainer.resourcesPerNode.requests[nvidia.com/gpu]",
    )
    assert (
        finding.hint == f"request less per pod, or raise the hard limit of quota 'gpus'; {ASSUMED}"
    )


def test_pods_of_several_jobs_refused_for_one_line_are_one_finding() -> None:
    found = admission_input(
        GPUS,
        ml_policy=SINGLE,
        trainers=("node", "worker"),
        resourcesPerNode={"requests": {"nvidia.com/gpu": 8}},
    )
    [finding] = judge_resource_quotas(found).findings
    assert finding.message.startswith(
        "the API server would refuse the pods of replicatedJobs 'node' and 'worker', created "
        "by the Job controller: exceeded quota: gpus, requested: requests.nvidia.com/gpu=8"
    )
    assert finding.field_path == "spec.trainer.resourcesPerNode.requests[nvidia.com/gpu]"


def test_a_gang_that_never_fits_names_the_totals_at_its_node_count() -> None:
    found = admission_input(GPUS, numNodes=4, resourcesPerNode={"requests": {"nvidia.com/gpu": 2}})
    assert is_gang(found)
    [finding] = judge_resource_quotas(found).findings
    assert finding.code == "quota.gang-exceeds"
    assert finding.message == (
        "the TrainJob's pods must all run at once, and quota 'gpus' can never admit all 4 "
        "pods of this gang at once: together they request requests.nvidia.com/gpu=8, but "
        "the quota allows requests.nvidia.com/gpu=4 in the whole namespace"
    )
    assert (finding.file, finding.field_path) == ("trainjob.yaml", "spec.trainer.numNodes")
    assert finding.hint == (
        "lower numNodes or what each pod requests, or raise the hard limit of quota 'gpus' "
        f"to at least requests.nvidia.com/gpu=8; {ASSUMED}"
    )


def test_a_single_pod_job_is_no_gang() -> None:
    found = admission_input(
        GPUS, ml_policy=SINGLE, resourcesPerNode={"requests": {"nvidia.com/gpu": 2}}
    )
    assert not is_gang(found)
    assert judge_resource_quotas(found).findings == []


def test_a_container_without_the_tracked_limit_is_refused_at_the_container() -> None:
    platform = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: research}
spec:
  hard: {limits.cpu: "64", requests.cpu: "64"}
"""
    node = container("node", resources={"requests": {"cpu": "4"}})
    found = admission_input(platform, node=node, ml_policy=SINGLE)
    [finding] = judge_resource_quotas(found).findings
    assert finding.code == "quota.must-specify"
    assert finding.message == (
        f"the API server would refuse {POD}: failed quota: compute: must specify "
        "limits.cpu for: node"
    )
    assert (finding.file, finding.field_path) == (
        "runtime.yaml",
        "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0]",
    )
    assert finding.hint == (
        "set resources.limits.cpu on container 'node' (or give the namespace a LimitRange "
        "default for it): quota 'compute' tracks it"
    )


def test_a_limit_range_default_satisfies_the_quota() -> None:
    platform = """\
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: research}
spec:
  limits:
    - type: Container
      default: {cpu: "8"}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: research}
spec:
  hard: {limits.cpu: "64"}
"""
    node = container("node", resources={"requests": {"cpu": "4"}})
    assert (
        judge_resource_quotas(admission_input(platform, node=node, ml_policy=SINGLE)).findings == []
    )


def test_object_counts_refuse_the_jobs_the_jobset_controller_creates() -> None:
    platform = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: no-jobs, namespace: research}
spec:
  hard: {count/jobs.batch: "0"}
"""
    [finding] = judge_resource_quotas(admission_input(platform, ml_policy=SINGLE)).findings
    assert finding.code == "quota.exceeded"
    assert finding.message == (
        "the API server would refuse the Job of replicatedJob 'node', created by the JobSet "
        "controller: exceeded quota: no-jobs, requested: count/jobs.batch=1, used: "
        "count/jobs.batch=0, limited: count/jobs.batch=0"
    )
    assert finding.file == "runtime.yaml"


def test_a_pod_count_quota_is_refused_at_the_node_count() -> None:
    platform = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: no-pods, namespace: research}
spec:
  hard: {pods: "0"}
"""
    [finding] = judge_resource_quotas(admission_input(platform, numNodes=1)).findings
    assert finding.code == "quota.exceeded"
    assert finding.message == (
        f"the API server would refuse {POD}: exceeded quota: no-pods, requested: pods=1, "
        "used: pods=0, limited: pods=0"
    )
    assert (finding.file, finding.field_path) == ("trainjob.yaml", "spec.trainer.numNodes")


def test_without_quotas_nothing_is_judged() -> None:
    found = admission_input("", numNodes=64, resourcesPerNode={"requests": {"nvidia.com/gpu": 8}})
    assert judge_resource_quotas(found).findings == []


def test_a_claim_above_the_storage_quota_is_refused_at_its_storage_line() -> None:
    platform = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: storage, namespace: research}
spec:
  hard: {requests.storage: 50Gi}
"""
    found = admission_input(platform, node=DATA_NODE, jobset=DATA_CLAIMS, ml_policy=SINGLE)
    [finding] = judge_resource_quotas(found).findings
    assert finding.code == "quota.exceeded"
    assert finding.message == (
        "the API server would refuse the PersistentVolumeClaim 'data-llama', applied by the "
        "GitOps tool: exceeded quota: storage, requested: requests.storage=100Gi, used: "
        "requests.storage=0, limited: requests.storage=50Gi"
    )
    assert finding.field_path == (
        "spec.template.spec.volumeClaimPolicies[0].templates[0].spec.resources.requests.storage"
    )


STORAGE = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: storage, namespace: research}
spec:
  hard: {requests.storage: 100Gi, persistentvolumeclaims: "1"}
"""


def _claim(storage: str) -> JsonObject:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data-llama", "namespace": "research"},
        "spec": {"resources": {"requests": {"storage": storage}}},
    }


def _claim_refusals(storage: str, deployed: str | None) -> list[str]:
    found = admission_input(STORAGE, ml_policy=SINGLE, applied=(_claim(storage),))
    if deployed is not None:
        found = replace(found, before=(_claim(deployed),))
    return [finding.message for finding in judge_resource_quotas(found).findings]


def test_a_claim_applied_over_the_deployed_one_is_charged_only_what_it_grows() -> None:
    """``CheckRequest`` charges an UPDATE the new usage minus the old, never below zero."""
    assert _claim_refusals("200Gi", deployed=None) == [
        "the API server would refuse the PersistentVolumeClaim 'data-llama', applied by the "
        "GitOps tool: exceeded quota: storage, requested: requests.storage=200Gi, used: "
        "requests.storage=0, limited: requests.storage=100Gi"
    ]
    assert _claim_refusals("200Gi", deployed="80Gi") == [
        "the API server would refuse the PersistentVolumeClaim 'data-llama', applied by the "
        "GitOps tool as an update of the deployed one: exceeded quota: storage, requested: "
        "requests.storage=120Gi, used: requests.storage=0, limited: requests.storage=100Gi"
    ]
    # Neither the claim count nor a storage request that stays or shrinks is charged.
    assert _claim_refusals("150Gi", deployed="150Gi") == []
    assert _claim_refusals("150Gi", deployed="300Gi") == []


FROZEN = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: frozen, namespace: research}
spec:
  hard: {count/jobsets.jobset.x-k8s.io: "0"}
"""


def test_an_update_of_the_deployed_jobset_is_not_counted() -> None:
    """The object-count evaluator handles CREATE alone: an UPDATE is never charged."""
    found = admission_input(FROZEN, ml_policy=SINGLE)
    [created] = judge_resource_quotas(found).findings
    assert "exceeded quota: frozen" in created.message
    deployed = replace(found, before=(found.job.stored_jobset(),))
    assert judge_resource_quotas(deployed).findings == []
