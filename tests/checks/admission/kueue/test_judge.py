"""Kueue's admission of a queued TrainJob: its queue and its quota, at the lines behind them."""

from __future__ import annotations

import textwrap

from tests.support.builders import defaulted, object_from_yaml, resolved
from tests.support.manifests import TORCH_RUNTIME
from trainc.checks.admission.cluster import ClusterObjects, cluster_objects
from trainc.checks.admission.created import AdmissionInput
from trainc.checks.admission.judge import check_admission
from trainc.checks.admission.kueue.judge import check_kueue
from trainc.checks.workload.version import parse_version
from trainc.config.limits import InputLimits
from trainc.config.settings import ClusterSettings
from trainc.diagnostics import Diagnostic, Severity
from trainc.load.cluster_files import ClusterDocuments
from trainc.load.defaulted import DefaultedObject
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents

RUNTIME = TORCH_RUNTIME + (
    "                      resources:\n"
    "                        requests:\n"
    "                          cpu: 4\n"
    "                          memory: 16Gi\n"
)
"""The torch runtime with a container asking for 4 cpus (line 26) and 16Gi of memory."""

NAMESPACE = """\
apiVersion: v1
kind: Namespace
metadata:
  name: ml
  labels:
    team: ml
---
"""

FLAVOR = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: a100
---
"""

LOCAL_QUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: user-queue
  namespace: ml
spec:
  clusterQueue: gpu
---
"""

CLUSTER_QUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  namespaceSelector:
    matchLabels:
      team: ml
  resourceGroups:
    - coveredResources: [cpu, memory, nvidia.com/gpu]
      flavors:
        - name: a100
          resources:
            - name: cpu
              nominalQuota: 256
            - name: memory
              nominalQuota: 2Ti
            - name: nvidia.com/gpu
              nominalQuota: 8
"""

PLATFORM = NAMESPACE + FLAVOR + LOCAL_QUEUE + CLUSTER_QUEUE
GPU = "nvidia.com/gpu"


def _cluster(text: str) -> ClusterObjects:
    parsed = parse_documents(SourceFile(path="platform/kueue.yaml", text=text), InputLimits())
    documents = ClusterDocuments(manifests=tuple(parsed.documents))
    return cluster_objects(ClusterSettings(), documents, default_namespace="ml")


def _trainjob(spec: str = "", queue: str | None = "user-queue") -> DefaultedObject:
    labels = f"  labels:\n    kueue.x-k8s.io/queue-name: {queue}\n" if queue else ""
    text = (
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
        f"metadata:\n  name: llama\n  namespace: ml\n{labels}"
        "spec:\n  runtimeRef:\n    name: torch\n" + textwrap.indent(textwrap.dedent(spec), "  ")
    )
    return defaulted(object_from_yaml(text, "job.yaml"))


GPUS = """\
trainer:
  numNodes: 4
  resourcesPerNode:
    limits:
      nvidia.com/gpu: 4
