"""trainc's ``@dataclass`` makes the classes the standard one makes, from methods generated
ahead of time; the generated module is fresh."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from trainc import records
from trainc.model.trainjob import RuntimeRef
from trainc.recordgen import GENERATED, import_everything, render

Decorator = Callable[..., Any]


def twins(body: Callable[[Decorator], type]) -> tuple[type, type]:
    """The class ``body`` defines, once with each decorator."""
    return body(dataclasses.dataclass), body(records.dataclass)


def _frozen_kw(decorate: Decorator) -> type:
    @decorate(frozen=True, slots=True, kw_only=True)
    class Ref:
        name: str
        kind: str | None = None
        tags: tuple[str, ...] = ()
        extra: list[int] = dataclasses.field(default_factory=list)
        hidden: int = dataclasses.field(default=0, repr=False, compare=False)

    return Ref


def _positional(decorate: Decorator) -> type:
    @decorate(frozen=True, slots=True)
    class Point:
        x: int
        y: int = 2
        cache: dict[int, int] = dataclasses.field(
            default_factory=dict, init=False, repr=False, compare=False
        )

    return Point


def _mutable(decorate: Decorator) -> type:
    @decorate(slots=True)
    class Counter:
        count: int = 0
        seen: list[str] = dataclasses.field(default_factory=list)

        def __post_init__(self) -> None:
            self.seen.append("made")

    return Counter


def _ordered(decorate: Decorator) -> type:
    @decorate(frozen=True, slots=True, order=True)
    class Version:
        major: int
        minor: int

    return Version


def _identity(decorate: Decorator) -> type:
    @decorate(frozen=True, slots=True, eq=False)
    class Handle:
        name: str

    return Handle


def _own_methods(decorate: Decorator) -> type:
    @decorate(frozen=True, slots=True)
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Named) and other.name.lower() == self.name.lower()

        def __hash__(self) -> int:
            return hash(self.name.lower())

    return Named


def _bare(decorate: Decorator) -> type:
    @decorate
    class Plain:
        value: int = 1

    return Plain


def _behaviour(cls: type, *args: Any, **kwargs: Any) -> list[object]:
    """What can be seen of ``cls`` and of instances made with the arguments given."""
    first, second = cls(*args, **kwargs), cls(*args, **kwargs)
    seen: list[object] = [
        str(inspect.signature(cls)),
        getattr(cls, "__match_args__", None),
        [(f.name, f.init, f.repr, f.compare, f.kw_only) for f in dataclasses.fields(cls)],
        repr(first),
        first == second,
        first != second,
        cls.__hash__ is None,
        hasattr(first, "__dict__"),
        # A copy goes through __reduce_ex__ and the state methods, as pickling does.
        repr(copy.deepcopy(first)),
        copy.deepcopy(first) == first,
    ]
    field = dataclasses.fields(cls)[0].name
    seen += [
        _outcome(lambda: hash(first) == hash(second)),
        _outcome(lambda: repr(dataclasses.replace(second))),
        _outcome(lambda: setattr(first, field, 9)),
        _outcome(lambda: delattr(first, field)),
    ]
    return seen


def _outcome(attempt: Callable[[], object]) -> object:
    """What ``attempt`` returns, or the name of what it raises."""
    try:
        return attempt()
    except Exception as error:  # noqa: BLE001 - the kind of failure is what is compared
        return type(error).__name__


@pytest.mark.parametrize(
    ("body", "args", "kwargs"),
    [
        (_frozen_kw, (), {"name": "torch", "tags": ("a",)}),
        (_positional, (1,), {}),
        (_mutable, (), {"count": 3}),
        (_ordered, (1, 2), {}),
        (_identity, ("h",), {}),
        (_own_methods, ("Torch",), {}),
        (_bare, (), {}),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_the_classes_behave_as_the_standard_decorators(
    body: Callable[[Decorator], type], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    standard, fast = twins(body)
    assert _behaviour(fast, *args, **kwargs) == _behaviour(standard, *args, **kwargs)


def test_order_defaults_and_keyword_only_arguments() -> None:
    standard, fast = twins(_ordered)
    assert [fast(1, 2) < fast(1, 3), fast(2, 0) >= fast(1, 9)] == [
        standard(1, 2) < standard(1, 3),
        standard(2, 0) >= standard(1, 9),
    ]
    standard, fast = twins(_frozen_kw)
    for cls in (standard, fast):
        with pytest.raises(TypeError, match="positional"):
            cls("torch")
        first, second = cls(name="a"), cls(name="a")
        assert first.extra == []
        assert first.extra is not second.extra
        assert cls(name="a", hidden=1) == cls(name="a", hidden=2)
    standard, fast = twins(_positional)
    assert fast(1).cache == {}
    assert fast(1).cache is not fast(1).cache
    assert repr(fast(1)) == repr(standard(1)) == "_positional.<locals>.Point(x=1, y=2)"
    assert vars(fast)["__init__"].__qualname__ == vars(standard)["__init__"].__qualname__


def test_a_recursive_repr_is_cut_as_the_standard_ones() -> None:
    standard, fast = twins(_mutable)
    shown = []
    for cls in (standard, fast):
        made = cls()
        made.seen.append(made)
        shown.append(repr(made).split("(", 1)[1])
    assert shown[0] == shown[1]


def test_the_generated_methods_are_fresh_and_cover_every_class() -> None:
    import_everything()
    assert GENERATED.read_text(encoding="utf-8") == render(), "run: python -m trainc.recordgen"
    # Every trainc class imported took its methods from the generated module.
    stale = [
        cls.__qualname__ for cls in records.COMPILED_HERE if cls.__module__.startswith("trainc")
    ]
    assert stale == []


def test_a_shape_the_module_lacks_is_compiled_on_the_spot() -> None:
    before = len(records.COMPILED_HERE)

    @records.dataclass(frozen=True, slots=True)
    class Unusual:
        a_field_no_trainc_class_has: int
        another_one: str = "x"

    assert len(records.COMPILED_HERE) == before + 1
    assert Unusual(1) == Unusual(1, "x")
    assert repr(Unusual(1)).endswith("Unusual(a_field_no_trainc_class_has=1, another_one='x')")


def test_trainc_classes_pickle_back_equal() -> None:
    ref = RuntimeRef(name="torch", kind="TrainingRuntime")
    back = pickle.loads(pickle.dumps(ref))  # noqa: S301 - our own bytes
    assert back == ref
    assert hash(back) == hash(ref)


def test_a_dataclass_base_is_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class Base:
        a: int

    with pytest.raises(TypeError, match="dataclass base"):

        @records.dataclass(frozen=True)
        class Child(Base):
            b: int
