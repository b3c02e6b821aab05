"""Files trainc reads only for what their documents are: definitions and non-objects.

A repository may hold large files that are not objects trainc checks: the
CustomResourceDefinitions and JSON Schemas ``trainc schemas -o schemas/`` writes for
editors (2.8 MB), vendored CRDs of Kueue or JobSet. Composing every node of such a file
with positions costs seconds, only to skip its documents (``load.ignored-document``).
Here the documents are told from far less: libyaml's parse events for a YAML file
(:func:`trainc.load.fastyaml.heads`, which also proves the file valid YAML), the
standard library's C decoder for a JSON one. A file qualifies when each of its documents
is a CustomResourceDefinition, or, for JSON, one object without ``apiVersion``, ``kind``
or ``items`` (a JSON Schema, a tool's settings). Its documents then carry only what the
classification reads (``apiVersion``, ``kind``, ``metadata.name``) and where they start,
so they are skipped with the message a full parse gives. Anything else, or any doubt, is
parsed fully, which reports every finding.
"""

from __future__ import annotations

import json
import re
from typing import Final

from trainc.config.limits import InputLimits
from trainc.load import fastyaml
from trainc.load.documents import Document, Parsed
from trainc.load.source import SourceFile, line_and_column
from trainc.model.json import JsonObject, JsonValue

#: The kind and group of a CustomResourceDefinition: a definition, never an object
#: trainc checks (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/).
DEFINITION_KIND: Final = "CustomResourceDefinition"
DEFINITION_GROUP: Final = "apiextensions.k8s.io"
#: The top-level keys that make a JSON value a Kubernetes object or a List of them.
_OBJECT_KEYS: Final = frozenset({"apiVersion", "kind", "items"})
_JSON_SUFFIX: Final = ".json"
_LEADING_SPACE: Final = re.compile(r"[ \t\n\r]*")


class _UnusualValueError(ValueError):
    """A JSON value the full reader judges (a non-finite number, a literal Go refuses)."""


def parse_heads(source: SourceFile, limits: InputLimits) -> Parsed | None:
    """The documents of ``source`` as heads only, when it holds nothing trainc checks.

    None means "parse it fully": the file holds some other document, or the cheap
    reading cannot vouch for the result.
    """
    if source.path.endswith(_JSON_SUFFIX):
        return _json_without_object(source, limits)
    if DEFINITION_KIND not in source.text:  # in C: most files are done here
        return None
    found = fastyaml.heads(source.text, limits)
    if not found or not all(_is_definition(head) for head in found):
        return None
    documents = (
        Document(source, head.index, _head_data(head), {(): (head.line, head.column)})
        for head in found
    )
    return Parsed(tuple(documents), ())


def _is_definition(head: fastyaml.Head) -> bool:
    """Whether the document is a CustomResourceDefinition of any version."""
    api_version = head.values.get(("apiVersion",))
    return (
        head.mapping
        and head.values.get(("kind",)) == DEFINITION_KIND
        and isinstance(api_version, str)
        and api_version.split("/", 1)[0] == DEFINITION_GROUP
    )


def _head_data(head: fastyaml.Head) -> JsonObject:
    """The fields a document's classification reads, as their text."""
    data: JsonObject = {"apiVersion": head.values[("apiVersion",)], "kind": DEFINITION_KIND}
    name = head.values.get(("metadata", "name"))
    if name is not None:
        data["metadata"] = {"name": name}
    return data


def _json_without_object(source: SourceFile, limits: InputLimits) -> Parsed | None:
    """The one document of a JSON file that is no Kubernetes object, or None."""
    try:
        value = json.loads(source.text, parse_constant=_refuse, parse_float=_finite)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or _OBJECT_KEYS & value.keys():
        return None
    if not _within(value, limits):
        return None
    start = _LEADING_SPACE.match(source.text)
    line, column = line_and_column(source.text, start.end() if start else 0)
    return Parsed((Document(source, 0, {}, {(): (line, column)}),), ())


def _refuse(literal: str) -> float:
    """``NaN`` and ``Infinity``, which Python's decoder takes and Go's refuses."""
    raise _UnusualValueError(literal)


def _finite(text: str) -> float:
    """A number as float64 holds it; one it cannot (``1e400``) is the full reader's."""
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise _UnusualValueError(text)
    return number


def _within(value: JsonValue, limits: InputLimits) -> bool:
    """Whether ``value`` nests and counts within the limits, with room to spare: a file
    near them is left to the full reader, which reports them."""
    nodes = 0
    stack: list[tuple[JsonValue, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if depth > limits.max_depth or 2 * nodes > limits.max_yaml_nodes:
            return False
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
            nodes += len(item)
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return True
