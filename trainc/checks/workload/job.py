"""The rules of a Job's own spec, as ``ValidateJob`` judges the Jobs a JobSet creates.

The JobSet controller creates one batch/v1 Job per replicatedJob; if the API server
refuses it, the JobSet sits with no pods and the reason appears only in the controller's
events. This module judges the Job as the API server sees it on create: after the JobSet
webhook defaulted ``completionMode: Indexed`` and the pod's ``restartPolicy: OnFailure``,
after ``SetDefaults_Job`` (completions and parallelism 1 when both are unset,
``manualSelector: false``) and after the registry strategy dropped the fields of gates
that are off and generated the selector and the ``job-name``/``controller-uid`` labels.
It reproduces ``validateJobSpec`` (without the pod template, which the caller composes)
and ``ValidateJob``'s pod hostname check, between the selector rules of
:mod:`.job_selector`, in ``ValidateJob``'s order.
"""

from __future__ import annotations

from trainc.checks.workload.fielderrors import (
    ErrorType,
    FieldError,
    invalid,
    not_supported,
    required,
)
from trainc.checks.workload.job_policies import (
    SUCCESS_POLICY,
    pod_failure_policy_errors,
    success_policy_errors,
)
from trainc.checks.workload.job_selector import generated_selector_errors, selector_errors
from trainc.checks.workload.jsonfields import integer, present, text
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, as_object
from trainc.schema.metadata import dns1123_label_errors, domain_prefixed_path_errors
from trainc.schema.metadata import dns1123_subdomain_errors as subdomain_errors

JOB_COUNTS = Rule(
    "job.counts",
    Severity.ERROR,
    "parallelism, completions, backoff or deadline counts are invalid",
    doc=RuleDoc(
        what=(
            "negative `parallelism`, `completions`, `backoffLimit`, deadlines; "
            "`maxFailedIndexes` without `backoffLimitPerIndex`"
        ),
        source="`validateJobSpec`",
        versions="all",
    ),
)

JOB_MANAGED_BY_RULE = Rule(
    "job.managed-by",
    Severity.ERROR,
    "the Job's managedBy is not a short domain-prefixed path",
    doc=RuleDoc(
        what="a `managedBy` that is no domain-prefixed path of at most 63 characters",
        source="`validateJobSpec`",
        versions="from 1.32 (`JobManagedBy`)",
    ),
)

JOB_COMPLETION_MODE = Rule(
    "job.completion-mode",
    Severity.ERROR,
    "the completion mode or an Indexed Job's limits are broken",
    doc=RuleDoc(
        what=(
            "unknown modes; Indexed limits (at most 100,000 completions); per-index fields "
            "on a NonIndexed Job; the last pod's hostname no DNS label"
        ),
        source="`validateJobSpec`, `ValidateJob`",
        versions="all",
    ),
)

JOB_POD_REPLACEMENT_POLICY = Rule(
    "job.pod-replacement-policy",
    Severity.ERROR,
    "the Job's podReplacementPolicy is invalid",
    doc=RuleDoc(
        what="unknown values; other than `Failed` with a `podFailurePolicy`",
        source="`validatePodReplacementPolicy`",
        versions="all",
    ),
)

JOB_RESTART_POLICY = Rule(
    "job.restart-policy",
    Severity.ERROR,
    "the pod restartPolicy is not OnFailure or Never, or not Never with a podFailurePolicy",
    doc=RuleDoc(
        what=(
            "a pod `restartPolicy` other than `OnFailure` or `Never`; other than `Never` "
            "with a `podFailurePolicy` (the JobSet webhook defaults it to `OnFailure`)"
        ),
        source="`validateJobSpec`",
        versions="all",
    ),
)


COUNTS = JOB_COUNTS.code
MANAGED_BY = JOB_MANAGED_BY_RULE.code
COMPLETION_MODE = JOB_COMPLETION_MODE.code
POD_REPLACEMENT_POLICY = JOB_POD_REPLACEMENT_POLICY.code
RESTART_POLICY = JOB_RESTART_POLICY.code

#: ``spec.managedBy``; before 1.32 the API server drops it.
JOB_MANAGED_BY = Gate("JobManagedBy", (1, 32))
#: ``spec.successPolicy``; before 1.31 the API server drops it.
JOB_SUCCESS_POLICY = Gate("JobSuccessPolicy", (1, 31))

_NON_NEGATIVE = "must be greater than or equal to 0"
_COUNT_FIELDS = (
    "parallelism",
    "completions",
    "activeDeadlineSeconds",
    "backoffLimit",
    "ttlSecondsAfterFinished",
    "backoffLimitPerIndex",
    "maxFailedIndexes",
)
_MAX_INDEXED_PARALLELISM = 100_000
_MAX_FAILED_INDEXES = 100_000
_COMPLETIONS_SOFT_LIMIT = 100_000
_HIGH_COMPLETIONS_LIMIT = 10_000
_MANAGED_BY_MAX = 63
_COMPLETION_MODES = ("NonIndexed", "Indexed")
_REPLACEMENT_POLICIES = ("Failed", "TerminatingOrFailed")


