"""Structural validation: the generated JSON Schema, as the API server's schema check.

jsonschema-rs does the validating; this module turns its errors into findings that name
the field, say what was expected and suggest the field the user probably meant, beside
what JSON Schema cannot express, which the walk of :mod:`.defaults` finds: integer
formats, and duplicate keys in map-type lists. It is trainc's one adapter around
jsonschema-rs, which :mod:`.output` also uses, through :class:`ReferencedSchemas`, for
the core kinds' schemas. jsonschema-rs is imported on
first use, so commands that validate nothing do not load it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from trainc.checks.workload.quantities import is_whole_resource, whole_units_hint
from trainc.diagnostics import did_you_mean
from trainc.model import patterns
from trainc.model.json import (
    FieldPath,
    JsonObject,
    JsonValue,
    format_path,
    get_path,
)
from trainc.model.scalars import FORMAT_NOUNS
from trainc.model.schematree import KindSchema, SchemaNode
from trainc.records import dataclass
from trainc.schema.defaults import SchemaFinding, Stored, store

if TYPE_CHECKING:
    import jsonschema_rs
from trainc.diagnostics import Rule, Severity

SCHEMA_UNKNOWN_FIELD = Rule(
    "schema.unknown-field",
    Severity.ERROR,
    "the field is not part of the API",
)

SCHEMA_TYPE = Rule(
    "schema.type",
    Severity.ERROR,
    "the value has the wrong type",
)

SCHEMA_REQUIRED = Rule(
    "schema.required",
    Severity.ERROR,
    "a required field is missing",
)

SCHEMA_ENUM = Rule(
    "schema.enum",
    Severity.ERROR,
    "the value is not one of the allowed values",
)

SCHEMA_RANGE = Rule(
    "schema.range",
    Severity.ERROR,
    "the number is outside the allowed range",
)

SCHEMA_LENGTH = Rule(
    "schema.length",
    Severity.ERROR,
    "the string is shorter or longer than allowed",
)

SCHEMA_ITEMS = Rule(
    "schema.items",
    Severity.ERROR,
    "the list has fewer or more items than allowed",
)

SCHEMA_PROPERTIES = Rule(
    "schema.properties",
    Severity.ERROR,
    "the object has fewer or more properties than allowed",
)

SCHEMA_PATTERN = Rule(
    "schema.pattern",
    Severity.ERROR,
    "the string does not match the required pattern",
)

SCHEMA_FORMAT = Rule(
    "schema.format",
    Severity.ERROR,
    "the string is not in the required format",
)

SCHEMA_UNIQUE = Rule(
    "schema.unique",
    Severity.ERROR,
    "a set-type list holds the same item twice",
)


SCHEMA_INVALID = Rule(
    "schema.invalid",
    Severity.ERROR,
    "the value breaks the schema",
)


#: The ``ResourceList`` maps of a ``resources`` field, whose keys are resource names.
_RESOURCE_LISTS = frozenset({"limits", "requests"})

_KIND_CODES = {
    "Type": SCHEMA_TYPE.code,
    "Required": SCHEMA_REQUIRED.code,
    "Enum": SCHEMA_ENUM.code,
    "Minimum": SCHEMA_RANGE.code,
    "Maximum": SCHEMA_RANGE.code,
    "ExclusiveMinimum": SCHEMA_RANGE.code,
    "ExclusiveMaximum": SCHEMA_RANGE.code,
    "MinLength": SCHEMA_LENGTH.code,
    "MaxLength": SCHEMA_LENGTH.code,
    "MinItems": SCHEMA_ITEMS.code,
    "MaxItems": SCHEMA_ITEMS.code,
    "MinProperties": SCHEMA_PROPERTIES.code,
    "MaxProperties": SCHEMA_PROPERTIES.code,
    "Pattern": SCHEMA_PATTERN.code,
    "Format": SCHEMA_FORMAT.code,
    "UniqueItems": SCHEMA_UNIQUE.code,
    "AnyOf": SCHEMA_TYPE.code,
}


def check_schema(
    data: JsonValue, schema: KindSchema, *, skip: frozenset[FieldPath] = frozenset()
) -> list[SchemaFinding]:
    """Every structural problem of ``data`` against ``schema``.

    ``skip`` holds paths another layer already explained (a migration diagnostic for
    ``spec.datasetConfig`` replaces the generic unknown-field error there).
    """
    return check_stored(store(data, schema), schema, skip=skip)


def check_stored(
    stored: Stored, schema: KindSchema, *, skip: frozenset[FieldPath] = frozenset()
) -> list[SchemaFinding]:
    """:func:`check_schema` of an object already walked by :func:`store`, which found the
    integer-format and list-key problems; jsonschema-rs judges the rest, without nulls."""
    data = stored.null_free
    findings = [
        finding
        for error in _validator(schema).iter_errors(data)
        for finding in _translate(error, schema, data)
    ]
    findings.extend(stored.findings)
    return [f for f in findings if not any(f.path[: len(s)] == s for s in skip)]


@functools.cache
def _validator(schema: KindSchema) -> jsonschema_rs.Draft4Validator:
    """One compiled validator per schema (schemas compare by identity)."""
    import jsonschema_rs  # noqa: PLC0415 - loaded on first use (see the module docstring)

    return jsonschema_rs.Draft4Validator(schema.document, validate_formats=True)


@dataclass(frozen=True, slots=True)
class Violation:
    """The first problem a document has against a schema: where, and jsonschema-rs' words."""

    path: FieldPath
    message: str


