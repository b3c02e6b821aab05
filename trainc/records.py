"""``@dataclass`` with its methods compiled ahead of time: the same classes, made cheaply.

Python's :func:`dataclasses.dataclass` writes each class's ``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, ``__setattr__`` and ``__delattr__`` as source text and compiles
it with ``exec`` every time the class is created (CPython's ``Lib/dataclasses.py``,
``_create_fn``). trainc has about 250 dataclasses on the pre-commit hook's path alone, and
compiling their methods was most of the hook's import time (docs/performance.md).

This decorator takes the same options. The standard decorator still does the
bookkeeping (fields, defaults, ``__match_args__``, ``__slots__``; everything
:func:`dataclasses.fields` and :func:`dataclasses.replace` read), asked for no methods; the
methods come from :mod:`trainc.records_methods`, a module generated from every class's
*shape* (options and fields, :func:`shape`), whose bytecode Python caches like any
module's. A class whose shape the generated module lacks (it is stale: a test fails) gets
its methods compiled here from the same source, as slowly as the standard decorator.

``python -m trainc.recordgen`` regenerates the module.
"""

from __future__ import annotations

import abc
import dataclasses
import reprlib
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias, TypeVar, dataclass_transform, overload

_T = TypeVar("_T")

#: One field as the methods use it: name, how it gets a value ("required", "default",
#: "factory"), and its init, repr, compare, hash and kw_only flags.
FieldShape: TypeAlias = tuple[str, str, bool, bool, bool, bool | None, bool]
#: What a class's methods depend on: init, repr, eq, order, frozen, slots, whether it
#: has ``__post_init__``, and its fields in order.
Shape: TypeAlias = tuple[bool, bool, bool, bool, bool, bool, bool, tuple[FieldShape, ...]]
#: A maker: given the class and the defaults (values and factories, in field order),
#: returns the class's methods by name.
Maker: TypeAlias = Callable[[type, tuple[Any, ...]], dict[str, Callable[..., Any]]]

#: Every class made here, with its shape: what the generator and the tests look at.
MADE: dict[type, Shape] = {}
#: The classes whose shape :mod:`trainc.records_methods` lacked.
COMPILED_HERE: list[type] = []

_ORDER = ("__lt__", "__le__", "__gt__", "__ge__")
_FROZEN = ("__setattr__", "__delattr__")


@overload
def dataclass(cls: type[_T], /) -> type[_T]: ...


@overload
def dataclass(
    *,
    init: bool = True,
    repr: bool = True,
    eq: bool = True,
    order: bool = False,
    frozen: bool = False,
    kw_only: bool = False,
    slots: bool = False,
) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def dataclass(
    cls: type[_T] | None = None,
    /,
    *,
    init: bool = True,
    repr: bool = True,
    eq: bool = True,
    order: bool = False,
    frozen: bool = False,
    kw_only: bool = False,
    slots: bool = False,
) -> type[_T] | Callable[[type[_T]], type[_T]]:
    """:func:`dataclasses.dataclass` with these options, its methods made ahead of time."""

    def wrap(plain: type[_T]) -> type[_T]:
        return _make(plain, (init, repr, eq, order, frozen, slots), kw_only=kw_only)

    return wrap if cls is None else wrap(cls)


def _make(plain: type[_T], options: tuple[bool, ...], *, kw_only: bool) -> type[_T]:
    init, repr_, eq, order, frozen, slots = options
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    if any(dataclasses.is_dataclass(base) for base in plain.__mro__[1:]):
        raise TypeError(f"{plain.__qualname__}: a dataclass base needs dataclasses.dataclass")
    explicit_hash = _explicit_hash(plain)
    made = dataclasses.dataclass(
        plain, init=False, repr=False, eq=False, kw_only=kw_only, slots=slots
    )
    fields = dataclasses.fields(made)  # type: ignore[arg-type]
    shaped: Shape = (
        init,
        repr_,
        eq,
        order,
        frozen,
        slots,
        hasattr(made, "__post_init__"),
        tuple(_field_shape(field) for field in fields),
    )
    maker = _makers().get(shaped)
    if maker is None:
        COMPILED_HERE.append(made)
        maker = compile_maker(shaped)
    defaults = tuple(
        field.default_factory if field.default is dataclasses.MISSING else field.default
        for field in fields
        if field.default is not dataclasses.MISSING
        or field.default_factory is not dataclasses.MISSING
    )
    methods = maker(made, defaults)
    if init:
        # What inspect.signature and typing.get_type_hints read, as the standard ones have.
        annotations: dict[str, Any] = {field.name: field.type for field in fields if field.init}
        methods["__init__"].__annotations__ = {**annotations, "return": None}
    _install(made, methods, explicit_hash=explicit_hash, options=options)
    MADE[made] = shaped
    return made


