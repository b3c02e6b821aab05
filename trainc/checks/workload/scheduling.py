"""Where a pod may run: node selector, affinity, tolerations, topology spread.

These fields decide placement, and the API server checks their shape before the
scheduler ever sees them: a toleration with a value but ``operator: Exists``, a spread
constraint with ``maxSkew: 0`` or a node selector value with a space makes every pod of
the Job invalid. The rules follow ``ValidatePodSpec``'s calls to ``ValidateLabels`` (for
``nodeSelector``), ``validateAffinity`` (:mod:`.affinity`), ``ValidateTolerations`` and
``validateTopologySpreadConstraints``, in that order.
"""

from __future__ import annotations

from trainc.checks.workload.affinity import affinity_errors, label_keys_errors
from trainc.checks.workload.fielderrors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from trainc.checks.workload.jsonfields import integer, objects, present, strings, text
from trainc.checks.workload.selectors import (
    label_map_errors,
    label_name_errors,
    label_selector_errors,
)
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_object
from trainc.schema.metadata import label_value_errors

POD_NODE_SELECTOR = Rule(
    "pod.node-selector",
    Severity.ERROR,
    "a nodeSelector key or value is no valid label",
    doc=RuleDoc(
        what="`nodeSelector` keys and values that are no valid labels",
        source="`ValidateLabels`",
        versions="all",
    ),
)

POD_TOLERATIONS = Rule(
    "pod.tolerations",
    Severity.ERROR,
    "a toleration's key, operator, value and effect do not fit",
    doc=RuleDoc(
        what=(
            "key, operator, value and effect that do not fit together; `tolerationSeconds` "
            "without `NoExecute`"
        ),
        source="`ValidateTolerations`",
        versions="all",
    ),
)

POD_TOPOLOGY_SPREAD = Rule(
    "pod.topology-spread",
    Severity.ERROR,
    "a topology spread constraint is invalid",
    doc=RuleDoc(
        what=(
            "`maxSkew`, `topologyKey`, `whenUnsatisfiable`, duplicates, `minDomains`, node "
            "policies, `matchLabelKeys`"
        ),
        source="`validateTopologySpreadConstraints`",
        versions="`matchLabelKeys` merged into the selector from 1.34",
    ),
)


NODE_SELECTOR = POD_NODE_SELECTOR.code
TOLERATIONS = POD_TOLERATIONS.code
TOPOLOGY_SPREAD = POD_TOPOLOGY_SPREAD.code

#: From 1.34 the API server merges a spread constraint's ``matchLabelKeys`` into its
#: selector itself, and no longer refuses a key that also appears in the selector.
TOPOLOGY_SPREAD_SELECTOR_MERGE = Gate("MatchLabelKeysInPodTopologySpreadSelectorMerge", (1, 34))

_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_TOLERATION_OPERATORS = ("Equal", "Exists")
#: ``supportedScheduleActions`` and ``supportedPodTopologySpreadNodePolicies``, sorted.
_UNSATISFIABLE_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
_NODE_POLICIES = ("Honor", "Ignore")
_NOT_POSITIVE = "must be greater than zero"


