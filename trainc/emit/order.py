"""The canonical order of emitted objects: what pods need exists before the pods do.

``kubectl apply -f`` creates objects in stream order, and reviewers read files top to
bottom, so every file and stream trainc writes lists objects by kind rank, then
namespace, then name (``docs/design.md``, "Determinism"). The rank follows dependencies:

- ``Namespace`` first, so namespaced objects have somewhere to land;
- service accounts and RBAC before anything runs under them;
- ``ConfigMap``, ``Secret`` and ``PersistentVolumeClaim`` before pods mount them;
- ``PodGroup`` (Coscheduling's ``scheduling.x-k8s.io`` and Volcano's
  ``scheduling.volcano.sh`` alike) before the ``JobSet``, so the gang exists when its
  pods reach the scheduler;
- the ``JobSet``, then the sweeper's ``CronJob``, which acts on jobs;
- kinds trainc does not know last, alphabetically by kind.

``apiVersion`` breaks the last tie (a PodGroup of each group with one name), so the
order never depends on the order objects were built in.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple

from trainc.model.json import JsonObject, JsonValue, as_object

KIND_ORDER: Final = (
    "Namespace",
    "ServiceAccount",
    "ClusterRole",
    "ClusterRoleBinding",
    "Role",
    "RoleBinding",
    "ConfigMap",
    "Secret",
    "PersistentVolumeClaim",
    "PodGroup",
    "JobSet",
    "CronJob",
)
_RANK: Final = {kind: rank for rank, kind in enumerate(KIND_ORDER)}


class ObjectId(NamedTuple):
    """What names an object, each part "" when absent (cluster-scoped: no namespace)."""

    kind: str
    namespace: str
    name: str
    api_version: str


def _text(value: JsonValue) -> str:
    return value if isinstance(value, str) else ""


def object_id(obj: JsonObject) -> ObjectId:
    """The kind, namespace, name and apiVersion of ``obj``, tolerating missing fields."""
    metadata = as_object(obj.get("metadata"))
    return ObjectId(
        kind=_text(obj.get("kind")),
        namespace=_text(metadata.get("namespace")),
        name=_text(metadata.get("name")),
        api_version=_text(obj.get("apiVersion")),
    )


def sort_key(obj: JsonObject) -> tuple[int, str, str, str, str]:
    """Where ``obj`` goes in the canonical order: kind rank, kind, namespace, name, apiVersion."""
    ident = object_id(obj)
    return (_RANK.get(ident.kind, len(KIND_ORDER)), *ident)


def sort_objects(objects: Iterable[JsonObject]) -> list[JsonObject]:
    """``objects`` in canonical order (a new list; the objects themselves are not copied)."""
    return sorted(objects, key=sort_key)
