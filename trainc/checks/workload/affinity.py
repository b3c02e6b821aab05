"""Node affinity and pod (anti-)affinity, as ``validateAffinity`` judges them.

A training job pins its pods with affinity: nodes of a GPU type, one pod per host, pods
of one job in one zone. A malformed term (an operator that takes no values given some, a
weight of 0, an empty ``topologyKey``) makes the API server refuse every pod of the Job,
so the job never schedules. Rules follow ``validateNodeAffinity``,
``ValidateNodeSelectorTerm``, ``validatePodAffinityTerm`` and
``validateMatchLabelKeysAndMismatchLabelKeys``.
"""

from __future__ import annotations

from trainc.checks.workload.fielderrors import FieldError, forbidden, invalid, required
from trainc.checks.workload.jsonfields import integer, objects, strings, text
from trainc.checks.workload.selectors import (
    label_name_errors,
    label_selector_errors,
    label_value_field_errors,
)
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list, as_object
from trainc.schema.metadata import dns1123_label_errors, dns1123_subdomain_errors

POD_AFFINITY = Rule(
    "pod.affinity",
    Severity.ERROR,
    "a node or pod (anti-)affinity term is malformed",
    doc=RuleDoc(
        what=(
            "node and pod (anti-)affinity terms: operators and values, topology keys, label "
            "selectors, weights"
        ),
        source="`validateAffinity`, `validatePodAffinityTerm`, `ValidateNodeSelectorRequirement`",
        versions="required node-affinity values from 1.33; `matchLabelKeys` from 1.31",
    ),
)


AFFINITY = POD_AFFINITY.code

#: ``matchLabelKeys``/``mismatchLabelKeys`` of pod affinity terms; before 1.31 the API
#: server drops both fields, so nothing checks them.
MATCH_LABEL_KEYS_IN_POD_AFFINITY = Gate("MatchLabelKeysInPodAffinity", (1, 31))
#: The release whose API server first checks the values of required node affinity
#: (kubernetes#128212, no feature gate): earlier ones accept any string there.
REQUIRED_NODE_AFFINITY_VALUES_CHECKED_SINCE: KubeVersion = (1, 33)

_WEIGHT_RANGE = "must be in the range 1-100"
_NODE_NAME_FIELD = "metadata.name"


def affinity_errors(affinity: JsonValue, path: FieldPath, version: KubeVersion) -> list[FieldError]:
    """``validateAffinity``: the node, pod and pod anti-affinity of ``spec.affinity``."""
    if not isinstance(affinity, dict):
        return []
    errors: list[FieldError] = []
    node = affinity.get("nodeAffinity")
    if isinstance(node, dict):
        errors += _node_affinity_errors(node, (*path, "nodeAffinity"), version)
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = affinity.get(kind)
        if isinstance(terms, dict):
            errors += _pod_affinity_errors(terms, (*path, kind), version)
    return errors


