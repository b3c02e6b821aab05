"""Field errors as the API server reports them, with trainc's rule code attached.

apimachinery's ``field.Error`` renders as ``<path>: <type>[: <value>][: <detail>]``, e.g.
``spec.template.spec.containers[0].image: Required value``. A :class:`FieldError` keeps
the same parts apart: the path as a :data:`~trainc.model.json.FieldPath` (so provenance can
find the source line of the offending value) and the rule code that names the check in
trainc's catalogue. :meth:`FieldError.message` gives the API server's text.

Paths distinguish struct fields from map keys the way ``field.Path`` does: a map key
(``resources.limits[nvidia.com/gpu]``, ``nodeSelector[zone]``) is a :class:`Key`, which
is still a ``str`` everywhere else.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence

from trainc.model.json import FieldPath, JsonValue
from trainc.records import dataclass


class Key(str):
    """A map key in a field path: rendered ``[key]``, where a struct field renders ``.key``."""

    __slots__ = ()


class ErrorType(enum.StrEnum):
    """apimachinery's error types, by the words they render as."""

    NOT_FOUND = "Not found"
    REQUIRED = "Required value"
    DUPLICATE = "Duplicate value"
    INVALID = "Invalid value"
    NOT_SUPPORTED = "Unsupported value"
    FORBIDDEN = "Forbidden"
    TOO_LONG = "Too long"
    TOO_MANY = "Too many"


#: Types whose rendering never shows the offending value.
_VALUE_HIDDEN = frozenset({ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG})


class _Omitted:
    """The value of an error that renders without one (``TooMany`` with no count)."""


OMITTED = _Omitted()


@dataclass(frozen=True, slots=True)
class FieldError:
    """One violation: where (relative to the validated object), what, and which rule."""

    type: ErrorType
    path: FieldPath
    code: str
    value: JsonValue | _Omitted = OMITTED
    detail: str = ""
    #: trainc's advice on the fix, beside the API server's words (which never give one).
    hint: str | None = None
    #: The value that causes the error, when the API server names another path: a
    #: request whose limit is missing is refused at ``resources.limits``, a path nobody
    #: wrote, while the line to change is the request's. None: ``path`` is the value.
    cause: FieldPath | None = None

    @property
    def culprit(self) -> FieldPath:
        """The path of the value to change: :attr:`cause`, else :attr:`path`."""
        return self.path if self.cause is None else self.cause

    def message(self) -> str:
        """The API server's text: ``<path>: <body>``."""
        return f"{render_path(self.path)}: {self.body()}"

    def body(self) -> str:
        """The text without the path (apimachinery's ``ErrorBody``)."""
        text = str(self.type)
        if self.type not in _VALUE_HIDDEN and not isinstance(self.value, _Omitted):
            text += f": {render_value(self.value)}"
        if self.detail:
            text += f": {self.detail}"
        return text


def render_path(path: FieldPath) -> str:
    """A path as ``field.Path`` prints it: ``spec.containers[0].resources.limits[cpu]``."""
    out: list[str] = []
    for part in path:
        if isinstance(part, int | Key):
            out.append(f"[{part}]")
        else:
            out.append(f".{part}" if out else part)
    return "".join(out)


def render_value(value: JsonValue) -> str:
    """A bad value as Go's ``%v``/``%q`` prints it: strings quoted, numbers and bools bare."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def required(
    path: FieldPath,
    code: str,
    detail: str = "",
    hint: str | None = None,
    *,
    cause: FieldPath | None = None,
) -> FieldError:
    """``Required value``: a value that must be given is missing or empty (``cause``: the
    value that makes it required, see :attr:`FieldError.cause`)."""
    return FieldError(ErrorType.REQUIRED, path, code, detail=detail, hint=hint, cause=cause)


def invalid(
    path: FieldPath,
    code: str,
    value: JsonValue,
    detail: str = "",
    hint: str | None = None,
    *,
    cause: FieldPath | None = None,
) -> FieldError:
    """``Invalid value``: malformed, out of range or inconsistent (``cause``: the value
    at fault when ``path`` names its parent, see :attr:`FieldError.cause`)."""
    return FieldError(ErrorType.INVALID, path, code, value, detail, hint, cause)


def forbidden(path: FieldPath, code: str, detail: str = "") -> FieldError:
    """``Forbidden``: well formed, but not allowed here."""
    return FieldError(ErrorType.FORBIDDEN, path, code, detail=detail)


def duplicate(path: FieldPath, code: str, value: JsonValue) -> FieldError:
    """``Duplicate value``: must be unique."""
    return FieldError(ErrorType.DUPLICATE, path, code, value)


def not_found(path: FieldPath, code: str, value: JsonValue) -> FieldError:
    """``Not found``: refers to something that does not exist."""
    return FieldError(ErrorType.NOT_FOUND, path, code, value)


def not_supported(
    path: FieldPath, code: str, value: JsonValue, supported: Sequence[str]
) -> FieldError:
    """``Unsupported value``: not one of an enumeration, which the message lists."""
    detail = "supported values: " + ", ".join(json.dumps(v) for v in supported)
    return FieldError(ErrorType.NOT_SUPPORTED, path, code, value, detail if supported else "")


def too_long(path: FieldPath, code: str, max_length: int) -> FieldError:
    """``Too long`` (apimachinery's ``TooLong``): a string over ``max_length`` bytes."""
    return FieldError(
        ErrorType.TOO_LONG, path, code, detail=f"must have at most {max_length} bytes"
    )


def too_many(path: FieldPath, code: str, actual: int, maximum: int) -> FieldError:
    """``Too many``: a list with more than ``maximum`` items."""
    return FieldError(ErrorType.TOO_MANY, path, code, actual, f"must have at most {maximum} items")