def check_job_spec(job: JsonObject, version: KubeVersion) -> list[FieldError]:
    """The Job's own spec rules (not the pod spec's, which the lead composes); paths
    start at the Job's root ("spec", ...)."""
    spec = as_object(job.get("spec"))
    name = text(as_object(job.get("metadata")).get("name")) or None
    errors = generated_selector_errors(spec, name, version)
    errors += _count_errors(spec)
    if JOB_MANAGED_BY.enabled(version):
        errors += _managed_by_errors(spec)
    errors += _completion_mode_errors(spec)
    if present(spec, "podFailurePolicy"):
        errors += pod_failure_policy_errors(spec, ("spec", "podFailurePolicy"), version)
    if JOB_SUCCESS_POLICY.enabled(version) and present(spec, "successPolicy"):
        errors += _success_policy_errors(spec)
    errors += _pod_replacement_errors(spec)
    errors += _restart_policy_errors(spec)
    errors += selector_errors(spec, name, version)
    return errors + _pod_hostname_errors(spec, name)


def _completions(spec: JsonObject) -> int | None:
    """``completions`` after ``SetDefaults_Job``: 1 when parallelism is unset too."""
    if present(spec, "completions"):
        return integer(spec.get("completions"))
    return None if present(spec, "parallelism") else 1


def _completion_mode(spec: JsonObject) -> str | None:
    """``completionMode``, which the JobSet webhook defaults to ``Indexed``."""
    return text(spec.get("completionMode")) if present(spec, "completionMode") else "Indexed"


def _count_errors(spec: JsonObject) -> list[FieldError]:
    """Counts and durations are non-negative; ``maxFailedIndexes`` needs a per-index
    backoff limit to count against."""
    errors: list[FieldError] = []
    for field in _COUNT_FIELDS:
        value = integer(spec.get(field)) if present(spec, field) else None
        if value is not None and value < 0:
            errors.append(invalid(("spec", field), COUNTS, value, _NON_NEGATIVE))
    if present(spec, "maxFailedIndexes") and not present(spec, "backoffLimitPerIndex"):
        detail = "when maxFailedIndexes is specified"
        errors.append(required(("spec", "backoffLimitPerIndex"), COUNTS, detail))
    return errors


def _managed_by_errors(spec: JsonObject) -> list[FieldError]:
    """``managedBy`` names the controller that owns the Job: ``<domain>/<path>``, at most
    63 bytes (``IsDomainPrefixedPath``)."""
    manager = spec.get("managedBy")
    if not isinstance(manager, str):
        return []
    path: FieldPath = ("spec", "managedBy")
    host, _, rest = manager.partition("/")
    host_messages = set(subdomain_errors(host))
    errors: list[FieldError] = []
    for message in domain_prefixed_path_errors(manager):
        if message == "Required value":
            errors.append(required(path, MANAGED_BY))
        elif message.startswith("must be a domain-prefixed path"):
            errors.append(invalid(path, MANAGED_BY, manager, message))
        else:
            errors.append(
                invalid(path, MANAGED_BY, host if message in host_messages else rest, message)
            )
    if len(manager.encode()) > _MANAGED_BY_MAX:
        detail = f"may not be longer than {_MANAGED_BY_MAX}"  # TooLongMaxLength
        errors.append(FieldError(ErrorType.TOO_LONG, path, MANAGED_BY, detail=detail))
    return errors


def _completion_mode_errors(spec: JsonObject) -> list[FieldError]:
    """``completionMode`` and what each mode requires or forbids."""
    mode = _completion_mode(spec)
    if mode is None:
        return []
    if mode == "Indexed":
        return _indexed_errors(spec)
    errors: list[FieldError] = []
    if mode != "NonIndexed":
        errors.append(
            not_supported(("spec", "completionMode"), COMPLETION_MODE, mode, _COMPLETION_MODES)
        )
        return errors
    for field in ("backoffLimitPerIndex", "maxFailedIndexes"):
        value = spec.get(field)
        if present(spec, field):
            errors.append(
                invalid(("spec", field), COMPLETION_MODE, value, "requires indexed completion mode")
            )
    return errors


