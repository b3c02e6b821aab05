"""A pod as the validating admission plugins see it: after every mutating plugin trainc
models, in kube-apiserver's order (LimitRanger's defaults, then the Priority plugin's
class: ``AllOrderedPlugins`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/kubeapiserver/options/plugins.go).
"""

from __future__ import annotations

from trainc.checks.admission.created import AdmissionInput, CreatedPod
from trainc.checks.admission.limit_ranges.admission import admit_pod
from trainc.checks.admission.limit_ranges.judge import limit_ranges_of
from trainc.checks.admission.priority import prioritized
from trainc.model.json import JsonObject


def mutated_spec(found: AdmissionInput, pod: CreatedPod) -> JsonObject:
    """The pod's spec after the API server's defaulting of requests from limits, every
    LimitRange's defaults and the Priority plugin."""
    defaulted = admit_pod(limit_ranges_of(found), pod.spec, found.release).spec
    return prioritized(defaulted, found.cluster.priority_classes)