"""


def _check(trainjob: DefaultedObject, platform: str = PLATFORM) -> list[Diagnostic]:
    runtime = defaulted(object_from_yaml(RUNTIME, "runtime.yaml"))
    found = AdmissionInput(resolved(trainjob, runtime), _cluster(platform), parse_version("1.33"))
    return check_kueue(found)


def _where(found: list[Diagnostic]) -> list[tuple[str, Severity, str | None, int | None]]:
    return [(d.code, d.severity, d.file, d.line) for d in found]


def test_pods_larger_than_the_quota_are_reported_at_the_trainjobs_request() -> None:
    found = _check(_trainjob(GPUS))

    assert _where(found) == [("kueue.inadmissible", Severity.ERROR, "job.yaml", 15)]
    assert found[0].field_path == f"spec.trainer.resourcesPerNode.limits[{GPU}]"
    assert found[0].message == (
        "Kueue would never admit the JobSet 'llama', applied by the GitOps tool, queued in "
        "ClusterQueue 'gpu': the pods of replicatedJob 'node', created by the Job controller, "
        "fit its quota under no flavor, even with nothing else running: couldn't assign "
        "flavors to pod set node: insufficient quota for nvidia.com/gpu in flavor a100, "
        "previously considered podsets requests (0) + current podset request (16) > maximum "
        "capacity (8)"
    )
    assert found[0].hint == (
        "raise the nominalQuota of nvidia.com/gpu in the flavors of ClusterQueue 'gpu' (or what "
        "its cohort lends, within borrowingLimit) to what the pods need together, or request "
        "less per node or fewer nodes; the cluster writes it at platform/kueue.yaml:39 "
        "(ClusterQueue 'gpu' nominalQuota of nvidia.com/gpu in flavor a100)"
    )
    assert PLATFORM.splitlines()[38] == "              nominalQuota: 8"


def test_pods_that_fit_are_admitted() -> None:
    assert _check(_trainjob(GPUS.replace("numNodes: 4", "numNodes: 2"))) == []


def test_the_runtimes_request_is_at_fault_when_the_trainjob_writes_none() -> None:
    platform = PLATFORM.replace("nominalQuota: 256", "nominalQuota: 8")

    found = _check(_trainjob("trainer:\n  numNodes: 4\n"), platform)

    assert _where(found) == [("kueue.inadmissible", Severity.ERROR, "runtime.yaml", 26)]
    assert "insufficient quota for cpu in flavor a100" in found[0].message
    assert "current podset request (16) > maximum capacity (8)" in found[0].message


def test_a_resource_the_cluster_queue_does_not_cover() -> None:
    platform = PLATFORM.replace("[cpu, memory, nvidia.com/gpu]", "[cpu, memory]").replace(
        "            - name: nvidia.com/gpu\n              nominalQuota: 8\n", ""
    )

    found = _check(_trainjob(GPUS), platform)

    assert _where(found) == [("kueue.inadmissible", Severity.ERROR, "job.yaml", 15)]
    assert found[0].message.endswith(
        "couldn't assign flavors to pod set node: resource nvidia.com/gpu unavailable in "
        "ClusterQueue"
    )
    assert found[0].hint == (
        "add nvidia.com/gpu to a resourceGroup of ClusterQueue 'gpu' (coveredResources and a "
        "flavor's quota), or do not request it; the cluster writes it at "
        "platform/kueue.yaml:29 (ClusterQueue 'gpu' resourceGroups)"
    )


def test_a_missing_local_queue_is_reported_at_the_queue_label() -> None:
    found = _check(_trainjob(GPUS, queue="team-b"))

    assert _where(found) == [("kueue.queue-missing", Severity.ERROR, "job.yaml", 7)]
    assert found[0].field_path == "metadata.labels[kueue.x-k8s.io/queue-name]"
    assert found[0].message == (
        "Kueue would never admit the JobSet 'llama', applied by the GitOps tool (queue "
        "'team-b'): LocalQueue team-b doesn't exist"
    )
    assert found[0].hint == (
        "create a LocalQueue 'team-b' in namespace 'ml' (spec.clusterQueue: <ClusterQueue>), "
        "or name one that exists there: 'user-queue'"
    )


def test_a_missing_cluster_queue() -> None:
    found = _check(_trainjob(GPUS), NAMESPACE + FLAVOR + LOCAL_QUEUE)

    assert _where(found) == [("kueue.queue-missing", Severity.ERROR, "job.yaml", 7)]
    assert found[0].message.endswith("(queue 'user-queue'): ClusterQueue gpu doesn't exist")
    assert found[0].hint == (
        "create the ClusterQueue 'gpu', or set spec.clusterQueue of LocalQueue 'user-queue' to "
        "one that exists"
    )


def test_a_cluster_queue_naming_a_missing_flavor() -> None:
    found = _check(_trainjob(GPUS), NAMESPACE + LOCAL_QUEUE + CLUSTER_QUEUE)

    assert _where(found) == [("kueue.queue-missing", Severity.ERROR, "job.yaml", 7)]
    assert found[0].message.endswith(
        "ClusterQueue gpu is inactive (Can't admit new workloads: references missing "
        "ResourceFlavor(s): a100.)"
    )
    assert found[0].hint == "create the ResourceFlavors ClusterQueue 'gpu' names"


def test_a_stopped_local_queue_is_a_warning() -> None:
    platform = PLATFORM.replace(
        "  clusterQueue: gpu\n", "  clusterQueue: gpu\n  stopPolicy: Hold\n"
    )

    found = _check(_trainjob(GPUS), platform)

    assert _where(found) == [("kueue.queue-stopped", Severity.WARNING, "job.yaml", 7)]
    assert found[0].message.endswith("LocalQueue user-queue is inactive")


def test_a_stopped_cluster_queue_is_a_warning() -> None:
    platform = PLATFORM.replace(
        "  namespaceSelector:\n", "  stopPolicy: Hold\n  namespaceSelector:\n"
    )

    found = _check(_trainjob(GPUS), platform)

    assert _where(found) == [("kueue.queue-stopped", Severity.WARNING, "job.yaml", 7)]
    assert found[0].message.endswith(
        "ClusterQueue gpu is inactive (Can't admit new workloads: is stopped.)"
    )


def test_a_namespace_the_cluster_queue_does_not_select() -> None:
    found = _check(_trainjob(GPUS), PLATFORM.replace("team: ml", "team: vision", 1))

    assert _where(found) == [("kueue.namespace-not-selected", Severity.ERROR, "job.yaml", 7)]
    assert found[0].message.endswith(
        "(queue 'user-queue'): workload namespace doesn't match ClusterQueue selector"
    )
    assert "label Namespace 'ml'" in (found[0].hint or "")
    selector = next(
        number
        for number, line in enumerate(PLATFORM.splitlines(), 1)
        if line.strip() == "namespaceSelector:"
    )
    assert (found[0].hint or "").endswith(
        f"; the cluster writes it at platform/kueue.yaml:{selector}"
    )


def test_strict_fifo_adds_a_warning_that_the_queue_is_held_up() -> None:
    platform = PLATFORM.replace(
        "  namespaceSelector:\n", "  queueingStrategy: StrictFIFO\n  namespaceSelector:\n"
    )

    found = _check(_trainjob(GPUS), platform)

    assert _where(found) == [
        ("kueue.inadmissible", Severity.ERROR, "job.yaml", 15),
        ("kueue.blocks-queue", Severity.WARNING, "job.yaml", 7),
    ]
    assert found[1].message == (
        "Kueue would never admit the JobSet 'llama', applied by the GitOps tool (queue "
        "'user-queue'), and it holds up ClusterQueue 'gpu': its queueingStrategy is "
        "StrictFIFO, so Kueue keeps retrying the oldest job first and every job queued after "
        "it waits too"
    )


def test_no_queue_label_is_not_kueues() -> None:
    assert _check(_trainjob(GPUS, queue=None)) == []


def test_a_cluster_without_kueues_queues_is_not_judged() -> None:
    assert _check(_trainjob(GPUS, queue="team-b"), NAMESPACE + FLAVOR) == []


def test_the_family_is_one_of_the_admission_checks() -> None:
    runtime = defaulted(object_from_yaml(RUNTIME, "runtime.yaml"))
    job = resolved(_trainjob(GPUS, queue="team-b"), runtime)
    found = check_admission(AdmissionInput(job, _cluster(PLATFORM), parse_version("1.33")))
    assert [d.code for d in found] == ["kueue.queue-missing"]


def test_a_pod_count_above_the_quota_is_reported_at_the_num_nodes() -> None:
    platform = PLATFORM.replace(
        "[cpu, memory, nvidia.com/gpu]", "[cpu, memory, nvidia.com/gpu, pods]"
    )
    platform += "            - name: pods\n              nominalQuota: 2\n"

    found = _check(_trainjob("trainer:\n  numNodes: 4\n"), platform)

    assert _where(found) == [("kueue.inadmissible", Severity.ERROR, "job.yaml", 12)]
    assert found[0].field_path == "spec.trainer.numNodes"
    assert found[0].message.endswith(
        "insufficient quota for pods in flavor a100, previously considered podsets requests "
        "(0) + current podset request (4) > maximum capacity (2)"
    )


def test_a_queue_label_the_runtime_writes_is_reported_there() -> None:
    runtime_text = RUNTIME.replace(
        "  template:\n    spec:\n",
        "  template:\n    metadata:\n      labels:\n        kueue.x-k8s.io/queue-name: team-b\n"
        "    spec:\n",
        1,
    )
    runtime = defaulted(object_from_yaml(runtime_text, "runtime.yaml"))
    job = resolved(_trainjob(GPUS, queue=None), runtime)

    found = check_kueue(AdmissionInput(job, _cluster(PLATFORM), parse_version("1.33")))

    assert _where(found) == [("kueue.queue-missing", Severity.ERROR, "runtime.yaml", 11)]
    assert found[0].message.endswith("LocalQueue team-b doesn't exist")


def test_a_flavor_whose_taint_the_pods_do_not_tolerate_is_reported_at_the_queue_label() -> None:
    taint = "spec:\n  nodeTaints:\n    - {key: gpu, value: a100, effect: NoSchedule}\n---\n"
    platform = PLATFORM.replace("  name: a100\n---\n", "  name: a100\n" + taint, 1)

    found = _check(_trainjob(GPUS), platform)

    assert _where(found) == [("kueue.inadmissible", Severity.ERROR, "job.yaml", 7)]
    assert found[0].message.endswith(
        "couldn't assign flavors to pod set node: untolerated taint {gpu a100 NoSchedule <nil>} "
        "in flavor a100"
    )
    assert found[0].hint == (
        "tolerate the flavors' nodeTaints or match their nodeLabels (ClusterQueue 'gpu'), or "
        "queue the job where a flavor's nodes suit it; the cluster writes it at "
        "platform/kueue.yaml:13 (ResourceFlavor 'a100' nodeTaints)"
    )
    assert platform.splitlines()[12] == "  nodeTaints:"


LIMIT_RANGE = """\
---
apiVersion: v1
kind: LimitRange
metadata:
  name: gpus
  namespace: ml
spec:
  limits:
    - type: Container
      default:
        nvidia.com/gpu: 8
"""


def test_a_limit_range_default_at_fault_is_said_in_the_hint() -> None:
    found = _check(_trainjob("trainer:\n  numNodes: 2\n"), PLATFORM + LIMIT_RANGE)

    assert _where(found) == [("kueue.inadmissible", Severity.ERROR, "job.yaml", 7)]
    assert "current podset request (16) > maximum capacity (8)" in found[0].message
    line = len((PLATFORM + LIMIT_RANGE).splitlines())  # the last: nvidia.com/gpu: 8
    assert (
        "; the pods ask for no nvidia.com/gpu themselves: a LimitRange of namespace 'ml' gives "
        f"them its default (platform/kueue.yaml:{line})"
    ) in (found[0].hint or "")
