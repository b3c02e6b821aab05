"""Schema markers for the API dataclasses: the Python counterpart of kubebuilder markers.

A field is declared as ``Annotated[<type>, <marker>, ...]``; a class takes class-level
markers through :func:`schema`. ``trainc.crdgen`` reads them to write the CRDs, so every
constraint and CEL rule is written exactly once, here in the model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeVar

from trainc.model.json import JsonValue
from trainc.records import dataclass


@dataclass(frozen=True, slots=True)
class Json:
    """Wire name of a field when lowerCamelCase of the Python name is not it."""

    name: str


@dataclass(frozen=True, slots=True)
class Minimum:
    """Inclusive lower bound of a number."""

    value: int | float


@dataclass(frozen=True, slots=True)
class Maximum:
    """Inclusive upper bound of a number."""

    value: int | float


@dataclass(frozen=True, slots=True)
class MinLength:
    """Minimum string length, in characters."""

    value: int


@dataclass(frozen=True, slots=True)
class MaxLength:
    """Maximum string length, in characters."""

    value: int


@dataclass(frozen=True, slots=True)
class MinItems:
    """Minimum number of list items."""

    value: int


@dataclass(frozen=True, slots=True)
class MaxItems:
    """Maximum number of list items."""

    value: int


@dataclass(frozen=True, slots=True)
class MinProperties:
    """Minimum number of properties an object must set."""

    value: int


@dataclass(frozen=True, slots=True)
class Pattern:
    """Regular expression a string must match (ECMA 262, as in OpenAPI)."""

    regex: str


@dataclass(frozen=True, slots=True)
class Format:
    """OpenAPI format: ``int32``, ``int64``, ``date-time``, ..."""

    name: str


@dataclass(frozen=True, slots=True)
class Default:
    """Value the API server fills in when the field is absent."""

    value: JsonValue


@dataclass(frozen=True, slots=True)
class ListType:
    """``x-kubernetes-list-type`` and, for ``map`` lists, the key fields."""

    kind: Literal["atomic", "set", "map"]
    keys: tuple[str, ...] = ()


def list_map(*keys: str) -> ListType:
    """A list whose items are identified by ``keys`` (merged item by item)."""
    return ListType("map", keys)


ATOMIC = ListType("atomic")
"""A list replaced as a whole."""

LIST_SET = ListType("set")
"""A list of unique scalars whose order does not matter."""


@dataclass(frozen=True, slots=True)
class MapType:
    """``x-kubernetes-map-type``: ``atomic`` objects are replaced as a whole."""

    kind: Literal["atomic", "granular"]


ATOMIC_MAP = MapType("atomic")
"""An object replaced as a whole."""


@dataclass(frozen=True, slots=True)
class PatchMerge:
    """Strategic merge patch merges this list item by item, matching items by ``key``.

    Go's ``patchStrategy:"merge" patchMergeKey:"<key>"`` tag. It is client-side metadata:
    the generated JSON Schema carries it, the CRD cannot (``docs/upstream.md``, "Runtime
    patches").
    """

    key: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """One ``x-kubernetes-validations`` entry.

    ``id`` is trainc's stable name for the rule; diagnostics report it as
    ``cel.<id>``. It travels in the generated JSON Schema beside the rule (the CRD
    carries only the fields Kubernetes knows).
    """

    rule: str
    message: str
    id: str
    message_expression: str | None = None
    reason: str | None = None
    field_path: str | None = None


def immutable(rule_id: str, message: str = "field is immutable") -> Rule:
    """The transition rule ``self == oldSelf``: checked only against a base revision."""
    return Rule(rule="self == oldSelf", message=message, id=rule_id)


@dataclass(frozen=True, slots=True)
class K8s:
    """The field holds a core Kubernetes type, by its OpenAPI definition name.

    The value stays plain JSON in Python; the schema comes from the Kubernetes
    OpenAPI definitions that kubernetes-validate ships.
    """

    definition: str


@dataclass(frozen=True, slots=True)
class FreeForm:
    """Arbitrary JSON (``x-kubernetes-preserve-unknown-fields``): template values, params."""


Marker = (
    Json
    | Minimum
    | Maximum
    | MinLength
    | MaxLength
    | MinItems
    | MaxItems
    | MinProperties
    | Pattern
    | Format
    | Default
    | ListType
    | MapType
    | PatchMerge
    | Rule
    | K8s
    | FreeForm
)

ClassMarker = MinProperties | MapType | Rule

_T = TypeVar("_T")

_CLASS_MARKERS: dict[type, tuple[ClassMarker, ...]] = {}


def schema(*markers: ClassMarker) -> Callable[[type[_T]], type[_T]]:
    """Attach object-level markers (CEL rules, minProperties) to an API dataclass."""

    def register(cls: type[_T]) -> type[_T]:
        _CLASS_MARKERS[cls] = markers
        return cls

    return register


def class_markers(cls: type) -> tuple[ClassMarker, ...]:
    """Object-level markers registered for ``cls`` (empty when none)."""
    return _CLASS_MARKERS.get(cls, ())
