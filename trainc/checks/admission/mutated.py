"""A pod as the validating admission plugins see it: after every mutating plugin trainc
models, in kube-apiserver's order (LimitRanger's defaults, then the Priority plugin's
class: ``AllOrderedPlugins`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/kubeapiserver/options/plugins.go).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trainc.checks.admission.created import AdmissionInput, CreatedPod
from trainc.checks.admission.limit_ranges.admission import admit_pod
from trainc.checks.admission.priority import prioritized
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject

if TYPE_CHECKING:
    from trainc.checks.admission.cluster import ClusterObjects


def mutated_spec(found: AdmissionInput, pod: CreatedPod) -> JsonObject:
    """The spec of one of a TrainJob's pods as the validating plugins see it."""
    return mutated_pod_spec(found.cluster, found.job.namespace, pod.spec, found.release)


def mutated_pod_spec(
    cluster: ClusterObjects, namespace: str, written: JsonObject, release: KubeVersion
) -> JsonObject:
    """The spec ``written`` of a pod created in ``namespace`` after the API server's
    defaulting of requests from limits, every LimitRange's defaults and the Priority
    plugin: whoever creates the pod (a TrainJob's Job, the sweeper's)."""
    defaulted = admit_pod(list(cluster.limit_ranges.get(namespace, ())), written, release).spec
    return prioritized(defaulted, cluster.priority_classes)
