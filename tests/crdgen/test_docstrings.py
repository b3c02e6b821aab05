from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from trainc.crdgen.docstrings import class_docs
from trainc.model.introspect import ListOf, MapOf, Struct, TypeNode, fields_of
from trainc.model.meta import EmbeddedObjectMeta
from trainc.model.schemafiles import SCHEMA_TARGETS


@dataclasses.dataclass(frozen=True)
class Documented:
    """First line.

    Second paragraph with ``code``.
    """

    plain: int
    """One line."""

    wrapped: str = ""
    """A docstring that
        continues on an indented line.
    """

    undocumented: bool = False
    NOT_A_FIELD = "constant"
    """Documents a class attribute without an annotation, which is not a field."""


@dataclasses.dataclass(frozen=True)
class Bare:
    value: int


def test_class_docstring_is_cleaned_and_rst_literals_become_markdown() -> None:
    assert class_docs(Documented).description == "First line.\n\nSecond paragraph with `code`."


def test_attribute_docstrings_belong_to_the_annotated_field_above_them() -> None:
    assert class_docs(Documented).fields == {
        "plain": "One line.",
        "wrapped": "A docstring that\ncontinues on an indented line.",
    }


def test_a_class_without_docstrings_has_no_description() -> None:
    # dataclass() invents __doc__ ("Bare(value: int)"); that is no description.
    assert Bare.__doc__
    docs = class_docs(Bare)
    assert docs.description is None
    assert docs.fields == {}


def test_model_classes_read_from_their_own_module() -> None:
    docs = class_docs(EmbeddedObjectMeta)
    assert docs.description is not None
    assert docs.description.startswith("Metadata of an object created from a template.")
    assert set(docs.fields) == {f.name for f in dataclasses.fields(EmbeddedObjectMeta)}


def _structs(node: TypeNode) -> Iterator[type]:
    if isinstance(node, Struct):
        yield node.cls
        for field in fields_of(node.cls):
            yield from _structs(field.type)
    elif isinstance(node, ListOf):
        yield from _structs(node.item)
    elif isinstance(node, MapOf):
        yield from _structs(node.value)


def test_every_published_class_and_field_has_a_description() -> None:
    classes = {cls for target in SCHEMA_TARGETS for cls in _structs(Struct(target.model))}
    missing = sorted(
        f"{cls.__module__}.{cls.__qualname__}{'.' + name if name else ''}"
        for cls in classes
        for name in [None, *(f.python_name for f in fields_of(cls))]
        if (class_docs(cls).description if name is None else class_docs(cls).fields.get(name))
        is None
    )
    assert missing == [], "every schema description comes from a docstring"
