"""Rendering ``.j2`` inputs in Jinja2's sandbox, keeping track of which template line
produced each rendered line, so that YAML findings point at the file the user edits.

This is the only module that imports jinja2 (an import-linter contract), and the loader
imports it only when a ``.j2`` file is read.
"""

from __future__ import annotations

import functools
import re
import traceback
from collections.abc import Iterable, Iterator
from typing import Any

from jinja2 import StrictUndefined
from jinja2.exceptions import SecurityError, TemplateError, TemplateSyntaxError, UndefinedError
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream
from jinja2.runtime import Context
from jinja2.sandbox import SandboxedEnvironment

from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic, Rule, Severity, counted
from trainc.load.reader import file_finding, too_large
from trainc.load.source import LINE_BREAK, SourceFile
from trainc.model.json import JsonObject

LOAD_TEMPLATE_SYNTAX = Rule(
    "load.template-syntax",
    Severity.ERROR,
    "a Jinja2 template has a syntax error",
)

LOAD_TEMPLATE_UNDEFINED = Rule(
    "load.template-undefined",
    Severity.ERROR,
    "a Jinja2 template uses a value the config does not define",
)

LOAD_TEMPLATE_SECURITY = Rule(
    "load.template-security",
    Severity.ERROR,
    "a Jinja2 template tried something the sandbox forbids",
)

LOAD_TEMPLATE_ERROR = Rule(
    "load.template-error",
    Severity.ERROR,
    "a Jinja2 template failed while rendering",
)


# Template text cannot hold NUL (the reader refuses it as binary), so a NUL-delimited
# line number is a marker the template's own text never produces (a value it prints
# can imitate one: see _strip_markers).
_MARKER = re.compile("\0([0-9]+)\0")
_TEMPLATE_FILENAME = "<template>"  # what jinja2 names frames of from_string templates
# Render failures that are the template's fault, besides jinja2's own TemplateError:
# arithmetic, wrong types, bad indexes or attributes, runaway recursive macros.
_RENDER_ERRORS = (
    TemplateError,
    ArithmeticError,
    AttributeError,
    LookupError,
    RuntimeError,
    TypeError,
    ValueError,
)


def _marker(line: int) -> str:
    return f"\0{line}\0"


class _LineMarkers(Extension):
    """Prefixes every line of template data, and every ``{{ }}``, with its line number.

    Markers go into the token stream, after jinja2's lexer has decided what is data and
    what is a tag, so they never land inside ``{% %}``, ``{{ }}`` or ``{# #}``. A loop body
    repeats its markers on every iteration, and the lines a multi-line ``{{ value }}``
    prints carry the marker placed before the expression.
    """

    def filter_stream(self, stream: TokenStream) -> Iterable[Token]:
        for token in stream:
            if token.type == "data":
                lines = token.value.split("\n")
                value = "\n".join(_marker(token.lineno + i) + text for i, text in enumerate(lines))
                yield Token(token.lineno, "data", value)
            else:
                if token.type == "variable_begin":
                    yield Token(token.lineno, "data", _marker(token.lineno))
                yield token


class _Environment(SandboxedEnvironment):
    """The sandbox, also refusing ``*`` and ``**`` results that would exhaust memory, and
    without jinja2's random output.

    jinja2 caps ``range()`` but not ``'x' * 10**12`` or ``9 ** 10**10``; both are refused
    as a SecurityError before Python computes them. The ``lipsum()`` global and the
    ``random`` filter draw random numbers: a template using them would render other bytes
    on every run (and validate and compile would read different files), so they are not
    there at all.
    """

    intercepted_binops = frozenset({"*", "**"})

    def __init__(self, max_bytes: int) -> None:
        super().__init__(
            undefined=StrictUndefined,
            autoescape=False,
            keep_trailing_newline=True,
            extensions=[_LineMarkers],
        )
        self.max_bytes = max_bytes
        self.globals.pop("lipsum", None)
        self.filters.pop("random", None)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        if _too_big(operator, left, right, self.max_bytes):
            limit = counted(self.max_bytes, "byte")
            raise SecurityError(f"the result of {operator!r} would exceed {limit}")
        return super().call_binop(context, operator, left, right)


