"""Descriptions of API dataclasses and their fields, read from the model's source.

Python keeps a class docstring at runtime but drops the string literal written under a
field (an "attribute docstring"), so both are read from the module's syntax tree. They
become the ``description`` of the generated schemas, as Go doc comments do for
controller-gen. reStructuredText literals (double backticks) become Markdown code spans
(single backticks), which is what editors render in hover text.
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass

_RST_LITERAL = re.compile(r"``([^`]+)``")


@dataclass(frozen=True, slots=True)
class ClassDocs:
    """The docstring of one class and those of its fields, cleaned of indentation."""

    description: str | None
    fields: Mapping[str, str]


def _description(docstring: str) -> str:
    return _RST_LITERAL.sub(r"`\1`", inspect.cleandoc(docstring))


def _string_literal(node: ast.stmt) -> str | None:
    if (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ):
        return _description(node.value.value)
    return None


def _field_docs(body: list[ast.stmt]) -> dict[str, str]:
    """Attribute docstrings: a string statement right after an annotated assignment."""
    docs: dict[str, str] = {}
    for statement, following in itertools.pairwise(body):
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            text = _string_literal(following)
            if text is not None:
                docs[statement.target.id] = text
    return docs


@functools.cache
def _module_docs(module_name: str) -> Mapping[str, ClassDocs]:
    """Docs of every top-level class in a module, parsed once per module."""
    tree = ast.parse(inspect.getsource(sys.modules[module_name]))
    docs: dict[str, ClassDocs] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            docstring = ast.get_docstring(node, clean=False)
            description = _description(docstring) if docstring else None
            docs[node.name] = ClassDocs(description=description, fields=_field_docs(node.body))
    return docs


def class_docs(cls: type) -> ClassDocs:
    """Docs of ``cls``, a top-level class; none for a class built dynamically, rather
    than the placeholder ``__doc__`` that ``dataclass`` invents."""
    return _module_docs(cls.__module__).get(cls.__qualname__, ClassDocs(None, {}))