def _indexed_errors(spec: JsonObject) -> list[FieldError]:
    """An Indexed Job needs ``completions``; its parallelism and failed-index budget are
    capped (tighter above 100000 completions with a per-index backoff limit)."""
    errors: list[FieldError] = []
    completions = _completions(spec)
    parallelism = integer(spec.get("parallelism")) if present(spec, "parallelism") else None
    max_failed = (
        integer(spec.get("maxFailedIndexes")) if present(spec, "maxFailedIndexes") else None
    )
    if not present(spec, "completions") and parallelism is not None:
        errors.append(
            required(("spec", "completions"), COMPLETION_MODE, "when completion mode is Indexed")
        )
    if parallelism is not None and parallelism > _MAX_INDEXED_PARALLELISM:
        detail = (
            f"must be less than or equal to {_MAX_INDEXED_PARALLELISM} when completion mode is "
            "Indexed"
        )
        errors.append(invalid(("spec", "parallelism"), COMPLETION_MODE, parallelism, detail))
    if completions is not None and max_failed is not None and max_failed > completions:
        detail = "must be less than or equal to completions"
        errors.append(invalid(("spec", "maxFailedIndexes"), COMPLETION_MODE, max_failed, detail))
    if max_failed is not None and max_failed > _MAX_FAILED_INDEXES:
        detail = f"must be less than or equal to {_MAX_FAILED_INDEXES}"
        errors.append(invalid(("spec", "maxFailedIndexes"), COMPLETION_MODE, max_failed, detail))
    if (
        completions is not None
        and completions > _COMPLETIONS_SOFT_LIMIT
        and present(spec, "backoffLimitPerIndex")
    ):
        errors += _high_completions_errors(parallelism, max_failed)
    return errors


def _high_completions_errors(parallelism: int | None, max_failed: int | None) -> list[FieldError]:
    suffix = (
        f"when completions are above {_COMPLETIONS_SOFT_LIMIT} and used with backoff limit "
        "per index"
    )
    errors: list[FieldError] = []
    if max_failed is None:
        detail = f"must be specified when completions is above {_COMPLETIONS_SOFT_LIMIT}"
        errors.append(required(("spec", "maxFailedIndexes"), COMPLETION_MODE, detail))
    if parallelism is not None and parallelism > _HIGH_COMPLETIONS_LIMIT:
        detail = f"must be less than or equal to {_HIGH_COMPLETIONS_LIMIT} {suffix}"
        errors.append(invalid(("spec", "parallelism"), COMPLETION_MODE, parallelism, detail))
    if max_failed is not None and max_failed > _HIGH_COMPLETIONS_LIMIT:
        detail = f"must be less than or equal to {_HIGH_COMPLETIONS_LIMIT} {suffix}"
        errors.append(invalid(("spec", "maxFailedIndexes"), COMPLETION_MODE, max_failed, detail))
    return errors


def _success_policy_errors(spec: JsonObject) -> list[FieldError]:
    """A success policy counts indexes, so it needs an Indexed Job."""
    path: FieldPath = ("spec", "successPolicy")
    if _completion_mode(spec) != "Indexed":
        detail = "requires indexed completion mode"
        return [invalid(path, SUCCESS_POLICY, spec.get("successPolicy"), detail)]
    return success_policy_errors(spec, path, _completions(spec))


def _pod_replacement_errors(spec: JsonObject) -> list[FieldError]:
    """``validatePodReplacementPolicy``: with a pod failure policy, only ``Failed``."""
    policy = spec.get("podReplacementPolicy")
    if not isinstance(policy, str):
        return []
    allowed = ("Failed",) if present(spec, "podFailurePolicy") else _REPLACEMENT_POLICIES
    if policy in allowed:
        return []
    return [
        not_supported(("spec", "podReplacementPolicy"), POD_REPLACEMENT_POLICY, policy, allowed)
    ]


def _restart_policy_errors(spec: JsonObject) -> list[FieldError]:
    """A Job's pods end: ``OnFailure`` or ``Never``, and ``Never`` with a pod failure
    policy (which must see each failed pod). Unset, the JobSet webhook sets ``OnFailure``."""
    pod_spec = as_object(as_object(spec.get("template")).get("spec"))
    policy = text(pod_spec.get("restartPolicy")) or "OnFailure"
    path: FieldPath = ("spec", "template", "spec", "restartPolicy")
    if policy == "Always":
        return [required(path, RESTART_POLICY, 'valid values: "OnFailure", "Never"')]
    if policy not in ("OnFailure", "Never"):
        return [not_supported(path, RESTART_POLICY, policy, ("OnFailure", "Never"))]
    if present(spec, "podFailurePolicy") and policy != "Never":
        detail = 'only "Never" is supported when podFailurePolicy is specified'
        return [invalid(path, RESTART_POLICY, policy, detail)]
    return []


def _pod_hostname_errors(spec: JsonObject, name: str | None) -> list[FieldError]:
    """An Indexed Job's pods are named ``<job>-<index>`` and use it as hostname, so the
    name of its last pod must be a DNS label."""
    completions = _completions(spec)
    if name is None or _completion_mode(spec) != "Indexed" or not completions or completions <= 0:
        return []
    hostname = f"{name}-{completions - 1}"
    if not dns1123_label_errors(hostname):
        return []
    detail = f"will not able to create pod with invalid DNS label: {hostname}"
    return [invalid(("metadata", "name"), COMPLETION_MODE, name, detail)]