def _explicit_hash(cls: type) -> bool:
    """Whether the class body defines ``__hash__`` (Python sets it to None for a class
    that defines ``__eq__`` alone: that is no explicit hash)."""
    if "__hash__" not in cls.__dict__:
        return False
    return not (cls.__dict__["__hash__"] is None and "__eq__" in cls.__dict__)


def _field_shape(field: dataclasses.Field[Any]) -> FieldShape:
    if field.default_factory is not dataclasses.MISSING:
        source = "factory"
    elif field.default is not dataclasses.MISSING:
        source = "default"
    else:
        source = "required"
    return (
        field.name,
        source,
        field.init,
        field.repr,
        field.compare,
        field.hash,
        bool(field.kw_only),
    )


def _install(
    cls: type,
    methods: dict[str, Callable[..., Any]],
    *,
    explicit_hash: bool,
    options: tuple[bool, ...],
) -> None:
    """Set the methods the class body does not define, as the standard decorator does."""
    init, repr_, eq, order, frozen, _slots = options
    for name, method in methods.items():
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        if name in cls.__dict__:
            if name in _ORDER or name in _FROZEN:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
            continue
        if name != "__hash__":
            setattr(cls, name, reprlib.recursive_repr()(method) if name == "__repr__" else method)
    if eq and not explicit_hash:
        cls.__hash__ = methods["__hash__"] if frozen else None  # type: ignore[assignment]
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    params.init, params.repr, params.eq, params.order, params.frozen = (
        init,
        repr_,
        eq,
        order,
        frozen,
    )
    abc.update_abstractmethods(cls)


def _makers() -> dict[Shape, Maker]:
    """The makers generated ahead of time (imported on first use: the generator runs
    without them)."""
    try:
        from trainc.records_methods import MAKERS  # noqa: PLC0415 - see above
    except ImportError:
        return {}
    return MAKERS


def compile_maker(shaped: Shape) -> Maker:
    """The maker of ``shaped``, compiled now (what the standard decorator does per class)."""
    namespace: dict[str, Any] = {}
    exec(maker_source(shaped, "maker"), _MAKER_GLOBALS, namespace)  # noqa: S102 - our own text
    maker: Maker = namespace["maker"]
    return maker


class _FactorySentinel:
    """The default of an ``__init__`` parameter whose field has a default factory."""

    def __repr__(self) -> str:
        return "<factory>"


FACTORY = _FactorySentinel()

#: The names the makers' source refers to.
_MAKER_GLOBALS: dict[str, Any] = {
    "_FACTORY": FACTORY,
    "_object_setattr": object.__setattr__,
    "FrozenInstanceError": dataclasses.FrozenInstanceError,
}