def check_scheduling(
    pod_spec: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """The placement rules of a pod spec; ``path`` is the pod spec's own path."""
    errors = label_map_errors(pod_spec.get("nodeSelector"), (*path, "nodeSelector"), NODE_SELECTOR)
    errors += affinity_errors(pod_spec.get("affinity"), (*path, "affinity"), version)
    errors += _tolerations_errors(pod_spec.get("tolerations"), (*path, "tolerations"))
    errors += _topology_spread_errors(
        pod_spec.get("topologySpreadConstraints"), (*path, "topologySpreadConstraints"), version
    )
    return errors


def _tolerations_errors(tolerations: JsonValue, path: FieldPath) -> list[FieldError]:
    """``ValidateTolerations``: key, operator, value and effect must agree."""
    errors: list[FieldError] = []
    for index, toleration in objects(tolerations):
        errors += _toleration_errors(toleration, (*path, index))
    return errors


def _toleration_errors(toleration: JsonObject, path: FieldPath) -> list[FieldError]:
    key = text(toleration.get("key"))
    operator = text(toleration.get("operator"))
    value = text(toleration.get("value"))
    effect = text(toleration.get("effect"))
    if key is None or operator is None or value is None or effect is None:
        return []
    operator_path = (*path, "operator")
    errors = label_name_errors(key, (*path, "key"), TOLERATIONS) if key else []
    if not key and operator != "Exists":
        errors.append(
            invalid(
                operator_path,
                TOLERATIONS,
                operator,
                'operator must be Exists when `key` is empty, which means "match all values and '
                'all keys"',
            )
        )
    if present(toleration, "tolerationSeconds") and effect != "NoExecute":
        errors.append(
            invalid(
                (*path, "effect"),
                TOLERATIONS,
                effect,
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            )
        )
    if operator in ("Equal", ""):
        if messages := label_value_errors(value):
            errors.append(invalid(operator_path, TOLERATIONS, value, ";".join(messages)))
    elif operator == "Exists":
        if value:
            errors.append(
                invalid(
                    operator_path,
                    TOLERATIONS,
                    value,
                    "value must be empty when `operator` is 'Exists'",
                )
            )
    else:
        errors.append(not_supported(operator_path, TOLERATIONS, operator, _TOLERATION_OPERATORS))
    if effect and effect not in _TAINT_EFFECTS:
        errors.append(not_supported((*path, "effect"), TOLERATIONS, effect, _TAINT_EFFECTS))
    return errors


def _topology_spread_errors(
    constraints: JsonValue, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """``validateTopologySpreadConstraints``: each constraint, and no two of one kind."""
    items = list(objects(constraints))
    errors: list[FieldError] = []
    for position, (index, constraint) in enumerate(items):
        at = (*path, index)
        later = [other for _, other in items[position + 1 :]]
        errors += _constraint_errors(constraint, at, later, version)
    return errors


def _constraint_errors(
    constraint: JsonObject, path: FieldPath, later: list[JsonObject], version: KubeVersion
) -> list[FieldError]:
    errors: list[FieldError] = []
    max_skew = integer(constraint.get("maxSkew"))
    if max_skew is not None and max_skew <= 0:
        errors.append(invalid((*path, "maxSkew"), TOPOLOGY_SPREAD, max_skew, _NOT_POSITIVE))
    topology_key = text(constraint.get("topologyKey"))
    if topology_key == "":
        errors.append(required((*path, "topologyKey"), TOPOLOGY_SPREAD, "can not be empty"))
    action = text(constraint.get("whenUnsatisfiable"))
    if action is not None and action not in _UNSATISFIABLE_ACTIONS:
        errors.append(
            not_supported(
                (*path, "whenUnsatisfiable"), TOPOLOGY_SPREAD, action, _UNSATISFIABLE_ACTIONS
            )
        )
    kind = (topology_key, action)
    if any(
        (text(other.get("topologyKey")), text(other.get("whenUnsatisfiable"))) == kind
        for other in later
    ):
        errors.append(
            duplicate(
                (*path, "{topologyKey, whenUnsatisfiable}"),
                TOPOLOGY_SPREAD,
                f"{{{topology_key}, {action}}}",
            )
        )
    errors += _min_domains_errors(constraint, (*path, "minDomains"), action)
    for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
        value = constraint.get(policy)
        if isinstance(value, str) and value not in _NODE_POLICIES:
            errors.append(not_supported((*path, policy), TOPOLOGY_SPREAD, value, _NODE_POLICIES))
    errors += _match_label_keys_errors(constraint, (*path, "matchLabelKeys"), version)
    errors += label_selector_errors(
        constraint.get("labelSelector"), (*path, "labelSelector"), TOPOLOGY_SPREAD
    )
    return errors


def _min_domains_errors(
    constraint: JsonObject, path: FieldPath, action: str | None
) -> list[FieldError]:
    """``validateMinDomains``: positive, and only for ``DoNotSchedule`` constraints."""
    if not present(constraint, "minDomains"):
        return []
    value = integer(constraint.get("minDomains"))
    if value is None:
        return []
    errors: list[FieldError] = []
    if value <= 0:
        errors.append(invalid(path, TOPOLOGY_SPREAD, value, _NOT_POSITIVE))
    if action != "DoNotSchedule":
        errors.append(
            invalid(
                path,
                TOPOLOGY_SPREAD,
                value,
                f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}",
            )
        )
    return errors


def _match_label_keys_errors(
    constraint: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """A constraint's ``matchLabelKeys``: label names that refine an existing selector.

    Before the selector merge (1.34), a key may not also appear in the selector
    (``validateMatchLabelKeysInTopologySpread``).
    """
    keys = strings(constraint.get("matchLabelKeys"))
    selector = constraint.get("labelSelector")
    if TOPOLOGY_SPREAD_SELECTOR_MERGE.enabled(version):
        return label_keys_errors(keys, selector, path, TOPOLOGY_SPREAD)
    if not keys:
        return []
    errors: list[FieldError] = []
    if selector is None:
        errors.append(
            forbidden(path, TOPOLOGY_SPREAD, "must not be specified when labelSelector is not set")
        )
    selector_keys = set(as_object(as_object(selector).get("matchLabels")))
    selector_keys.update(
        key
        for _, expression in objects(as_object(selector).get("matchExpressions"))
        if isinstance(key := expression.get("key"), str)
    )
    for index, key in enumerate(keys):
        errors += label_name_errors(key, (*path, index), TOPOLOGY_SPREAD)
        if key in selector_keys:
            errors.append(
                invalid(
                    (*path, index),
                    TOPOLOGY_SPREAD,
                    key,
                    "exists in both matchLabelKeys and labelSelector",
                )
            )
    return errors
