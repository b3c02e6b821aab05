"""How every rule of this package reads a JSON field: the way Go's decoder fills a struct.

The API server validates typed structs, so a rule sees the zero value (``""``, ``0``,
nil) where the JSON has nothing or ``null``. A value of the wrong type never gets that
far: the API server cannot decode the object, and trainc's schema layer reports it. The
readers below return None for such a value so that the rule reading it stands down
instead of reporting a second, invented error. They live apart from the rules so that
there is one reading of JSON for all of them.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainc.model.json import JsonObject, JsonValue, as_list


def objects(value: JsonValue) -> Iterator[tuple[int, JsonObject]]:
    """The mappings of a list with their indexes; other items are the schema layer's."""
    for index, item in enumerate(as_list(value)):
        if isinstance(item, dict):
            yield index, item


def strings(value: JsonValue) -> list[str]:
    """The strings of a list (a ``[]string``); other items are the schema layer's."""
    return [item for item in as_list(value) if isinstance(item, str)]


def text(value: JsonValue) -> str | None:
    """A string field as Go reads it: absent or null is ``""``; None for a non-string."""
    if value is None:
        return ""
    return value if isinstance(value, str) else None


def integer(value: JsonValue) -> int | None:
    """An integer field as Go reads it: absent or null is 0; None for a non-integer.

    A float with no fraction counts: YAML's ``420.0`` reaches the API server as the JSON
    number ``420``, which decodes into an integer field.
    """
    if value is None:
        return 0
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def present(obj: JsonObject, key: str) -> bool:
    """Whether a pointer or struct field is set: Go leaves it nil when absent or null."""
    return obj.get(key) is not None
