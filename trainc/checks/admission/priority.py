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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from trainc.checks.admission.cluster import PriorityClass
from trainc.checks.workload.jsonfields import text
from trainc.model.json import JsonObject

#: The priority of a pod without a class in a cluster without a default
#: (``scheduling.DefaultPriorityWhenNoDefaultClassExists``).
NO_DEFAULT_PRIORITY: Final = 0


def global_default(classes: Mapping[str, PriorityClass]) -> PriorityClass | None:
    """``getDefaultPriorityClass``: the global default of lowest value, if any."""
    defaults = [found for found in classes.values() if found.global_default]
    return min(defaults, key=lambda found: (found.value, found.name), default=None)


def prioritized(spec: JsonObject, classes: Mapping[str, PriorityClass]) -> JsonObject:
    """The pod ``spec`` after the Priority plugin, the cluster holding ``classes``.

    A class the pod names but the cluster does not hold is left as written (the plugin
    refuses such a pod; the repository may simply not keep the cluster's classes).
    """
    named = text(spec.get("priorityClassName"))
    if named:
        chosen = classes.get(named)
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
