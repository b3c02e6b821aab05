"""A Job's pod failure policy and success policy, as ``validateJobSpec`` judges them.

Training runtimes use both: a pod failure policy that fails the job at once on a known
exit code (or ignores preemptions), a success policy that declares the job done when the
leader pod succeeds. A rule without a requirement, an unsorted exit code list or a
success index out of range makes the API server refuse the Job, so the JobSet never
starts. The rules follow ``validatePodFailurePolicy`` (with its rule, exit-code and
pod-condition checks) and ``validateSuccessPolicy`` (with ``validateIndexesFormat``).
"""

from __future__ import annotations

import json
import re

from trainc.checks.workload.badvalues import invalid_composite
from trainc.checks.workload.fielderrors import (
    OMITTED,
    ErrorType,
    FieldError,
    duplicate,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
)
from trainc.checks.workload.jsonfields import integer, objects, present, text
from trainc.checks.workload.version import KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list, as_object
from trainc.records import dataclass
from trainc.schema.metadata import qualified_name_errors

JOB_POD_FAILURE_POLICY = Rule(
    "job.pod-failure-policy",
    Severity.ERROR,
    "the Job's podFailurePolicy is invalid",
    doc=RuleDoc(
        what="too many rules, actions, operators, exit codes, container names, pod conditions",
        source="`validatePodFailurePolicy`",
        versions="all",
    ),
)

JOB_SUCCESS_POLICY = Rule(
    "job.success-policy",
    Severity.ERROR,
    "the Job's successPolicy is invalid",
    doc=RuleDoc(
        what=(
            "a success policy on a NonIndexed Job, empty or too many rules, "
            "`succeededIndexes`, `succeededCount`"
        ),
        source="`validateSuccessPolicy`",
        versions="from 1.31 (`JobSuccessPolicy`)",
    ),
)


POD_FAILURE_POLICY = JOB_POD_FAILURE_POLICY.code
SUCCESS_POLICY = JOB_SUCCESS_POLICY.code

#: ``sets.List`` orders: sorted.
_ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
_EXIT_CODE_OPERATORS = ("In", "NotIn")
_CONDITION_STATUSES = ("False", "True", "Unknown")
_MAX_RULES = 20
_MAX_EXIT_CODES = 255
_MAX_CONDITION_PATTERNS = 20
_MAX_SUCCEEDED_INDEXES_BYTES = 64 * 1024
_INT64 = range(-(2**63), 2**63)


def _valid_values(values: tuple[str, ...]) -> str:
    """Go's ``fmt.Sprintf("valid values: %q", list)``: ``valid values: ["a" "b"]``."""
    return "valid values: [" + " ".join(json.dumps(value) for value in values) + "]"


@dataclass(frozen=True, slots=True)
class _JobFacts:
    """What the rules of a pod failure policy read of the Job around it."""

    #: Names of the pod template's containers and init containers.
    containers: frozenset[str | None]
    #: Whether ``backoffLimitPerIndex`` is set (``FailIndex`` needs it).
    per_index: bool
    version: KubeVersion


