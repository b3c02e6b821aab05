"""How the API server prints a bad value that is neither a string nor a number.

apimachinery's ``field.Error`` prints strings quoted and numbers bare. Other values (a
``resource.Quantity``, a list of strings, a label map) it printed in Go syntax
(``[]string{"a", "b"}``, ``resource.Quantity{i:...}``) until kubernetes/kubernetes#132314
made it print them as JSON (``["a","b"]``, ``"500m"``) from 1.34 on. A finding has to read
like the API server of the release the user runs, so rules that report such values go
through :func:`invalid_composite`, with the Go syntax of the common types printed here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from trainc.checks.workload.fielderrors import ErrorType, FieldError, invalid
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import FieldPath, JsonValue

#: The first release whose API server prints composite bad values as JSON.
JSON_BAD_VALUES_SINCE: KubeVersion = (1, 34)


def invalid_composite(
    path: FieldPath,
    code: str,
    *,
    version: KubeVersion,
    value: JsonValue,
    go_syntax: str,
    detail: str,
) -> FieldError:
    """``Invalid value`` of a composite value: ``value`` as JSON, or ``go_syntax`` before 1.34.

    Go syntax is no JSON value, so it is carried in the detail of an error that shows no
    value of its own; :meth:`FieldError.message` reads the same either way.
    """
    if version >= JSON_BAD_VALUES_SINCE:
        return invalid(path, code, value, detail)
    return FieldError(ErrorType.INVALID, path, code, detail=f"{go_syntax}: {detail}")


def go_string_slice(values: list[str]) -> str:
    """``%#v`` of a ``[]string``: ``[]string{"a", "b"}``."""
    quoted = ", ".join(json.dumps(value, ensure_ascii=False) for value in values)
    return f"[]string{{{quoted}}}"


def go_string_map(labels: Mapping[str, str]) -> str:
    """``%#v`` of a ``map[string]string``, keys sorted: ``map[string]string{"a":"b"}``."""
    entries = ", ".join(
        f"{json.dumps(key, ensure_ascii=False)}:{json.dumps(value, ensure_ascii=False)}"
        for key, value in sorted(labels.items())
    )
    return f"map[string]string{{{entries}}}"
