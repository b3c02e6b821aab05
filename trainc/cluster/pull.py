"""One ``trainc cluster pull``: the kinds of :mod:`trainc.cluster.snapshot`, read through a reader.

The reader (:class:`Reader`, in the program :class:`trainc.cluster.client.ClusterReader`)
only discovers, lists and gets: a pull changes nothing in the cluster. The optional
families (ValidatingAdmissionPolicies, Kueue) are read only where discovery finds them;
what is skipped is said in :attr:`Pulled.notes`, for stderr. Any failure of the reader
ends the pull: a partial snapshot would read as objects deleted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from trainc.checks.admission.policies.resources import Resource
from trainc.cluster.snapshot import (
    PULLED_KINDS,
    ParamFetch,
    PulledKind,
    group_versions,
    namespaced_scope,
    param_fetches,
    resource_of_kind,
    served_resource,
    snapshot_files,
    split_api_version,
)
from trainc.model.json import JsonObject, as_object


class Reader(Protocol):
    """Read-only access to a cluster."""

    def discover(self, group: str, version: str) -> dict[str, Resource] | None:
        """The resources ``group/version`` serves by plural; None when it is not served."""
        ...

    def list(
        self,
        resource: Resource,
        namespace: str | None,
        *,
        label_selector: str = "",
        field_selector: str = "",
    ) -> list[JsonObject]:
        """Every object of ``resource`` (in ``namespace``; None: all), every page read."""
        ...

    def get(self, resource: Resource, namespace: str | None, name: str) -> JsonObject | None:
        """One object; None when it does not exist."""
        ...


@dataclass(slots=True)
class Pulled:
    """The snapshot's files, and what was skipped and why (one line each)."""

    files: dict[str, bytes]
    notes: list[str] = field(default_factory=list)


def pull(reader: Reader, namespaces: Sequence[str] = ()) -> Pulled:
    """Read every pulled kind (namespaced kinds in ``namespaces``; empty: all) and the
    parameter objects the policy bindings name, into the snapshot's files."""
    scope = namespaced_scope(namespaces)
    discovery = {pair: reader.discover(*pair) for pair in group_versions(PULLED_KINDS)}
    read: list[tuple[Resource, JsonObject]] = []
    notes: list[str] = []
    skipped: dict[str, list[str]] = {}
    by_kind: dict[str, list[JsonObject]] = {}
    for kind in PULLED_KINDS:
        resource = served_resource(kind, discovery)
        if resource is None:
            skipped.setdefault(kind.family or "", []).append(kind.kind)
            continue
        objects = _read_kind(reader, kind, resource, scope)
        by_kind[kind.kind] = objects
        read.extend((resource, obj) for obj in objects)
    if scope is not None:
        found = {as_object(obj.get("metadata")).get("name") for obj in by_kind["Namespace"]}
        notes.extend(f"the cluster has no namespace {name}" for name in scope if name not in found)
    for family, kinds in skipped.items():
        notes.append(f"the cluster does not serve {family} ({', '.join(kinds)}): skipped")
    fetches = _param_fetches(by_kind)
    read.extend(_read_params(reader, fetches, scope, notes))
    return Pulled(snapshot_files(read), notes)


def _param_fetches(by_kind: dict[str, list[JsonObject]]) -> list[ParamFetch]:
    return param_fetches(
        by_kind.get("ValidatingAdmissionPolicy", []),
        by_kind.get("ValidatingAdmissionPolicyBinding", []),
    )


def _read_kind(
    reader: Reader, kind: PulledKind, resource: Resource, scope: tuple[str, ...] | None
) -> list[JsonObject]:
    """Every object of ``kind``: in the scope's namespaces, or the Namespaces themselves."""
    if scope is None:
        return reader.list(resource, None)
    if kind.kind == "Namespace":
        found = (reader.get(resource, None, name) for name in scope)
        return [obj for obj in found if obj is not None]
    if not resource.namespaced:
        return reader.list(resource, None)
    return [obj for namespace in scope for obj in reader.list(resource, namespace)]


def _read_params(
    reader: Reader,
    fetches: Sequence[ParamFetch],
    scope: tuple[str, ...] | None,
    notes: list[str],
) -> list[tuple[Resource, JsonObject]]:
    """The parameter objects ``fetches`` name, each kind found by discovery."""
    resources: dict[tuple[str, str], dict[str, Resource] | None] = {}
    found: list[tuple[Resource, JsonObject]] = []
    for fetch in fetches:
        pair = split_api_version(fetch.api_version)
        if pair not in resources:
            resources[pair] = reader.discover(*pair)
        resource = resource_of_kind(resources[pair] or {}, fetch.kind)
        if resource is None:
            notes.append(
                f"the cluster serves no {fetch.kind} in {fetch.api_version}, the parameter "
                "kind of a ValidatingAdmissionPolicy: its parameters are not pulled"
            )
            continue
        found.extend((resource, obj) for obj in _read_param(reader, resource, fetch, scope))
    return found


def _read_param(
    reader: Reader, resource: Resource, fetch: ParamFetch, scope: tuple[str, ...] | None
) -> list[JsonObject]:
    """The objects one ``paramRef`` names: a get by name where the namespace is known,
    else a list by name (field selector) or by label selector, in every namespace pulled.

    A parameter in a namespace the binding names is read even outside ``--namespace``:
    the policy needs it whichever namespace it judges.
    """
    namespace = fetch.namespace if resource.namespaced else ""
    if fetch.name and (namespace or not resource.namespaced):
        obj = reader.get(resource, namespace or None, fetch.name)
        found = [] if obj is None else [obj]
    else:
        options = {
            "label_selector": fetch.selector_text,
            "field_selector": f"metadata.name={fetch.name}" if fetch.name else "",
        }
        if namespace or not resource.namespaced:
            places: tuple[str | None, ...] = (namespace or None,)
        else:
            places = scope if scope is not None else (None,)
        found = [obj for place in places for obj in reader.list(resource, place, **options)]
    return [obj for obj in found if fetch.keeps(obj)]
