"""Reads the API dataclasses back as a type tree, for schema generation and decoding.

Type hints are resolved once per class and cached: the model is static, so repeated
decoding of thousands of objects must not pay for ``typing.get_type_hints`` each time.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from typing import Annotated, Literal, Union, get_args, get_origin

from trainc.model import json as json_types
from trainc.model.markers import FreeForm, Json, K8s, Marker, class_markers
from trainc.records import dataclass

ScalarKind = Literal["string", "integer", "number", "boolean"]


@dataclass(frozen=True, slots=True)
class Scalar:
    """A string, integer, number or boolean."""

    kind: ScalarKind
    markers: tuple[Marker, ...] = ()


@dataclass(frozen=True, slots=True)
class Enum:
    """A string restricted to a fixed set of values (a ``Literal`` in the model)."""

    values: tuple[str, ...]
    markers: tuple[Marker, ...] = ()


@dataclass(frozen=True, slots=True)
class ListOf:
    """A list; its markers carry list-type, size limits and rules."""

    item: TypeNode
    markers: tuple[Marker, ...] = ()


@dataclass(frozen=True, slots=True)
class MapOf:
    """A string-keyed map with values of one type."""

    value: TypeNode
    markers: tuple[Marker, ...] = ()


@dataclass(frozen=True, slots=True)
class Struct:
    """One of the API dataclasses."""

    cls: type
    markers: tuple[Marker, ...] = ()


@dataclass(frozen=True, slots=True)
class K8sRef:
    """A core Kubernetes type, by OpenAPI definition name."""

    definition: str
    markers: tuple[Marker, ...] = ()


@dataclass(frozen=True, slots=True)
class Free:
    """Arbitrary JSON the schema does not constrain."""

    markers: tuple[Marker, ...] = ()


TypeNode = Scalar | Enum | ListOf | MapOf | Struct | K8sRef | Free


@dataclass(frozen=True, slots=True)
class FieldInfo:
    """One field of an API dataclass, as it appears on the wire."""

    python_name: str
    wire_name: str
    type: TypeNode
    required: bool


_SCALARS: dict[type, ScalarKind] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def wire_name(python_name: str) -> str:
    """lowerCamelCase of a snake_case name: ``ttl_seconds_after_finished`` → ``ttlSeconds...``."""
    head, *rest = python_name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def parse_type(hint: object, markers: tuple[Marker, ...] = ()) -> TypeNode:
    """Turn a resolved type hint into a :data:`TypeNode`, collecting Annotated markers.

    Markers of an outer ``Annotated`` come after inner ones, so a field's own markers
    refine those of the alias it uses.
    """
    if get_origin(hint) is Annotated:
        base, *extra = get_args(hint)
        return parse_type(base, tuple(m for m in extra if not isinstance(m, str)) + markers)
    if get_origin(hint) in (Union, types.UnionType):
        members = [arg for arg in get_args(hint) if arg is not type(None)]
        if len(members) != 1:
            raise TypeError(f"unsupported union {hint!r}: only `T | None` is allowed")
        return parse_type(members[0], markers)
    return _marked_type(markers) or _container_type(hint, markers) or _leaf_type(hint, markers)


def _marked_type(markers: tuple[Marker, ...]) -> TypeNode | None:
    """A type fixed by a marker: an embedded Kubernetes type or free-form JSON."""
    for marker in markers:
        if isinstance(marker, K8s):
            return K8sRef(marker.definition, markers)
        if isinstance(marker, FreeForm):
            return Free(markers)
    return None


def _container_type(hint: object, markers: tuple[Marker, ...]) -> TypeNode | None:
    origin = get_origin(hint)
    if origin is Literal:
        return Enum(tuple(str(value) for value in get_args(hint)), markers)
    if origin is list:
        (item,) = get_args(hint)
        return ListOf(parse_type(item), markers)
    if origin is dict:
        key, value = get_args(hint)
        if key is not str:
            raise TypeError(f"map keys must be strings, not {key!r}")
        return MapOf(parse_type(value), markers)
    return None


def _leaf_type(hint: object, markers: tuple[Marker, ...]) -> TypeNode:
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return Struct(hint, markers)
    if isinstance(hint, type) and hint in _SCALARS:
        return Scalar(_SCALARS[hint], markers)
    raise TypeError(f"unsupported type in the API model: {hint!r}")


_FIELDS: dict[type, tuple[FieldInfo, ...]] = {}


def fields_of(cls: type) -> tuple[FieldInfo, ...]:
    """The wire fields of an API dataclass, in declaration order (computed once per class)."""
    cached = _FIELDS.get(cls)
    if cached is None:
        cached = _FIELDS[cls] = _read_fields(cls)
    return cached


def _read_fields(cls: type) -> tuple[FieldInfo, ...]:
    # JsonValue is a recursive alias spelled with string forward references; they must
    # resolve in every model module, so its namespace joins the class's own.
    namespace = {**vars(json_types), **vars(sys.modules[cls.__module__])}
    hints = typing.get_type_hints(cls, globalns=namespace, include_extras=True)
    out: list[FieldInfo] = []
    for field in dataclasses.fields(cls):
        node = parse_type(hints[field.name])
        names = [m.name for m in node.markers if isinstance(m, Json)]
        required = (
            field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
        )
        out.append(
            FieldInfo(
                python_name=field.name,
                wire_name=names[-1] if names else wire_name(field.name),
                type=node,
                required=required,
            )
        )
    return tuple(out)


def markers_of(node: TypeNode, marker_type: type[Marker]) -> list[Marker]:
    """The markers of ``marker_type`` on a node, in the order they apply."""
    own = [m for m in node.markers if isinstance(m, marker_type)]
    if isinstance(node, Struct):
        own = [m for m in class_markers(node.cls) if isinstance(m, marker_type)] + own
    return own