def pod_failure_policy_errors(
    spec: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """``validatePodFailurePolicy``; ``path`` is the policy's."""
    policy = as_object(spec.get("podFailurePolicy"))
    rules = as_list(policy.get("rules"))
    rules_path = (*path, "rules")
    errors: list[FieldError] = []
    if len(rules) > _MAX_RULES:
        errors.append(too_many(rules_path, POD_FAILURE_POLICY, len(rules), _MAX_RULES))
    pod_spec = as_object(as_object(spec.get("template")).get("spec"))
    facts = _JobFacts(
        containers=frozenset(
            text(container.get("name"))
            for field in ("containers", "initContainers")
            for _, container in objects(pod_spec.get(field))
        ),
        per_index=present(spec, "backoffLimitPerIndex"),
        version=version,
    )
    for index, rule in objects(rules):
        errors += _rule_errors(rule, (*rules_path, index), facts)
    return errors


def _rule_errors(rule: JsonObject, path: FieldPath, facts: _JobFacts) -> list[FieldError]:
    errors: list[FieldError] = []
    action = text(rule.get("action"))
    action_path = (*path, "action")
    if action == "":
        errors.append(required(action_path, POD_FAILURE_POLICY, _valid_values(_ACTIONS)))
    elif action == "FailIndex" and not facts.per_index:
        detail = "requires the backoffLimitPerIndex to be set"
        errors.append(invalid(action_path, POD_FAILURE_POLICY, action, detail))
    elif action is not None and action not in _ACTIONS:
        errors.append(not_supported(action_path, POD_FAILURE_POLICY, action, _ACTIONS))
    exit_codes = rule.get("onExitCodes")
    if isinstance(exit_codes, dict):
        errors += _exit_codes_errors(exit_codes, (*path, "onExitCodes"), facts)
    conditions = as_list(rule.get("onPodConditions"))
    if conditions:
        errors += _pod_conditions_errors(conditions, (*path, "onPodConditions"))
    if exit_codes is not None and conditions:
        detail = "specifying both OnExitCodes and OnPodConditions is not supported"
        errors.append(FieldError(ErrorType.INVALID, path, POD_FAILURE_POLICY, OMITTED, detail))
    if exit_codes is None and not conditions:
        detail = "specifying one of OnExitCodes and OnPodConditions is required"
        errors.append(FieldError(ErrorType.INVALID, path, POD_FAILURE_POLICY, OMITTED, detail))
    return errors


def _exit_codes_errors(
    requirement: JsonObject, path: FieldPath, facts: _JobFacts
) -> list[FieldError]:
    """``validatePodFailurePolicyRuleOnExitCodes``: operator, container and a sorted list
    of distinct codes (never 0 with ``In``, which would match success)."""
    errors: list[FieldError] = []
    operator = text(requirement.get("operator"))
    operator_path = (*path, "operator")
    if operator == "":
        errors.append(
            required(operator_path, POD_FAILURE_POLICY, _valid_values(_EXIT_CODE_OPERATORS))
        )
    elif operator is not None and operator not in _EXIT_CODE_OPERATORS:
        errors.append(
            not_supported(operator_path, POD_FAILURE_POLICY, operator, _EXIT_CODE_OPERATORS)
        )
    container = requirement.get("containerName")
    if isinstance(container, str) and container not in facts.containers:
        detail = "must be one of the container or initContainer names in the pod template"
        errors.append(invalid((*path, "containerName"), POD_FAILURE_POLICY, container, detail))
    values = as_list(requirement.get("values"))
    values_path = (*path, "values")
    if not values:
        detail = "at least one value is required"
        errors.append(_codes_error(values_path, requirement, detail, facts.version))
    elif len(values) > _MAX_EXIT_CODES:
        errors.append(too_many(values_path, POD_FAILURE_POLICY, len(values), _MAX_EXIT_CODES))
    codes = [code for code in (integer(value) for value in values) if code is not None]
    seen: set[int] = set()
    for index, code in enumerate(codes):
        if operator == "In" and code == 0:
            detail = "must not be 0 for the In operator"
            errors.append(invalid((*values_path, index), POD_FAILURE_POLICY, code, detail))
        if code in seen:
            errors.append(duplicate((*values_path, index), POD_FAILURE_POLICY, code))
        seen.add(code)
    if codes != sorted(codes):
        errors.append(_codes_error(values_path, requirement, "must be ordered", facts.version))
    return errors


def _codes_error(
    path: FieldPath, requirement: JsonObject, detail: str, version: KubeVersion
) -> FieldError:
    """``Invalid value`` of the whole exit code list (a ``[]int32``)."""
    values = requirement.get("values")
    codes = [code for code in (integer(v) for v in as_list(values)) if code is not None]
    go_syntax = "[]int32(nil)" if values is None else f"[]int32{{{', '.join(map(str, codes))}}}"
    return invalid_composite(
        path,
        POD_FAILURE_POLICY,
        version=version,
        value=as_list(values),
        go_syntax=go_syntax,
        detail=detail,
    )


def _pod_conditions_errors(patterns: list[JsonValue], path: FieldPath) -> list[FieldError]:
    """``validatePodFailurePolicyRuleOnPodConditions``: qualified condition types and a
    known status (an unset status defaults to ``True``)."""
    errors: list[FieldError] = []
    if len(patterns) > _MAX_CONDITION_PATTERNS:
        errors.append(too_many(path, POD_FAILURE_POLICY, len(patterns), _MAX_CONDITION_PATTERNS))
    for index, pattern in objects(patterns):
        at = (*path, index)
        condition = text(pattern.get("type"))
        if condition is not None:
            errors += [
                invalid((*at, "type"), POD_FAILURE_POLICY, condition, message)
                for message in qualified_name_errors(condition)
            ]
        status = text(pattern.get("status")) or "True"
        if status not in _CONDITION_STATUSES:
            errors.append(
                not_supported((*at, "status"), POD_FAILURE_POLICY, status, _CONDITION_STATUSES)
            )
    return errors


def success_policy_errors(
    spec: JsonObject, path: FieldPath, completions: int | None
) -> list[FieldError]:
    """``validateSuccessPolicy`` for an Indexed Job; ``path`` is the policy's and
    ``completions`` the Job's (None when unset, which is reported elsewhere)."""
    rules = as_list(as_object(spec.get("successPolicy")).get("rules"))
    rules_path = (*path, "rules")
    errors: list[FieldError] = []
    if not rules:
        detail = "at least one rules must be specified when the successPolicy is specified"
        errors.append(required(rules_path, SUCCESS_POLICY, detail))
    if len(rules) > _MAX_RULES:
        errors.append(too_many(rules_path, SUCCESS_POLICY, len(rules), _MAX_RULES))
    for index, rule in objects(rules):
        errors += _success_rule_errors(rule, (*rules_path, index), completions)
    return errors


def _success_rule_errors(
    rule: JsonObject, path: FieldPath, completions: int | None
) -> list[FieldError]:
    """``validateSuccessPolicyRule``. Without ``completions`` (refused elsewhere) the API
    server cannot compare indexes or counts with it, and neither does this."""
    errors: list[FieldError] = []
    indexes = rule.get("succeededIndexes")
    has_count = present(rule, "succeededCount")
    if indexes is None and not has_count:
        detail = "at least one of succeededCount or succeededIndexes must be specified"
        errors.append(required(path, SUCCESS_POLICY, detail))
    if completions is None:
        return errors
    total = 0
    if isinstance(indexes, str):
        indexes_path = (*path, "succeededIndexes")
        if len(indexes.encode()) > _MAX_SUCCEEDED_INDEXES_BYTES:
            errors.append(too_long(indexes_path, SUCCESS_POLICY, _MAX_SUCCEEDED_INDEXES_BYTES))
        total, problem = count_indexes(indexes, completions)
        if problem:
            detail = f"error parsing succeededIndexes: {problem}"
            errors.append(invalid(indexes_path, SUCCESS_POLICY, indexes, detail))
    count = integer(rule.get("succeededCount")) if has_count else None
    if count is not None:
        errors += _succeeded_count_errors(
            count,
            (*path, "succeededCount"),
            completions,
            total if isinstance(indexes, str) else None,
        )
    return errors


def _succeeded_count_errors(
    count: int, path: FieldPath, completions: int, total: int | None
) -> list[FieldError]:
    """A rule's ``succeededCount`` fits in the Job and in its own ``succeededIndexes``."""
    errors: list[FieldError] = []
    if count < 0:
        errors.append(invalid(path, SUCCESS_POLICY, count, "must be greater than or equal to 0"))
    if count > completions:
        detail = (
            f"must be less than or equal to {completions} (the number of specified completions)"
        )
        errors.append(invalid(path, SUCCESS_POLICY, count, detail))
    if total is not None and count > total:
        detail = (
            f"must be less than or equal to {total} (the number of indexes in the specified "
            "succeededIndexes field)"
        )
        errors.append(invalid(path, SUCCESS_POLICY, count, detail))
    return errors


def count_indexes(text_value: str, completions: int) -> tuple[int, str]:
    """``validateIndexesFormat``: how many indexes ``"0,2-4"`` names below ``completions``,
    and why it cannot be parsed (empty when it can). Intervals must ascend."""
    if not text_value:
        return 0, ""
    total = 0
    last: int | None = None
    for interval in text_value.split(","):
        first, final, problem = _parse_interval(interval, completions)
        if problem:
            return 0, problem
        if last is not None and last >= first:
            return 0, f"non-increasing order, previous: {last}, current: {first}"
        total += final - first + 1
        last = final
    return total, ""


def _parse_interval(interval: str, completions: int) -> tuple[int, int, str]:
    """``parseIndexInterval``: ``"3"`` or ``"3-5"``, each bound a valid index."""
    bounds = interval.split("-")
    if len(bounds) > 2:  # noqa: PLR2004 - first and last
        detail = (
            f"the fragment {json.dumps(interval)} violates the requirement that an index "
            "interval can have at most two parts separated by '-'"
        )
        return 0, 0, detail
    numbers: list[int] = []
    for bound in bounds:
        if not re.fullmatch(r"[+-]?[0-9]+", bound) or int(bound) not in _INT64:
            return 0, 0, f"cannot convert string to integer for index: {json.dumps(bound)}"
        if int(bound) >= completions:
            return 0, 0, f"too large index: {json.dumps(bound)}"
        numbers.append(int(bound))
    first, final = numbers[0], numbers[-1]
    if len(numbers) == 2 and first >= final:  # noqa: PLR2004
        return 0, 0, f"non-increasing order, previous: {first}, current: {final}"
    return first, final, ""
