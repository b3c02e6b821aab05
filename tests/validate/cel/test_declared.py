"""Rules read from a generated schema: fields, kinds, and broken rules as trainc bugs."""

from __future__ import annotations

import pytest

from trainc.diagnostics import rule_for
from trainc.errors import CompilerBug
from trainc.validate.cel.declared import DeclaredRule, rules_at

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
def test_a_rule_that_does_not_compile_is_a_trainc_bug(entry: object) -> None:
    schema = schema_of({"type": "object", "x-kubernetes-validations": [entry]})
    with pytest.raises(CompilerBug, match="does not compile"):
        rules_at(schema, schema.root)