class ReferencedSchemas:
    """Draft 2020-12 schemas whose ``$ref``s point into shared documents, each compiled once.

    The shared documents (each with an ``$id``) are loaded into one registry; a schema
    compiled against it is kept under the caller's key, so checking many objects of a
    kind costs one compilation. Formats are annotations only (``validate_formats=False``).
    """

    def __init__(self, documents: Sequence[JsonObject]) -> None:
        """Register ``documents`` under their ``$id``."""
        import jsonschema_rs  # noqa: PLC0415 - see _validator

        self._registry = jsonschema_rs.Registry([(str(doc["$id"]), doc) for doc in documents])
        self._compiled: dict[str, Any] = {}

    def first_violation(self, key: str, schema: JsonObject, value: JsonValue) -> Violation | None:
        """The first error of ``value`` against ``schema`` (compiled once per ``key``)."""
        validator = self._compiled.get(key)
        if validator is None:
            import jsonschema_rs  # noqa: PLC0415 - see _validator

            validator = self._compiled[key] = jsonschema_rs.Draft202012Validator(
                schema, registry=self._registry, validate_formats=False
            )
        error = next(iter(validator.iter_errors(value)), None)
        return None if error is None else Violation(tuple(error.instance_path), error.message)


@functools.cache
def _error_kinds() -> Any:
    """jsonschema-rs' error kind classes (``ValidationErrorKind``), the library loaded late."""
    import jsonschema_rs  # noqa: PLC0415 - see _validator

    return jsonschema_rs.ValidationErrorKind


def _translate(
    error: jsonschema_rs.ValidationError, schema: KindSchema, data: JsonValue
) -> Iterator[SchemaFinding]:
    kinds = _error_kinds()
    path: FieldPath = tuple(error.instance_path)
    kind = error.kind
    if isinstance(kind, kinds.AdditionalProperties):
        node = schema.node_at(path) or {}
        for key in kind.unexpected:
            yield _unknown_field((*path, key), node, schema)
        return
    if isinstance(kind, kinds.Required):
        yield SchemaFinding(
            SCHEMA_REQUIRED.code, path, f"missing required field {kind.property!r}" + _where(path)
        )
        return
    code = _KIND_CODES.get(type(kind).__name__, SCHEMA_INVALID.code)
    value = _value_at(data, path, error.instance)
    yield SchemaFinding(code, path, _message(error, path, value, schema), _hint(error, path, value))


def _value_at(data: JsonValue, path: FieldPath, instance: object) -> object:
    """The value an error is about, as the document holds it.

    jsonschema-rs hands back a copy that it converted to JSON, where an infinity or NaN
    (which no JSON holds) became null: the document's own value names the type right.
    """
    return instance if instance is not None else get_path(data, path)


def _where(path: FieldPath) -> str:
    return f" in {format_path(path)}" if path else ""


def _unknown_field(path: FieldPath, node: SchemaNode, schema: KindSchema) -> SchemaFinding:
    key = path[-1]
    properties = node.get("properties")
    known = sorted(properties) if isinstance(properties, dict) else []
    hint = did_you_mean(str(key), known) or _misplaced(path, schema)
    if hint is None and known:
        hint = "known fields here: " + ", ".join(known)
    where = f" in {format_path(path[:-1])}" if len(path) > 1 else ""
    return SchemaFinding(SCHEMA_UNKNOWN_FIELD.code, path, f"unknown field {key!r}{where}", hint)


