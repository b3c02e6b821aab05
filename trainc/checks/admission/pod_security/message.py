"""The texts the API server prints for Pod Security violations.

``EvaluatePod`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/admission/admission.go
joins the failed checks in the registry's order, each as ``reason (detail)``, with ``, ``;
``enforce`` refuses with ``violates PodSecurity "LEVEL:VERSION": …`` and ``warn`` and
``audit`` report ``would violate PodSecurity …``. The refusal reaches the pod's creator as
a Forbidden error on the pod (``pods "NAME" is forbidden: …``), which the Job controller
records as a ``FailedCreate`` event. The label is the one the namespace names
(``restricted:latest``), not the release ``latest`` resolved to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trainc.checks.admission.pod_security.results import Violation

_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}


def go_quote(text: str) -> str:
    """``text`` as Go's ``%q`` prints it: double quotes, backslash escapes for the rest."""
    out: list[str] = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x80:  # noqa: PLR2004 - Go escapes ASCII controls as \xNN
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:  # noqa: PLR2004 - and other runes as \uNNNN or \UNNNNNNNN
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def details(violations: Sequence[Violation]) -> str:
    """Every violation as ``reason (detail)``, joined as upstream's ``ForbiddenDetail``."""
    return ", ".join(violation.text for violation in violations)


def message(label: str, violations: Sequence[Violation]) -> str:
    """The refusal of ``enforce``: ``violates PodSecurity "restricted:latest": …``."""
    return f"violates PodSecurity {go_quote(label)}: {details(violations)}"


def warning(label: str, violations: Sequence[Violation]) -> str:
    """The report of ``warn`` and ``audit``: ``would violate PodSecurity …``."""
    return f"would violate PodSecurity {go_quote(label)}: {details(violations)}"


def forbidden(pod_name: str | None, label: str, violations: Sequence[Violation]) -> str:
    """The whole error a pod's creator gets: ``pods "NAME" is forbidden: violates …``."""
    subject = f"pods {go_quote(pod_name)}" if pod_name else "pods"
    return f"{subject} is forbidden: {message(label, violations)}"
