"""The Priority admission plugin: the class a pod the Job controller creates runs at.

``admitPod`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/plugin/pkg/admission/priority/admission.go
is a mutating plugin: a pod created without ``priorityClassName`` gets the cluster's
global default class (``globalDefault: true``; of several, which only a race can leave,
the one of lowest value), its name, ``priority`` and ``preemptionPolicy``; without a
default it keeps no class name and runs at priority 0. A pod that names a class gets that
class's value. Every validating plugin then sees the pod so: a ResourceQuota whose
``PriorityClass`` scope selector names the default class counts pods that never wrote it,
and a policy reading ``object.spec.priorityClassName`` reads the default's name.

A pod naming a class the cluster does not hold is refused by the plugin itself
(``resolvePriorityClass``: ``no PriorityClass with name X was found``), in the mutating
phase, so before the pod validation and every validating plugin: no later plugin sees
it. The API server creates ``system-node-critical`` and ``system-cluster-critical`` as
objects at start-up (``AddSystemPriorityClasses`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/registry/scheduling/rest/storage_scheduling.go),
so every cluster holds them, and ``trainc cluster pull``, which reads every
PriorityClass, writes them: the cluster's objects holding them are a snapshot of every
class, and a class missing there is refused (``priority.class-not-found``). Without them
trainc cannot tell whether the objects list every class the cluster holds, and says the
pods would be refused unless it holds the class (``priority.class-unknown``, a warning).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from trainc.checks.admission.cluster import PriorityClass
from trainc.checks.admission.created import POD_NAME, AdmissionInput, CreatedPod, Judged
from trainc.checks.admission.limit_ranges.judge import Cause, grouped
from trainc.checks.admission.resource_lists import forbidden
from trainc.checks.workload.jsonfields import text
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import JsonObject

_SOURCE: Final = (
    "`resolvePriorityClass` in https://github.com/kubernetes/kubernetes/blob/v1.36.0/"
    "plugin/pkg/admission/priority/admission.go"
)

PRIORITY_CLASS_NOT_FOUND = Rule(
    "priority.class-not-found",
    Severity.ERROR,
    "the Priority admission plugin refuses pods naming a PriorityClass the cluster lacks",
    doc=RuleDoc(
        what=(
            "a pod the Job controller creates names a `priorityClassName` that the "
            "cluster's objects (a snapshot of every PriorityClass: they hold the built-in "
            "`system-node-critical` and `system-cluster-critical`) do not define: the API "
            'server refuses every pod, `pods "…" is forbidden: no PriorityClass with name '
            "X was found`, and the training never starts"
        ),
        source=_SOURCE,
        fix="name a PriorityClass the cluster holds, or create the class in the cluster",
    ),
)
PRIORITY_CLASS_UNKNOWN = Rule(
    "priority.class-unknown",
    Severity.WARNING,
    "pods name a PriorityClass the cluster's objects do not define, which may not exist",
    doc=RuleDoc(
        what=(
            "a pod the Job controller creates names a `priorityClassName` the cluster's "
            "objects do not define, and they are not known to hold every PriorityClass "
            "(the built-in `system-node-critical` and `system-cluster-critical`, which "
            "`trainc cluster pull` writes, are missing): unless the cluster holds the "
            "class, the API server refuses every pod"
        ),
        source=_SOURCE,
        fix="keep the cluster's PriorityClasses among `cluster.manifests` (`trainc cluster "
        "pull` writes them all), or name a class they define",
    ),
)

#: The classes the API server creates at start-up, which every cluster holds, with the
#: values it gives them (``systemPriorityClasses`` in
#: https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/apis/scheduling/v1/helpers.go:
#: ``SystemCriticalPriority``, twice the highest user-definable priority, and 1000 above):
#: a pod naming one gets its value even when the cluster's objects here lack it.
SYSTEM_CLASSES: Final[Mapping[str, PriorityClass]] = MappingProxyType(
    {
        "system-node-critical": PriorityClass("system-node-critical", 2_000_001_000),
        "system-cluster-critical": PriorityClass("system-cluster-critical", 2_000_000_000),
    }
)

#: The priority of a pod without a class in a cluster without a default
#: (``scheduling.DefaultPriorityWhenNoDefaultClassExists``).
NO_DEFAULT_PRIORITY: Final = 0


def global_default(classes: Mapping[str, PriorityClass]) -> PriorityClass | None:
    """``getDefaultPriorityClass``: the global default of lowest value, if any."""
    defaults = [found for found in classes.values() if found.global_default]
    return min(defaults, key=lambda found: (found.value, found.name), default=None)


def prioritized(spec: JsonObject, classes: Mapping[str, PriorityClass]) -> JsonObject:
    """The pod ``spec`` after the Priority plugin, the cluster holding ``classes``.

    A built-in class the objects lack still gives its value (:data:`SYSTEM_CLASSES`).
    Another class the pod names but the cluster does not hold is left as written: the
    plugin refuses such a pod (:func:`judge_priority` reports it), or the repository may
    simply not keep every class of the cluster.
    """
    named = text(spec.get("priorityClassName"))
    if named:
        chosen = classes.get(named) or SYSTEM_CLASSES.get(named)
        if chosen is None:
            return spec
        return {**spec, "priority": chosen.value, "preemptionPolicy": chosen.preemption_policy}
    default = global_default(classes)
    if default is None:
        return {**spec, "priority": NO_DEFAULT_PRIORITY}
    return {
        **spec,
        "priorityClassName": default.name,
        "priority": default.value,
        "preemptionPolicy": default.preemption_policy,
    }


def judge_priority(found: AdmissionInput) -> Judged:
    """The Priority plugin's refusals of the TrainJob's pods that name a class the cluster
    does not hold (warnings when trainc cannot tell), at the ``priorityClassName`` line;
    the pods refused when the cluster's objects list every class."""
    classes = found.cluster.priority_classes
    complete = SYSTEM_CLASSES.keys() <= classes.keys()
    causes: list[tuple[Cause, CreatedPod]] = []
    for pod in found.pods:
        named = text(pod.spec.get("priorityClassName"))
        if not named or named in classes or named in SYSTEM_CLASSES:
            continue
        refusal = forbidden("pods", POD_NAME, f"no PriorityClass with name {named} was found")
        defined = ", ".join(repr(name) for name in sorted(classes)) or "none"
        if complete:
            cause = Cause(
                PRIORITY_CLASS_NOT_FOUND.code,
                refusal,
                f"name a PriorityClass the cluster holds (its objects define {defined}), "
                f"or create PriorityClass {named!r} in the cluster",
                pod.origin(("spec", "priorityClassName")),
            )
        else:
            cause = Cause(
                PRIORITY_CLASS_UNKNOWN.code,
                f"{refusal}, unless the cluster holds a PriorityClass {named!r} its objects "
                "here do not define",
                "keep the cluster's PriorityClasses among cluster.manifests (trainc cluster "
                "pull writes them all, the built-in system-node-critical and "
                f"system-cluster-critical too), or name a class they define ({defined})",
                pod.origin(("spec", "priorityClassName")),
            )
        causes.append((cause, pod))
    refused = (pod.replicated_job for cause, pod in causes if complete)
    return Judged(grouped(causes, "the API server would refuse"), frozenset(refused))
