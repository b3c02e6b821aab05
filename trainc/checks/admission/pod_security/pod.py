"""The pod as the checks read it: its metadata and spec as JSON, and the judging release.

The library reads Go structs, where an absent or null field is the zero value and a
pointer field is nil. The readers here give JSON the same reading. Containers are visited
as upstream's ``visitContainers`` visits them
(https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/policy/visitor.go):
init containers, then containers, then ephemeral containers, so names in a detail come in
that order. The release is the cluster's own: a few rules changed inside a version when
the library learned a new field (see the checks that read it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from trainc.checks.workload.jsonfields import objects, text
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject, JsonValue, as_object

_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


@dataclass(frozen=True, slots=True)
class Pod:
    """A pod's ``metadata`` and ``spec``, judged on a cluster of ``release``."""

    metadata: JsonObject
    spec: JsonObject
    release: KubeVersion

    @property
    def annotations(self) -> dict[str, str]:
        """The pod's annotations (string values only, as the API server holds them)."""
        found = as_object(self.metadata.get("annotations"))
        return {key: value for key, value in found.items() if isinstance(value, str)}

    @property
    def security_context(self) -> JsonObject | None:
        """``spec.securityContext``, or None when it is absent or null."""
        return _object(self.spec.get("securityContext"))

    def containers(self) -> Iterator[JsonObject]:
        """Every container of the pod, in upstream's visiting order."""
        for key in _CONTAINER_LISTS:
            for _, container in objects(self.spec.get(key)):
                yield container


def windows(pod: Pod) -> bool:
    """Whether ``spec.os.name`` is ``windows``: from 1.25 several restricted checks exempt it,
    since pod validation refuses the Linux-only fields they require on a Windows pod."""
    return text(as_object(pod.spec.get("os")).get("name")) == "windows"


def user_namespace(pod: Pod) -> bool:
    """Whether the pod runs in a user namespace (``hostUsers: false``), where root in the
    container is not root on the node: from 1.35 three checks let it pass."""
    return pod.spec.get("hostUsers") is False


def _object(value: JsonValue) -> JsonObject | None:
    """A mapping, or None for absent, null or another type (a nil pointer in Go)."""
    return value if isinstance(value, dict) else None


def name(container: JsonObject) -> str:
    """A container's name, ``""`` when missing."""
    return text(container.get("name")) or ""


def context(container: JsonObject) -> JsonObject | None:
    """A container's ``securityContext``, or None when it is absent or null."""
    return _object(container.get("securityContext"))


def field(owner: JsonObject | None, key: str) -> JsonObject | None:
    """``owner[key]`` when both are mappings: a nested struct pointer."""
    return None if owner is None else _object(owner.get(key))


def join_quote(items: list[str]) -> str:
    """``"a", "b"``: upstream's ``joinQuote`` (no escaping inside the quotes)."""
    return ", ".join(f'"{item}"' for item in items)


def pluralize(singular: str, plural: str, count: int) -> str:
    """``singular`` for one, ``plural`` for any other count."""
    return singular if count == 1 else plural


def containers_phrase(names: list[str]) -> str:
    """``container "a"`` or ``containers "a", "b"``."""
    return f"{pluralize('container', 'containers', len(names))} {join_quote(names)}"


def setters(containers: list[str], *others: str, pod: bool = False) -> str:
    """Who set a bad value: ``pod and containers "a", "b"``, ``""`` for nobody.

    Upstream names the pod first, then the containers, then any other source
    (annotations), joined with ``and``.
    """
    parts = ["pod"] if pod else []
    if containers:
        parts.append(containers_phrase(containers))
    return " and ".join([*parts, *others])
