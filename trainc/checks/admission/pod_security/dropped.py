"""The pod as the API server stores it: fields of a feature gate that is off are gone.

Before admission the registry's strategy drops the fields whose feature gate is off
(``dropDisabledPodFields`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/pkg/api/pod/util.go), so the
PodSecurity plugin never sees them: on a cluster whose release has the gate off by
default, a value there can be neither a violation nor a fix. Of the fields the library's
checks read, three depend on a gate, each with the release its default turned on, as
pod validation records them: ``appArmorProfile`` of the pod and of each container
(AppArmorFields), a container's ``procMount`` (ProcMountType), the pod's ``hostUsers``
(UserNamespacesSupport).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from trainc.checks.workload.container_context import USER_NAMESPACES
from trainc.checks.workload.container_security import PROC_MOUNT_TYPE
from trainc.checks.workload.pod_security import APPARMOR_FIELDS
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.model.json import FieldPath, JsonObject, JsonValue

_CONTAINER_LISTS: Final = ("initContainers", "containers", "ephemeralContainers")
#: (gate, where, field): ``where`` is ``pod``, the pod's ``securityContext``, or each
#: container's ``securityContext``.
_GATED: Final[tuple[tuple[Gate, str, str], ...]] = (
    (APPARMOR_FIELDS, "pod-context", "appArmorProfile"),
    (APPARMOR_FIELDS, "container-context", "appArmorProfile"),
    (PROC_MOUNT_TYPE, "container-context", "procMount"),
    (USER_NAMESPACES, "pod", "hostUsers"),
)


def dropped_paths(spec: JsonObject, release: KubeVersion) -> list[FieldPath]:
    """The paths, in ``spec``, of the gated fields the API server drops at ``release``."""
    found: list[FieldPath] = []
    for gate, where, name in _GATED:
        if gate.enabled(release):
            continue
        for owner, path in _owners(spec, where):
            if name in owner:
                found.append((*path, name))
    return found


def stored(spec: JsonObject, release: KubeVersion) -> JsonObject:
    """``spec`` without the fields :func:`dropped_paths` names (the rest shared, not copied)."""
    result = spec
    for path in dropped_paths(spec, release):
        result = _without(result, path)
    return result


def _owners(spec: JsonObject, where: str) -> Iterator[tuple[JsonObject, FieldPath]]:
    if where == "pod":
        yield spec, ()
    elif where == "pod-context":
        context = spec.get("securityContext")
        if isinstance(context, dict):
            yield context, ("securityContext",)
    else:
        for key in _CONTAINER_LISTS:
            items = spec.get(key)
            for index, container in enumerate(items if isinstance(items, list) else []):
                context = container.get("securityContext") if isinstance(container, dict) else None
                if isinstance(context, dict):
                    yield context, (key, index, "securityContext")


def _without(value: JsonObject, path: FieldPath) -> JsonObject:
    """``value`` with the key at ``path`` removed, copying only along the path."""
    head, rest = path[0], path[1:]
    if not rest:
        return {key: item for key, item in value.items() if key != head}
    child = value.get(str(head)) if isinstance(head, str) else None
    if isinstance(head, str) and isinstance(child, dict):
        return {**value, head: _without(child, rest)}
    index = rest[0]
    if isinstance(head, str) and isinstance(child, list) and isinstance(index, int):
        items: list[JsonValue] = list(child)
        item = items[index]
        if isinstance(item, dict):
            items[index] = _without(item, rest[1:])
        return {**value, head: items}
    return value
