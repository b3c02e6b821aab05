"""Label maps and label selectors, as apimachinery's ``meta/v1/validation`` judges them.

A Job's ``selector``, a pod affinity term's ``labelSelector`` and a topology spread
constraint's selector are ``metav1.LabelSelector`` values; the API server checks their
keys, operators and values (``ValidateLabelSelector``) before anything selects pods with
them, and checks plain label maps such as ``nodeSelector`` with ``ValidateLabels``. The
Job rules also need to know whether a selector selects a set of labels, as
``LabelSelectorAsSelector(...).Matches`` decides it: :func:`selector_matches`.
"""

from __future__ import annotations

from collections.abc import Mapping

from trainc.checks.workload.fielderrors import FieldError, forbidden, invalid, required
from trainc.checks.workload.jsonfields import objects, strings, text
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list
from trainc.schema.metadata import label_value_errors, qualified_name_errors

_SET_OPERATORS = ("In", "NotIn")
_EXISTENCE_OPERATORS = ("Exists", "DoesNotExist")


def label_name_errors(name: str, path: FieldPath, code: str) -> list[FieldError]:
    """``ValidateLabelName``: ``name`` must be a qualified name (``[prefix/]name``)."""
    return [invalid(path, code, name, message) for message in qualified_name_errors(name)]


def label_value_field_errors(value: str, path: FieldPath, code: str) -> list[FieldError]:
    """``IsValidLabelValue`` as field errors: at most 63 characters of ``[-_.A-Za-z0-9]``."""
    return [invalid(path, code, value, message) for message in label_value_errors(value)]


def label_map_errors(labels: JsonValue, path: FieldPath, code: str) -> list[FieldError]:
    """``ValidateLabels``: every key a qualified name, every value a label value.

    Both kinds of error point at the map itself (``spec.nodeSelector``), not at the key,
    as the API server reports them.
    """
    errors: list[FieldError] = []
    for key, value in (labels if isinstance(labels, dict) else {}).items():
        errors += label_name_errors(key, path, code)
        if isinstance(value, str):
            errors += label_value_field_errors(value, path, code)
    return errors


def label_selector_errors(selector: JsonValue, path: FieldPath, code: str) -> list[FieldError]:
    """``ValidateLabelSelector``, label values checked (no stored object excuses them)."""
    if not isinstance(selector, dict):
        return []
    errors = label_map_errors(selector.get("matchLabels"), (*path, "matchLabels"), code)
    for index, requirement in objects(selector.get("matchExpressions")):
        errors += _requirement_errors(requirement, (*path, "matchExpressions", index), code)
    return errors


def _requirement_errors(requirement: JsonObject, path: FieldPath, code: str) -> list[FieldError]:
    """``ValidateLabelSelectorRequirement``: operator and value count agree, key and values
    are well formed."""
    errors: list[FieldError] = []
    operator = text(requirement.get("operator"))
    values = as_list(requirement.get("values"))
    if operator in _SET_OPERATORS:
        if not values:
            errors.append(
                required(
                    (*path, "values"), code, "must be specified when `operator` is 'In' or 'NotIn'"
                )
            )
    elif operator in _EXISTENCE_OPERATORS:
        if values:
            errors.append(
                forbidden(
                    (*path, "values"),
                    code,
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                )
            )
    elif operator is not None:
        errors.append(invalid((*path, "operator"), code, operator, "not a valid selector operator"))
    key = text(requirement.get("key"))
    if key is not None:
        errors += label_name_errors(key, (*path, "key"), code)
    for index, value in enumerate(values):
        if isinstance(value, str):
            errors += label_value_field_errors(value, (*path, "values", index), code)
    return errors


def selector_matches(selector: JsonValue, labels: Mapping[str, str]) -> bool | None:
    """Whether ``selector`` selects ``labels``, as ``LabelSelectorAsSelector`` decides.

    An absent selector selects nothing and an empty one everything. None when the
    selector cannot be turned into requirements (a bad operator, key or value), where the
    API server skips the comparison.
    """
    if selector is None:
        return False
    if not isinstance(selector, dict):
        return None
    match_labels = selector.get("matchLabels")
    requirements: list[tuple[str, str, list[str]]] = [
        (key, "In", [value])
        for key, value in (match_labels if isinstance(match_labels, dict) else {}).items()
        if isinstance(value, str)
    ]
    for _, expression in objects(selector.get("matchExpressions")):
        key, operator = expression.get("key"), expression.get("operator")
        values = strings(expression.get("values"))
        if not isinstance(key, str) or not isinstance(operator, str):
            return None
        requirements.append((key, operator, values))
    if any(not _is_requirement(key, operator, values) for key, operator, values in requirements):
        return None
    return all(_satisfies(labels, key, operator, values) for key, operator, values in requirements)


def _is_requirement(key: str, operator: str, values: list[str]) -> bool:
    """What ``labels.NewRequirement`` accepts: a qualified key, a known operator with a
    fitting number of well-formed values."""
    if qualified_name_errors(key) or any(label_value_errors(value) for value in values):
        return False
    if operator in _SET_OPERATORS:
        return bool(values)
    return operator in _EXISTENCE_OPERATORS and not values


def _satisfies(labels: Mapping[str, str], key: str, operator: str, values: list[str]) -> bool:
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    return present if operator == "Exists" else not present
