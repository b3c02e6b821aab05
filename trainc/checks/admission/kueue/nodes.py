"""Whether a flavor's nodes could take a pod: its taints and labels against the pod's spec.

Kueue never sees nodes; it judges a flavor by what the flavor says of its nodes
(``checkFlavorForPodSets`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/scheduler/flavorassigner/flavorassigner.go).
A taint of the flavor with effect ``NoSchedule`` or ``NoExecute`` must be tolerated by the
pod or by the flavor's own tolerations (``FindMatchingUntoleratedTaint`` of
``k8s.io/component-helpers/scheduling/corev1``). The pod's ``nodeSelector`` and required
node affinity are matched against the flavor's ``nodeLabels``, but only in the keys the
flavor names (``flavorSelector``): a requirement on any other key is the scheduler's
business, and a term left with no requirement on the flavor's keys lifts the affinity
altogether.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from trainc.checks.admission.kueue.api import Taint, Toleration
from trainc.checks.workload.jsonfields import objects, strings, text
from trainc.checks.workload.selectors import selector_matches
from trainc.model.json import JsonObject, JsonValue, as_object

_SCHEDULING_EFFECTS = frozenset({"NoSchedule", "NoExecute"})

#: One node selector requirement: key, operator, values.
Requirement = tuple[str, str, tuple[str, ...]]


class SelectorError(ValueError):
    """A node selector requirement Kubernetes cannot turn into a label selector."""


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """``Toleration.ToleratesTaint``: effect, key, then ``Equal`` (or empty) or ``Exists``."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("", "Equal"):
        return toleration.value == taint.value
    return toleration.operator == "Exists"


def untolerated_taint(taints: Iterable[Taint], tolerations: Iterable[Toleration]) -> Taint | None:
    """The first scheduling taint no toleration tolerates, or None."""
    given = list(tolerations)
    for taint in taints:
        if taint.effect in _SCHEDULING_EFFECTS and not any(tolerates(t, taint) for t in given):
            return taint
    return None


def show_taint(taint: Taint) -> str:
    """A taint as Kueue's message prints it: Go's ``%s`` of the struct.

    ``{key value effect <nil>}``: the fields in declaration order, an empty value as
    nothing, and ``<nil>`` for an unset ``timeAdded``.
    """
    added = taint.time_added if taint.time_added is not None else "<nil>"
    return f"{{{taint.key} {taint.value} {taint.effect} {added}}}"


def _requirement(raw: JsonObject) -> Requirement:
    return (
        text(raw.get("key")) or "",
        text(raw.get("operator")) or "",
        tuple(strings(raw.get("values"))),
    )


def flavor_terms(spec: JsonObject, keys: Iterable[str]) -> list[list[Requirement]]:
    """The required node affinity terms, cut down to the flavor's label keys.

    An empty list means no affinity is left to check.
    """
    allowed = set(keys)
    affinity = as_object(as_object(spec.get("affinity")).get("nodeAffinity"))
    required = as_object(affinity.get("requiredDuringSchedulingIgnoredDuringExecution"))
    terms: list[list[Requirement]] = []
    for _, term in objects(required.get("nodeSelectorTerms")):
        kept = [
            requirement
            for _, raw in objects(term.get("matchExpressions"))
            if (requirement := _requirement(raw))[0] in allowed
        ]
        if not kept:
            return []
        terms.append(kept)
    return terms


def _compare(operator: str, values: tuple[str, ...], value: str | None) -> bool:
    """``Gt``/``Lt``: the label, read as an integer, against the single value."""
    try:
        (bound,) = values
        limit = int(bound)
    except ValueError as error:
        raise SelectorError(operator) from error
    if value is None:
        return False
    try:
        number = int(value)
    except ValueError:
        return False
    return number > limit if operator == "Gt" else number < limit


def term_matches(term: list[Requirement], labels: Mapping[str, str]) -> bool:
    """Whether a flavor's labels satisfy every requirement of one node selector term.

    ``In``, ``NotIn``, ``Exists`` and ``DoesNotExist`` read as in a label selector (with
    its checks of keys and values); ``Gt`` and ``Lt`` compare integers. Raises
    :class:`SelectorError` for a requirement Kubernetes refuses to build a selector from
    (the schema checks report those; trainc then lets the flavor match nothing).
    """
    expressions: list[JsonValue] = []
    for key, operator, values in term:
        if operator in ("Gt", "Lt"):
            if not _compare(operator, values, labels.get(key)):
                return False
        else:
            expressions.append({"key": key, "operator": operator, "values": list(values)})
    found = selector_matches({"matchExpressions": expressions}, labels)
    if found is None:
        raise SelectorError(term)
    return found


def matches_flavor(spec: JsonObject, labels: Mapping[str, str]) -> bool:
    """Whether the pod's node constraints, cut to the flavor's keys, accept its labels."""
    selector = as_object(spec.get("nodeSelector"))
    for key, wanted in selector.items():
        if key in labels and labels[key] != wanted:
            return False
    terms = flavor_terms(spec, labels)
    if not terms:
        return True
    return any(term_matches(term, labels) for term in terms)
