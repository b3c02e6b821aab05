"""Pod Security Admission: the baseline and restricted checks, versioned as upstream versions them.

The API server's PodSecurity plugin judges every pod it is asked to create against the
level and version its namespace names in ``pod-security.kubernetes.io/*`` labels. The
checks live in Kubernetes' ``pod-security-admission`` library
(https://github.com/kubernetes/kubernetes/tree/v1.36.0/staging/src/k8s.io/pod-security-admission):
one check per concern, each with the versions whose rule changed, composed into the two
levels by a registry. This package models that library as pure functions over the pod's
metadata and spec as JSON, and the plugin's decision (``enforce`` refuses, ``warn`` and
``audit`` only report) with the text the API server prints.
"""

from __future__ import annotations

# ``judge`` (the plugin's decision) is imported from ``.admission``: the package's own
# ``judge`` is the family's module (``.judge``, the TrainJob's pods judged).
from trainc.checks.admission.pod_security.admission import Exemptions, Verdict
from trainc.checks.admission.pod_security.levels import (
    LATEST,
    Level,
    LevelVersion,
    PolicyVersion,
    effective_version,
    parse_level,
    parse_version,
)
from trainc.checks.admission.pod_security.message import forbidden, message, warning
from trainc.checks.admission.pod_security.namespace import (
    LabelError,
    NamespacePolicy,
    exempt_namespace_warning,
    namespace_refusal,
    policy_from_labels,
)
from trainc.checks.admission.pod_security.registry import CHECKS, checks_for, evaluate
from trainc.checks.admission.pod_security.results import Violation

__all__ = [
    "CHECKS",
    "LATEST",
    "Exemptions",
    "LabelError",
    "Level",
    "LevelVersion",
    "NamespacePolicy",
    "PolicyVersion",
    "Verdict",
    "Violation",
    "checks_for",
    "effective_version",
    "evaluate",
    "exempt_namespace_warning",
    "forbidden",
    "message",
    "namespace_refusal",
    "parse_level",
    "parse_version",
    "policy_from_labels",
    "warning",
]
