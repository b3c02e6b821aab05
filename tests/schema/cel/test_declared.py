"""Rules read from a generated schema: fields, kinds, and broken rules as trainc bugs."""

from __future__ import annotations

import pytest

from tests.support.cel import rules_at
from trainc.diagnostics import rule_for
from trainc.errors import CompilerBug
from trainc.model.schemafiles import SCHEMA_TARGETS, SchemaTarget
from trainc.model.schematree import load_kind_schema
from trainc.schema.cel.declared import DeclaredRule, rules_by_node

from .builders import rule, schema_of


def test_entries_become_rules() -> None:
    entries = [
        rule(
            "self.a > 0",
            "x.positive",
            "a must be positive",
            messageExpression="'a is ' + string(self.a)",
            fieldPath=".a",
        ),
        rule("self == oldSelf", "x.immutable"),
        {
            "rule": "!oldSelf.hasValue() || self >= oldSelf.value()",
            "message": "no shrink",
            "optionalOldSelf": True,
        },
    ]
    schema = schema_of({"type": "object", "x-kubernetes-validations": entries})
    positive, immutable, growing = rules_at(schema, schema.root)
    assert positive == DeclaredRule(
        rule="self.a > 0",
        message="a must be positive",
        id="x.positive",
        message_expression="'a is ' + string(self.a)",
        field_path=".a",
    )
    assert not positive.transition
    assert positive.message_program is not None
    assert immutable.transition
    assert not immutable.optional
    assert immutable.code == "cel.x.immutable"
    assert growing.optional
    assert growing.code == "cel.rule"
    assert growing.label == "a validation rule"


def test_every_code_a_rule_reports_is_catalogued() -> None:
    assert rule_for("cel.rule").summary
    assert rule_for("cel.trainjob.trainer-immutable").code == "cel.trainjob.trainer-immutable"


@pytest.mark.parametrize(
    "entry",
    [rule("self.a >"), rule("true", messageExpression="'a' +")],
)
def test_a_rule_that_does_not_compile_is_a_trainc_bug_when_first_used(entry: object) -> None:
    schema = schema_of({"type": "object", "x-kubernetes-validations": [entry]})
    (declared,) = rules_at(schema, schema.root)  # reading the rules compiles nothing
    with pytest.raises(CompilerBug, match="does not compile"):
        _ = declared.program, declared.message_program


@pytest.mark.parametrize("target", SCHEMA_TARGETS, ids=lambda target: target.name)
def test_every_rule_of_every_generated_schema_compiles(target: SchemaTarget) -> None:
    """What a run no longer checks up front (it compiles a rule when first evaluated)."""
    schema = load_kind_schema(target.name)
    declared = [rule for rules in rules_by_node(schema).values() for rule in rules]
    for found in declared:
        assert found.program.expression == found.rule
        message = found.message_program
        assert message is None or message.expression == found.message_expression


def test_transition_rules_are_told_apart_without_compiling_the_others() -> None:
    entries = [rule("self.oldSelf > 0"), rule("'oldSelf' != ''"), rule("self == oldSelf")]
    schema = schema_of({"type": "object", "x-kubernetes-validations": entries})
    field, literal, transition = rules_at(schema, schema.root)
    assert (field.transition, literal.transition, transition.transition) == (False, False, True)
