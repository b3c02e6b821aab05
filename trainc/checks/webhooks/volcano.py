"""The Volcano plugin's queue rule: a queue annotation, when present, names a queue.

With ``podGroupPolicy.volcano`` the PodGroup's queue comes from the JobSet-level annotation
``scheduling.volcano.sh/queue-name`` (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/volcano/volcano.go):
the runtime's ``template.metadata`` overlaid by each runtime patch in list order. An empty
value is
rejected, and so is one the PodGroup's ``spec.queue`` would refuse (not a DNS-1123
subdomain); the finding points at whichever document supplied the value that wins.
"""

from __future__ import annotations

from trainc.checks.webhooks.template import runtime_patches
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import FieldPath, get_path
from trainc.model.labels import VOLCANO_QUEUE_ANNOTATION
from trainc.schema.metadata import dns1123_subdomain_errors

XOBJ_VOLCANO_QUEUE_EMPTY = Rule(
    "xobj.volcano-queue-empty",
    Severity.ERROR,
    "the Volcano queue annotation is empty",
)

XOBJ_VOLCANO_QUEUE_INVALID = Rule(
    "xobj.volcano-queue-invalid",
    Severity.ERROR,
    "the Volcano queue annotation is not a valid queue name (a DNS-1123 subdomain)",
)


_ANNOTATION: FieldPath = ("template", "metadata", "annotations", VOLCANO_QUEUE_ANNOTATION)


def check_volcano_queue(trainjob: DefaultedObject, runtime: DefaultedObject) -> list[Diagnostic]:
    """An empty or malformed effective queue annotation on a Volcano runtime's JobSet."""
    if not isinstance(get_path(runtime.data, ("spec", "podGroupPolicy", "volcano")), dict):
        return []
    source, path = runtime, ("spec", *_ANNOTATION)
    for patch in runtime_patches(trainjob.data):
        if get_path(patch.data, ("trainingRuntimeSpec", *_ANNOTATION)) is not None:
            source, path = trainjob, patch.at("trainingRuntimeSpec", *_ANNOTATION)
    value = get_path(source.data, path)
    if value == "":
        return [
            source.finding(
                path,
                XOBJ_VOLCANO_QUEUE_EMPTY.code,
                f"Volcano queue name must not be empty: annotation {VOLCANO_QUEUE_ANNOTATION} "
                "is set to an empty string",
                hint="name a Volcano queue, or delete the annotation to use the queue 'default'",
            )
        ]
    errors = dns1123_subdomain_errors(value) if isinstance(value, str) else []
    if not errors:
        return []
    # The PodGroup's spec.queue must be a DNS-1123 subdomain: the API server would refuse
    # the PodGroup the Trainer controller builds from this annotation.
    return [
        source.finding(
            path,
            XOBJ_VOLCANO_QUEUE_INVALID.code,
            f"Volcano queue name {value!r} is not valid: {'; '.join(errors)}",
            hint="Volcano queues are named like Kubernetes objects, e.g. 'research-gpu'",
        )
    ]
