"""Plain validated data → the typed API dataclasses.

Decoding trusts its input: it runs after the structural layer has checked the data
against the schema generated from the same dataclasses, so a shape mismatch here is a
trainc bug, reported as :class:`~trainc.errors.CompilerBug`.
"""

from __future__ import annotations

from typing import TypeVar, assert_never

from trainc.errors import CompilerBug
from trainc.model.introspect import (
    Enum,
    Free,
    K8sRef,
    ListOf,
    MapOf,
    Scalar,
    Struct,
    TypeNode,
    fields_of,
)
from trainc.model.json import JsonValue

_T = TypeVar("_T")


def decode(cls: type[_T], data: JsonValue) -> _T:
    """Build ``cls`` from schema-valid ``data``; unknown keys are ignored."""
    if not isinstance(data, dict):
        raise CompilerBug(f"cannot decode {cls.__name__} from {type(data).__name__}")
    kwargs: dict[str, object] = {}
    for field in fields_of(cls):
        if field.wire_name in data:
            kwargs[field.python_name] = _decode_value(field.type, data[field.wire_name])
        elif field.required:
            raise CompilerBug(f"cannot decode {cls.__name__}: {field.wire_name} is missing")
    return cls(**kwargs)


def _decode_value(node: TypeNode, value: JsonValue) -> object:
    if value is None:
        return None
    match node:
        case Struct():
            return decode(node.cls, value)
        case ListOf():
            if not isinstance(value, list):
                raise CompilerBug(f"expected a list, got {type(value).__name__}")
            return [_decode_value(node.item, item) for item in value]
        case MapOf():
            if not isinstance(value, dict):
                raise CompilerBug(f"expected a map, got {type(value).__name__}")
            return {key: _decode_value(node.value, item) for key, item in value.items()}
        case Scalar() | Enum() | K8sRef() | Free():
            return value
        case _:
            assert_never(node)