def _node_affinity_errors(
    node: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    errors: list[FieldError] = []
    hard = node.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(hard, dict):
        check_values = version >= REQUIRED_NODE_AFFINITY_VALUES_CHECKED_SINCE
        errors += _node_selector_errors(
            hard,
            (*path, "requiredDuringSchedulingIgnoredDuringExecution"),
            check_values=check_values,
        )
    soft_path = (*path, "preferredDuringSchedulingIgnoredDuringExecution")
    for index, term in objects(node.get("preferredDuringSchedulingIgnoredDuringExecution")):
        errors += _weight_errors(term, (*soft_path, index))
        # Preferred terms keep accepting any value: a single matching node satisfies them.
        errors += _node_selector_term_errors(
            as_object(term.get("preference")),
            (*soft_path, index, "preference"),
            check_values=False,
        )
    return errors


def _node_selector_errors(
    selector: JsonObject, path: FieldPath, *, check_values: bool
) -> list[FieldError]:
    """``ValidateNodeSelector``: at least one term, each term well formed."""
    terms_path = (*path, "nodeSelectorTerms")
    terms = as_list(selector.get("nodeSelectorTerms"))
    if not terms:
        return [required(terms_path, AFFINITY, "must have at least one node selector term")]
    errors: list[FieldError] = []
    for index, term in objects(terms):
        errors += _node_selector_term_errors(term, (*terms_path, index), check_values=check_values)
    return errors


def _node_selector_term_errors(
    term: JsonObject, path: FieldPath, *, check_values: bool
) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, expression in objects(term.get("matchExpressions")):
        errors += _node_requirement_errors(
            expression, (*path, "matchExpressions", index), check_values=check_values
        )
    for index, field_requirement in objects(term.get("matchFields")):
        errors += _node_field_requirement_errors(field_requirement, (*path, "matchFields", index))
    return errors


def _node_requirement_errors(
    requirement: JsonObject, path: FieldPath, *, check_values: bool
) -> list[FieldError]:
    """``ValidateNodeSelectorRequirement``: operator, key and (from 1.33) values."""
    values = as_list(requirement.get("values"))
    errors = _operator_errors(text(requirement.get("operator")), len(values), path)
    key = text(requirement.get("key"))
    if key is not None:
        errors += label_name_errors(key, (*path, "key"), AFFINITY)
    if check_values:
        for index, value in enumerate(values):
            if isinstance(value, str):
                errors += label_value_field_errors(value, (*path, "values", index), AFFINITY)
    return errors


def _operator_errors(operator: str | None, count: int, path: FieldPath) -> list[FieldError]:
    """The operator of a node selector requirement fixes how many values it takes."""
    values_path = (*path, "values")
    if operator in ("In", "NotIn"):
        detail = "must be specified when `operator` is 'In' or 'NotIn'"
        return [] if count else [required(values_path, AFFINITY, detail)]
    if operator in ("Exists", "DoesNotExist"):
        detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
        return [forbidden(values_path, AFFINITY, detail)] if count else []
    if operator in ("Gt", "Lt"):
        detail = "must be specified single value when `operator` is 'Lt' or 'Gt'"
        return [] if count == 1 else [required(values_path, AFFINITY, detail)]
    if operator is None:
        return []
    return [invalid((*path, "operator"), AFFINITY, operator, "not a valid selector operator")]


def _node_field_requirement_errors(requirement: JsonObject, path: FieldPath) -> list[FieldError]:
    """``ValidateNodeFieldSelectorRequirement``: only ``metadata.name``, with one value."""
    errors: list[FieldError] = []
    operator = text(requirement.get("operator"))
    values = as_list(requirement.get("values"))
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            errors.append(
                required(
                    (*path, "values"),
                    AFFINITY,
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field "
                    "selector",
                )
            )
    elif operator is not None:
        errors.append(
            invalid((*path, "operator"), AFFINITY, operator, "not a valid selector operator")
        )
    key = text(requirement.get("key"))
    if key is not None and key != _NODE_NAME_FIELD:
        errors.append(invalid((*path, "key"), AFFINITY, key, "not a valid field selector key"))
    elif key is not None:
        for index, value in enumerate(values):
            if isinstance(value, str):
                errors += [
                    invalid((*path, "values", index), AFFINITY, value, message)
                    for message in dns1123_subdomain_errors(value)
                ]
    return errors


def _weight_errors(term: JsonObject, path: FieldPath) -> list[FieldError]:
    weight = integer(term.get("weight"))
    if weight is None or 1 <= weight <= 100:  # noqa: PLR2004 - the documented weight range
        return []
    return [invalid((*path, "weight"), AFFINITY, weight, _WEIGHT_RANGE)]


def _pod_affinity_errors(
    terms: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """``validatePodAffinity`` and ``validatePodAntiAffinity``, which read alike."""
    errors: list[FieldError] = []
    hard_path = (*path, "requiredDuringSchedulingIgnoredDuringExecution")
    for index, term in objects(terms.get("requiredDuringSchedulingIgnoredDuringExecution")):
        errors += _pod_affinity_term_errors(term, (*hard_path, index), version)
    soft_path = (*path, "preferredDuringSchedulingIgnoredDuringExecution")
    for index, weighted in objects(terms.get("preferredDuringSchedulingIgnoredDuringExecution")):
        errors += _weight_errors(weighted, (*soft_path, index))
        errors += _pod_affinity_term_errors(
            as_object(weighted.get("podAffinityTerm")),
            (*soft_path, index, "podAffinityTerm"),
            version,
        )
    return errors


def _pod_affinity_term_errors(
    term: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """``validatePodAffinityTerm``: selectors, namespaces, label keys and topology key."""
    errors = label_selector_errors(term.get("labelSelector"), (*path, "labelSelector"), AFFINITY)
    errors += label_selector_errors(
        term.get("namespaceSelector"), (*path, "namespaceSelector"), AFFINITY
    )
    for name in as_list(term.get("namespaces")):
        if isinstance(name, str):
            # The API server names the list ``namespace`` here, in the singular.
            errors += [
                invalid((*path, "namespace"), AFFINITY, name, message)
                for message in dns1123_label_errors(name)
            ]
    if MATCH_LABEL_KEYS_IN_POD_AFFINITY.enabled(version):
        errors += _label_keys_errors(term, path)
    topology_key = text(term.get("topologyKey"))
    if topology_key == "":
        errors.append(required((*path, "topologyKey"), AFFINITY, "can not be empty"))
    if topology_key is not None:
        errors += label_name_errors(topology_key, (*path, "topologyKey"), AFFINITY)
    return errors


def _label_keys_errors(term: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateMatchLabelKeysAndMismatchLabelKeys`` for one pod affinity term."""
    selector = term.get("labelSelector")
    match_keys = strings(term.get("matchLabelKeys"))
    mismatch_keys = strings(term.get("mismatchLabelKeys"))
    errors = label_keys_errors(match_keys, selector, (*path, "matchLabelKeys"), AFFINITY)
    errors += label_keys_errors(mismatch_keys, selector, (*path, "mismatchLabelKeys"), AFFINITY)
    if isinstance(selector, dict):
        positions = {key: index for index, key in enumerate(match_keys)}
        seen = set(as_object(selector.get("matchLabels")))
        for _, expression in objects(selector.get("matchExpressions")):
            key = text(expression.get("key")) or ""
            if key in positions and key in seen:
                # Reported at the term's own index path, as the API server does.
                errors.append(
                    invalid(
                        (*path, positions[key]),
                        AFFINITY,
                        key,
                        "exists in both matchLabelKeys and labelSelector",
                    )
                )
            seen.add(key)
    mismatched = set(mismatch_keys)
    errors += [
        invalid(
            (*path, "matchLabelKeys", index),
            AFFINITY,
            key,
            "exists in both matchLabelKeys and mismatchLabelKeys",
        )
        for index, key in enumerate(match_keys)
        if key in mismatched
    ]
    return errors


def label_keys_errors(
    keys: list[str], selector: JsonValue, path: FieldPath, code: str
) -> list[FieldError]:
    """``validateLabelKeys``: label keys need a selector to refine, and must be label names."""
    if not keys:
        return []
    if selector is None:
        return [forbidden(path, code, "must not be specified when labelSelector is not set")]
    errors: list[FieldError] = []
    for index, key in enumerate(keys):
        errors += label_name_errors(key, (*path, index), code)
    return errors
