"""A namespace's Pod Security policy, read from its labels as the API server reads them.

Follows ``PolicyToEvaluate``
(https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/api/helpers.go):
each mode starts from the plugin's defaults (``privileged:latest`` unless the cluster's
``AdmissionConfiguration`` says otherwise) and a label overrides it. A bad value never
opens a namespace: a bad ``enforce`` level reads as ``restricted``, a bad ``warn`` or
``audit`` level as ``privileged`` (they only report, so they fail open), a bad version as
``latest``. A namespace that sets ``enforce`` to a stricter level than ``warn`` and sets no
``warn`` label warns at the enforce level too (since 1.26), so ``kubectl apply`` shows the
refusal the pods will meet. The errors come back with the policy: the API server refuses
to create a Namespace with them, and notes them on every pod it judges under them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Final

from trainc.checks.admission.pod_security.levels import (
    Level,
    LevelVersion,
    parse_level,
    parse_version,
)
from trainc.checks.admission.pod_security.message import go_quote

_PREFIX: Final = "pod-security.kubernetes.io/"
ENFORCE_LABEL: Final = _PREFIX + "enforce"
ENFORCE_VERSION_LABEL: Final = _PREFIX + "enforce-version"
AUDIT_LABEL: Final = _PREFIX + "audit"
AUDIT_VERSION_LABEL: Final = _PREFIX + "audit-version"
WARN_LABEL: Final = _PREFIX + "warn"
WARN_VERSION_LABEL: Final = _PREFIX + "warn-version"

_PRIVILEGED: Final = LevelVersion(Level.PRIVILEGED)


@dataclass(frozen=True, slots=True)
class LabelError:
    """A Pod Security label whose value the API server does not accept."""

    label: str
    value: str
    reason: str

    @property
    def text(self) -> str:
        """The field error as the API server words it."""
        return (
            f"metadata.labels[{self.label}]: Invalid value: {go_quote(self.value)}: {self.reason}"
        )


@dataclass(frozen=True, slots=True)
class NamespacePolicy:
    """What each mode of a namespace applies, and the label errors met reading it."""

    enforce: LevelVersion = _PRIVILEGED
    audit: LevelVersion = _PRIVILEGED
    warn: LevelVersion = _PRIVILEGED
    errors: tuple[LabelError, ...] = field(default=())

    @property
    def fully_privileged(self) -> bool:
        """Whether no mode judges anything (upstream's ``FullyPrivileged``)."""
        return all(mode.level == Level.PRIVILEGED for mode in (self.enforce, self.audit, self.warn))


def _level(
    labels: dict[str, str], key: str, current: LevelVersion, fallback: Level | None
) -> tuple[LevelVersion, LabelError | None, bool]:
    """``current`` with the level ``labels[key]`` names, its error, and whether it parsed."""
    if key not in labels:
        return current, None, False
    level, reason = parse_level(labels[key])
    if reason is None:
        return replace(current, level=level), None, True
    failed = LabelError(key, labels[key], reason)
    return replace(current, level=fallback or level), failed, False


def _version(
    labels: dict[str, str], key: str, current: LevelVersion
) -> tuple[LevelVersion, LabelError | None]:
    """``current`` with the version ``labels[key]`` names, and its error."""
    if key not in labels:
        return current, None
    version, reason = parse_version(labels[key])
    failed = None if reason is None else LabelError(key, labels[key], reason)
    return replace(current, version=version), failed


def policy_from_labels(
    labels: dict[str, str], defaults: NamespacePolicy | None = None
) -> NamespacePolicy:
    """The policy a namespace with ``labels`` applies, on a cluster with ``defaults``."""
    base = defaults or NamespacePolicy()
    if not labels:
        return replace(base, errors=())
    enforce, enforce_error, has_enforce = _level(labels, ENFORCE_LABEL, base.enforce, None)
    enforce, enforce_version_error = _version(labels, ENFORCE_VERSION_LABEL, enforce)
    audit, audit_error, _ = _level(labels, AUDIT_LABEL, base.audit, Level.PRIVILEGED)
    audit, audit_version_error = _version(labels, AUDIT_VERSION_LABEL, audit)
    warn, warn_error, _ = _level(labels, WARN_LABEL, base.warn, Level.PRIVILEGED)
    warn, warn_version_error = _version(labels, WARN_VERSION_LABEL, warn)
    stricter = enforce.level.strictness > warn.level.strictness
    if has_enforce and WARN_LABEL not in labels and stricter:
        keep_version = WARN_VERSION_LABEL in labels
        warn = LevelVersion(enforce.level, warn.version if keep_version else enforce.version)
    errors = (
        enforce_error,
        enforce_version_error,
        audit_error,
        audit_version_error,
        warn_error,
        warn_version_error,
    )
    return NamespacePolicy(enforce, audit, warn, tuple(error for error in errors if error))


def namespace_refusal(name: str, errors: tuple[LabelError, ...]) -> str | None:
    """The API server's refusal of a Namespace created with bad labels, None without errors.

    The PodSecurity plugin refuses to create such a namespace (``invalidResponse``) with a
    standard Invalid error: ``Namespace "NAME" is invalid: <error>``, several errors in
    brackets, joined with ``, ``.
    """
    if not errors:
        return None
    texts = list(dict.fromkeys(error.text for error in errors))
    joined = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    return f"Namespace {go_quote(name)} is invalid: {joined}"


def exempt_namespace_warning(
    name: str, labels: dict[str, str], defaults: NamespacePolicy | None = None
) -> str | None:
    """The warning for labelling a namespace the plugin exempts, None when there is none.

    Labels on an exempt namespace change nothing, which the API server says when the
    namespace is created or its labels change (``exemptNamespaceWarning``): unless the
    policy is fully privileged or the cluster's default, it names each mode that is not
    privileged and that a label sets.
    """
    base = defaults or NamespacePolicy()
    policy = policy_from_labels(labels, base)
    modes = (
        ("enforce", policy.enforce, base.enforce, (ENFORCE_LABEL, ENFORCE_VERSION_LABEL)),
        ("audit", policy.audit, base.audit, (AUDIT_LABEL, AUDIT_VERSION_LABEL)),
        ("warn", policy.warn, base.warn, (WARN_LABEL, WARN_VERSION_LABEL)),
    )
    if policy.fully_privileged or all(mode.equivalent(default) for _, mode, default, _ in modes):
        return None
    named = [
        f"{mode_name}={mode.label}"
        for mode_name, mode, _, keys in modes
        if mode.level != Level.PRIVILEGED and any(key in labels for key in keys)
    ]
    return (
        f"namespace {go_quote(name)} is exempt from Pod Security, and the policy "
        f"({', '.join(named)}) will be ignored"
    )
