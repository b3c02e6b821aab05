"""LimitRanger wired to a TrainJob: the refusal in LimitRanger's words, naming the
LimitRange and the pods refused, at the line of the value at fault."""

from __future__ import annotations

from tests.checks.admission.wiring import DATA_CLAIMS, DATA_NODE, admission_input
from tests.support.builders import container
from trainc.checks.admission.limit_ranges.judge import judge_limit_ranges
from trainc.checks.admission.mutated import mutated_spec
from trainc.diagnostics import Severity
from trainc.model.json import JsonObject

CPU_MAX = """\
apiVersion: v1
kind: LimitRange
metadata: {name: cpu-bounds, namespace: research}
spec:
  limits:
    - type: Container
      max: {cpu: "8"}
"""

POD = "the pods of replicatedJob 'node', created by the Job controller"


def test_a_limit_above_the_max_is_refused_at_the_trainjobs_limit() -> None:
    found = admission_input(
        CPU_MAX, resourcesPerNode={"requests": {"cpu": "4"}, "limits": {"cpu": "16"}}
    )
    [finding] = judge_limit_ranges(found).findings
    assert finding.code == "limitrange.max"
    assert finding.severity is Severity.ERROR
    assert finding.message == (
        f"the API server would refuse {POD}: maximum cpu usage per Container is 8, but "
        "limit is 16 (LimitRange 'cpu-bounds')"
    )
    assert (finding.file, finding.field_path) == (
        "trainjob.yaml",
        "spec.trainer.resourcesPerNode.limits.cpu",
    )
    assert finding.hint == "lower resources.limits.cpu to the max of LimitRange 'cpu-bounds'"


def test_of_several_limit_ranges_only_the_first_that_refuses_is_reported() -> None:
    """The plugin asks the namespace's LimitRanges in turn and refuses with the first that
    fails: the API server's message names that one alone."""
    memory_max = """\
---
apiVersion: v1
kind: LimitRange
metadata: {name: memory-bounds, namespace: research}
spec:
  limits:
    - type: Container
      max: {memory: 8Gi}
"""
    limits: JsonObject = {"cpu": "16", "memory": "64Gi"}
    found = admission_input(
        CPU_MAX + memory_max, resourcesPerNode={"requests": limits, "limits": limits}
    )
    [finding] = judge_limit_ranges(found).findings
    assert finding.message == (
        f"the API server would refuse {POD}: maximum cpu usage per Container is 8, but "
        "limit is 16 (LimitRange 'cpu-bounds')"
    )


def test_a_default_limit_below_the_written_request_is_refused_by_pod_validation() -> None:
    found = admission_input(CPU_MAX, resourcesPerNode={"requests": {"cpu": "16"}})
    [finding] = judge_limit_ranges(found).findings
    assert finding.code == "limitrange.default-below-request"
    assert finding.message == (
        f"the API server would refuse {POD}: spec.containers[0].resources.requests: Invalid "
        'value: "16": must be less than or equal to cpu limit of 8 (the default limit of '
        "LimitRange 'cpu-bounds')"
    )
    assert finding.field_path == "spec.trainer.resourcesPerNode.requests.cpu"
    assert finding.hint == (
        "write resources.limits.cpu of at least 16 next to this request, or raise the "
        "default cpu limit of LimitRange 'cpu-bounds'"
    )


def test_a_default_that_breaks_a_min_sits_on_the_container() -> None:
    platform = """\
apiVersion: v1
kind: LimitRange
metadata: {name: a-defaults, namespace: research}
spec:
  limits:
    - type: Container
      defaultRequest: {memory: 256Mi}
      default: {memory: 2Gi}
---
apiVersion: v1
kind: LimitRange
metadata: {name: b-floor, namespace: research}
spec:
  limits:
    - type: Container
      min: {memory: 1Gi}
"""
    found = admission_input(platform, node=container("node"))
    [finding] = judge_limit_ranges(found).findings
    assert finding.code == "limitrange.min"
    assert finding.message == (
        f"the API server would refuse {POD}: minimum memory usage per Container is 1Gi, "
        "but request is 256Mi (LimitRange 'b-floor')"
    )
    assert finding.file == "runtime.yaml"
    assert finding.field_path == (
        "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0]"
    )
    assert finding.hint is not None
    assert "the default of LimitRange 'a-defaults' sets it" in finding.hint


def test_the_defaulted_pod_is_what_the_later_families_see() -> None:
    found = admission_input(CPU_MAX, resourcesPerNode={"requests": {"cpu": "2"}})
    [pod] = found.pods
    spec = mutated_spec(found, pod)
    assert spec["containers"][0]["resources"]["limits"] == {"cpu": "8"}  # type: ignore[index,call-overload]
    assert judge_limit_ranges(found).findings == []


STORAGE = """\
apiVersion: v1
kind: LimitRange
metadata: {name: storage, namespace: research}
spec:
  limits:
    - type: PersistentVolumeClaim
      max: {storage: 10Gi}
"""


def test_a_claim_the_gitops_tool_applies_above_the_claim_max_is_refused() -> None:
    claim: JsonObject = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data-llama", "namespace": "research"},
        "spec": {"resources": {"requests": {"storage": "100Gi"}}},
    }
    found = admission_input(STORAGE, applied=(claim,))
    [finding] = judge_limit_ranges(found).findings
    assert finding.code == "limitrange.claim-storage"
    assert finding.message == (
        "the API server would refuse the PersistentVolumeClaim 'data-llama', applied by the "
        "GitOps tool: maximum storage usage per PersistentVolumeClaim is 10Gi, but request "
        "is 100Gi (LimitRange 'storage')"
    )


def test_a_claim_template_is_judged_at_its_storage_line() -> None:
    found = admission_input(STORAGE, node=DATA_NODE, jobset=DATA_CLAIMS)
    [finding] = judge_limit_ranges(found).findings
    assert finding.code == "limitrange.claim-storage"
    assert finding.message == (
        "the API server would refuse the PersistentVolumeClaim 'data-llama', applied by the "
        "GitOps tool: maximum storage usage per PersistentVolumeClaim is 10Gi, but request "
        "is 100Gi (LimitRange 'storage')"
    )
    assert (finding.file, finding.field_path) == (
        "runtime.yaml",
        "spec.template.spec.volumeClaimPolicies[0].templates[0].spec.resources.requests.storage",
    )
    assert finding.hint == (
        "request storage within the PersistentVolumeClaim min and max of LimitRange 'storage'"
    )


def test_without_limit_ranges_nothing_is_judged() -> None:
    found = admission_input("", resourcesPerNode={"limits": {"cpu": "64"}})
    assert judge_limit_ranges(found).findings == []