def _misplaced(path: FieldPath, schema: KindSchema) -> str | None:
    """Where the schema declares an unknown field one level off: a line indented wrong.

    YAML gives no error for a line indented too little or too much, it only moves the
    field: ``resourcesPerNode`` two spaces short of ``trainer`` lands in ``spec``. The
    places looked at are the fields beside it (one level deeper) and its parent's level.
    """
    key, parent = str(path[-1]), path[:-1]
    places: list[FieldPath] = []
    node = schema.node_at(parent)
    if node is not None:
        for sibling, child in schema.children(node).properties.items():
            if key in schema.children(child).properties:
                places.append((*parent, sibling, key))
    above = schema.node_at(parent[:-1]) if parent else None
    if above is not None and key in schema.children(above).properties:
        places.append((*parent[:-1], key))
    if not places:
        return None
    listed = " or ".join(repr(format_path(place)) for place in places)
    return f"did you mean {listed}? The line may be indented to the wrong level"


def _message(
    error: jsonschema_rs.ValidationError, path: FieldPath, value: object, schema: KindSchema
) -> str:
    field = format_path(path) or "the document"
    expected = _expected(error, path, schema)
    if expected is None:
        return f"{field}: {error.message}"
    # A value of the wrong type is named by its type; one of the right type as written.
    kinds = _error_kinds()
    wrong_type = isinstance(error.kind, (kinds.Type, kinds.AnyOf))
    return f"{field} must be {expected}, not {_json_type(value) if wrong_type else repr(value)}"


def _expected(
    error: jsonschema_rs.ValidationError, path: FieldPath, schema: KindSchema
) -> str | None:
    """What the value must be, in words; None for an error whose own words say it."""
    kind = error.kind
    kinds = _error_kinds()
    if isinstance(kind, kinds.Type):
        return _article(" or ".join(str(name) for name in kind.types))
    if isinstance(kind, kinds.AnyOf):
        node = schema.node_at(path) or {}
        described = patterns.described(str(node.get("pattern", "")))
        either = "an integer or a string"
        return f"{described.noun} ({either})" if described is not None else either
    if isinstance(kind, kinds.Enum):
        return "one of " + ", ".join(repr(option) for option in kind.options)
    if isinstance(kind, kinds.Format):
        return FORMAT_NOUNS.get(kind.format)
    if isinstance(kind, kinds.Pattern):
        described = patterns.described(kind.pattern)
        return (
            described.noun if described else f"text matching the regular expression {kind.pattern}"
        )
    return None


def _hint(error: jsonschema_rs.ValidationError, path: FieldPath, value: object) -> str | None:
    kind = error.kind
    kinds = _error_kinds()
    if isinstance(kind, kinds.Pattern):
        described = patterns.described(kind.pattern)
        return described.explained if described is not None else None
    if isinstance(kind, kinds.AnyOf) and isinstance(value, float) and math.isfinite(value):
        return _quantity_hint(path, value)
    if isinstance(kind, kinds.Type):
        expected = [str(name) for name in kind.types]
        if isinstance(value, float) and "integer" in expected:
            return "write a whole number without a decimal point"
        if isinstance(value, bool | int | float) and "string" in expected:
            return "quote the value to make it a string"
    if isinstance(kind, kinds.Enum) and isinstance(value, str):
        options = [str(option) for option in kind.options]
        return did_you_mean(value, options, cutoff=0.5)
    return None


def _quantity_hint(path: FieldPath, value: float) -> str:
    """How to write a number where a quantity goes: quoted, unless it is a fraction of a
    resource counted in whole units (a GPU), which quoting would not make valid."""
    name = path[-1] if path[-2:-1] and path[-2] in _RESOURCE_LISTS else None
    amount = Decimal(repr(value))
    if isinstance(name, str) and is_whole_resource(name) and amount != amount.to_integral_value():
        return whole_units_hint(name, amount)
    return f'write the quantity as a string: "{value}"'


def _article(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "a boolean"),
    (int, "an integer"),
    (float, "a number"),
    (list, "a list"),
    (dict, "an object"),
)
_QUOTED_STRING_MAX = 40


def _json_type(value: object) -> str:
    """How a value reads in a message: its JSON type, and short strings themselves.

    An infinity or NaN, which only a caller's data can hold (the loader reports them),
    is named as YAML writes it.
    """
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"a string ({value!r})" if len(value) <= _QUOTED_STRING_MAX else "a string"
    if isinstance(value, float) and not math.isfinite(value):
        return f"a float ({'.nan' if math.isnan(value) else '.inf' if value > 0 else '-.inf'})"
    return next((name for cls, name in _TYPE_NAMES if isinstance(value, cls)), "a value")