def maker_source(shaped: Shape, name: str) -> str:
    """The Python source of the maker of a class of shape ``shaped``, named ``name``."""
    init, repr_, eq, order, frozen, slots, post_init, fields = shaped
    defaulted = [field for field in fields if field[1] != "required"]
    lines = [f"def {name}(cls, defaults):"]
    if defaulted:
        names = "".join(f"_d_{field[0]}, " for field in defaulted)
        lines.append(f"    {names}= defaults")
    made: list[str] = []
    if init:
        lines += _init_source(fields, frozen=frozen, slots=slots, post_init=post_init)
        made.append("__init__")
    if repr_:
        shown = ", ".join(f"{field[0]}={{self.{field[0]}!r}}" for field in fields if field[3])
        lines += [
            "    def __repr__(self):",
            f'        return f"{{self.__class__.__qualname__}}({shown})"',
        ]
        made.append("__repr__")
    compared = _tuple("self", (field[0] for field in fields if field[4]))
    other = _tuple("other", (field[0] for field in fields if field[4]))
    for method, operator in (("__eq__", "=="),) * eq + tuple(
        zip(_ORDER, ("<", "<=", ">", ">="), strict=True)
    ) * order:
        lines += [
            f"    def {method}(self, other):",
            "        if other.__class__ is self.__class__:",
            f"            return {compared} {operator} {other}",
            "        return NotImplemented",
        ]
        made.append(method)
    if eq and frozen:
        hashed = (field[0] for field in fields if (field[4] if field[5] is None else field[5]))
        lines += ["    def __hash__(self):", f"        return hash({_tuple('self', hashed)})"]
        made.append("__hash__")
    if frozen:
        lines += _frozen_source(fields, slots=slots)
        made += [*_FROZEN, *(("__getstate__", "__setstate__") if slots else ())]
    lines.append("    return {" + ", ".join(f"{method!r}: {method}" for method in made) + "}")
    return "\n".join(lines) + "\n"


def _init_source(
    fields: tuple[FieldShape, ...], *, frozen: bool, slots: bool, post_init: bool
) -> list[str]:
    self = "__dataclass_self__" if any(field[0] == "self" for field in fields) else "self"
    positional: list[str] = []
    keywords: list[str] = []
    body: list[str] = []
    for field_name, source, in_init, *_, kw_only in fields:
        default = f"_d_{field_name}"
        if in_init:
            parameter = {
                "required": field_name,
                "default": f"{field_name}={default}",
                "factory": f"{field_name}=_FACTORY",
            }[source]
            (keywords if kw_only else positional).append(parameter)
            value = field_name
            if source == "factory":
                value = f"{default}() if {field_name} is _FACTORY else {field_name}"
        elif source == "factory":
            value = f"{default}()"
        elif source == "default" and slots:
            value = default
        else:
            continue
        if frozen:
            body.append(f"_object_setattr({self}, {field_name!r}, {value})")
        else:
            body.append(f"{self}.{field_name} = {value}")
    if post_init:
        body.append(f"{self}.__post_init__()")
    parameters = [self, *positional, *(["*", *keywords] if keywords else [])]
    return [
        f"    def __init__({', '.join(parameters)}):",
        *(f"        {line}" for line in body or ["pass"]),
    ]


def _frozen_source(fields: tuple[FieldShape, ...], *, slots: bool) -> list[str]:
    names = _tuple("", (field[0] for field in fields), quoted=True)
    lines = [
        "    def __setattr__(self, name, value):",
        f"        if type(self) is cls or name in {names}:",
        '            raise FrozenInstanceError(f"cannot assign to field {name!r}")',
        "        super(cls, self).__setattr__(name, value)",
        "    def __delattr__(self, name):",
        f"        if type(self) is cls or name in {names}:",
        '            raise FrozenInstanceError(f"cannot delete field {name!r}")',
        "        super(cls, self).__delattr__(name)",
    ]
    if slots:
        # Pickling a frozen slotted class: its state is the list of field values.
        lines += [
            "    def __getstate__(self):",
            f"        return [{', '.join(f'self.{field[0]}' for field in fields)}]",
            "    def __setstate__(self, state):",
            f"        for name, value in zip({names}, state):",
            "            _object_setattr(self, name, value)",
        ]
    return lines


def _tuple(owner: str, names: Iterable[str], *, quoted: bool = False) -> str:
    """``(owner.a, owner.b,)``, or ``('a', 'b',)`` when ``quoted``."""
    items = [repr(name) if quoted else f"{owner}.{name}" for name in names]
    return "(" + "".join(f"{item}," for item in items) + ")"
