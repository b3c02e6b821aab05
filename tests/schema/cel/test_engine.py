"""The engine adapter: bindings, optional variables and the engine's iteration limit."""

from __future__ import annotations

import pytest

from trainc.schema.cel.engine import (
    ABSENT,
    ITERATION_LIMIT,
    CelCompileError,
    EvalError,
    bind,
    compile_expression,
    references,
)

VARIABLES = ("self", "oldSelf")


def test_bindings_serve_many_programs() -> None:
    bindings = bind({"self": {"a": [1, 2, 3]}})
    assert compile_expression("size(self.a) == 3", ("self",)).evaluate(bindings) is True
    assert compile_expression("self.a.all(x, x > 0)", ("self",)).evaluate(bindings) is True
    assert compile_expression("self.a[0]", ("self",)).evaluate(bindings) == 1


@pytest.mark.parametrize(
    ("old", "expected"),
    [(ABSENT, True), (1, True), (2, False)],
)
def test_optional_old_self(old: object, expected: bool) -> None:
    program = compile_expression(
        "!oldSelf.hasValue() || oldSelf.value() == self", VARIABLES, optional=("oldSelf",)
    )
    assert program.evaluate(bind({"self": 1, "oldSelf": old})) is expected
    assert program.evaluate({"self": 1, "oldSelf": old}) is expected


def test_optional_wrapper_survives_a_trailing_comment() -> None:
    program = compile_expression(
        "oldSelf.orValue(0) + self // compare\n", VARIABLES, optional=("oldSelf",)
    )
    assert program.evaluate(bind({"self": 1, "oldSelf": ABSENT})) == 1
    assert program.evaluate(bind({"self": 1, "oldSelf": 4})) == 5


def test_optional_compile_errors_show_the_rule_not_the_wrapper() -> None:
    with pytest.raises(CelCompileError) as error:
        compile_expression("oldSelf.value( == self", VARIABLES, optional=("oldSelf",))
    assert "__trainc_optional" not in str(error.value)


def test_iteration_limit_is_flagged() -> None:
    program = compile_expression("self.all(x, x >= 0)", ("self",))
    assert program.evaluate(bind({"self": list(range(ITERATION_LIMIT - 1))})) is True
    result = program.evaluate(bind({"self": list(range(ITERATION_LIMIT + 1))}))
    assert isinstance(result, EvalError)
    assert result.iteration_limit


def test_ordinary_errors_are_not_iteration_limits() -> None:
    result = compile_expression("self.missing > 0", ("self",)).evaluate(bind({"self": {}}))
    assert isinstance(result, EvalError)
    assert not result.iteration_limit


def test_unconvertible_values_are_errors() -> None:
    result = compile_expression("self > 0", ("self",)).evaluate(bind({"self": 2**70}))
    assert isinstance(result, EvalError)


def test_transition_rules_are_told_apart() -> None:
    assert references("self == oldSelf", "oldSelf", VARIABLES)
    assert not references("self >= 1", "oldSelf", VARIABLES)
    assert not references("self >=", "oldSelf", VARIABLES)