def _too_big(operator: str, left: Any, right: Any, max_bytes: int) -> bool:
    if operator == "**":
        return (
            isinstance(left, int)
            and isinstance(right, int)
            and right > 0
            and abs(left).bit_length() * right > max_bytes * 8
        )
    sized, count = (left, right) if isinstance(right, int) else (right, left)
    return (
        isinstance(count, int)
        and isinstance(sized, str | bytes | list | tuple)
        and len(sized) * count > max_bytes
    )


@functools.lru_cache(maxsize=4)
def _environment(max_bytes: int) -> _Environment:
    return _Environment(max_bytes)


def render_template(
    path: str, template: str, values: JsonObject, limits: InputLimits
) -> SourceFile | Diagnostic:
    """Render ``template`` with the config's values, as top-level names and as ``values``.

    A finding is located at the template line; output beyond ``limits.max_file_bytes``
    is ``load.too-large``, found while generating so a runaway loop stops early.
    """
    context = {**values, "values": values}
    try:
        compiled = _environment(limits.max_file_bytes).from_string(template)
        rendered = _generate(compiled.generate(context), limits.max_file_bytes)
    except TemplateSyntaxError as error:
        return file_finding(
            path, LOAD_TEMPLATE_SYNTAX.code, error.message or str(error), line=error.lineno
        )
    except SecurityError as error:
        return _render_finding(
            path, LOAD_TEMPLATE_SECURITY.code, f"the sandbox refused: {error}", error
        )
    except UndefinedError as error:
        return _render_finding(
            path,
            LOAD_TEMPLATE_UNDEFINED.code,
            f"undefined value: {error}",
            error,
            hint="define it under values in trainc.yaml",
        )
    except _RENDER_ERRORS as error:
        return _render_finding(
            path, LOAD_TEMPLATE_ERROR.code, f"rendering failed: {_described(error)}", error
        )
    if rendered is None:
        return too_large(path, None, limits, subject="the rendered template")
    text, line_map = _strip_markers(rendered, len(LINE_BREAK.findall(template)) + 1)
    return SourceFile(path=path, text=text, original=template, line_map=line_map)


def _generate(chunks: Iterator[str], max_bytes: int) -> str | None:
    """The rendered text, or None as soon as its size without markers passes the bound."""
    kept: list[str] = []
    size = 0
    for chunk in chunks:
        size += len(_MARKER.sub("", chunk).encode("utf-8"))
        if size > max_bytes:
            return None
        kept.append(chunk)
    return "".join(kept)


def _strip_markers(rendered: str, last_line: int) -> tuple[str, tuple[int, ...]]:
    """Rendered text without markers, and the template line of each rendered line.

    A rendered line belongs to the marker just before its first visible character
    (markers of tags that printed nothing, or of indentation a filter added, come earlier
    and lose); a line that starts with printed text (the rest of a multi-line value)
    belongs to the last marker before it. A template can print marker-like text itself
    (``{{ '\\x0099\\x00' }}``); such a marker never names a line outside the template.
    """

    def line(marker: str) -> int:
        return min(max(int(marker), 1), last_line)

    current = 1
    lines: list[str] = []
    line_map: list[int] = []
    for raw in LINE_BREAK.split(rendered):  # as the YAML parser will count them
        parts = _MARKER.split(raw)  # text, line, text, line, ..., text
        owner = current
        for index in range(1, len(parts), 2):
            if parts[index - 1].strip():
                break
            owner = line(parts[index])
        line_map.append(owner)
        if len(parts) > 1:
            current = line(parts[-2])
        lines.append("".join(parts[0::2]))
    return "\n".join(lines), tuple(line_map)


def _described(error: Exception) -> str:
    """The error's type and text; a RecursionError in one wording.

    Python words a RecursionError after the call that hit the limit, which depends on how
    deep the caller's stack already was: one wording, so that validate and compile (and
    one worker process and another) give one verdict on the same template.
    """
    if isinstance(error, RecursionError):
        return f"{type(error).__name__}: maximum recursion depth exceeded"
    return f"{type(error).__name__}: {error}"


def _render_finding(
    path: str, code: str, message: str, error: BaseException, *, hint: str | None = None
) -> Diagnostic:
    """A render failure at the template line jinja2's rewritten traceback names."""
    line = None
    for frame, lineno in traceback.walk_tb(error.__traceback__):
        if frame.f_code.co_filename == _TEMPLATE_FILENAME:
            line = lineno
    return file_finding(path, code, message, line=line, hint=hint)
