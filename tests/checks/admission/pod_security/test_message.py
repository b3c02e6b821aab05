"""The API server's text for one and several Pod Security violations."""

from __future__ import annotations

from trainc.checks.admission.pod_security import (
    LATEST,
    Level,
    LevelVersion,
    Violation,
    evaluate,
    forbidden,
    message,
    warning,
)
from trainc.checks.admission.pod_security.message import go_quote
from trainc.model.json import JsonObject

RESTRICTED = LevelVersion(Level.RESTRICTED).label


def test_one_violation() -> None:
    spec: JsonObject = {
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [
            {"name": "node", "securityContext": {"capabilities": {"drop": ["ALL"]}}},
        ],
    }
    found = evaluate(Level.RESTRICTED, LATEST, {}, spec, release=(1, 36))
    assert message(RESTRICTED, found) == (
        'violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false '
        '(container "node" must set securityContext.allowPrivilegeEscalation=false)'
    )


def test_several_violations_are_joined_in_order_with_plural_details() -> None:
    spec: JsonObject = {
        "hostNetwork": True,
        "containers": [{"name": "node"}, {"name": "sidecar"}],
    }
    found = evaluate(Level.RESTRICTED, LATEST, {}, spec, release=(1, 36))
    assert message(RESTRICTED, found) == (
        'violates PodSecurity "restricted:latest": host namespaces (hostNetwork=true), '
        "allowPrivilegeEscalation != false "
        '(containers "node", "sidecar" must set securityContext.allowPrivilegeEscalation=false), '
        "unrestricted capabilities "
        '(containers "node", "sidecar" must set securityContext.capabilities.drop=["ALL"]), '
        'runAsNonRoot != true (pod or containers "node", "sidecar" must set '
        "securityContext.runAsNonRoot=true), "
        'seccompProfile (pod or containers "node", "sidecar" must set '
        'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
    )


def test_the_label_is_the_namespace_s_not_the_resolved_release() -> None:
    label = LevelVersion(Level.BASELINE, (1, 28)).label
    found = [Violation("sysctls", "forbidden sysctls", "net.core.somaxconn")]
    assert message(label, found) == (
        'violates PodSecurity "baseline:v1.28": forbidden sysctls (net.core.somaxconn)'
    )


def test_warning_and_refusal_wording() -> None:
    found = [Violation("hostNamespaces", "host namespaces", "hostIPC=true")]
    assert warning(RESTRICTED, found) == (
        'would violate PodSecurity "restricted:latest": host namespaces (hostIPC=true)'
    )
    assert forbidden("train-node-0-0-x7k2p", RESTRICTED, found) == (
        'pods "train-node-0-0-x7k2p" is forbidden: violates PodSecurity "restricted:latest": '
        "host namespaces (hostIPC=true)"
    )
    assert forbidden(None, RESTRICTED, found).startswith("pods is forbidden: violates")


def test_a_violation_without_detail_has_no_parentheses() -> None:
    assert Violation("x", "reason", "").text == "reason"


def test_go_quote_escapes_as_go_does() -> None:
    assert go_quote('a"b\\c') == '"a\\"b\\\\c"'
    assert go_quote("tab\there\n") == '"tab\\there\\n"'
    assert go_quote("\x01é\u00a0") == '"\\x01é\\u00a0"'
