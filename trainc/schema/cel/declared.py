"""The ``x-kubernetes-validations`` a generated kind schema declares, read once per schema.

Each entry becomes a :class:`DeclaredRule` whose programs compile on first use and are
then shared by every object of the run: a run checking one file compiles only the rules
at the nodes that file has. (Every generated rule compiling is a test's job, not each
run's.) Whether a rule is a transition rule is decided the way the API server decides
it (https://kubernetes.io/docs/reference/using-api/cel/, transition rules): the rule reads
``oldSelf``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping

from trainc.diagnostics import Rule, Severity
from trainc.errors import CompilerBug
from trainc.model.json import JsonValue
from trainc.model.schematree import KindSchema, SchemaNode
from trainc.records import dataclass
from trainc.schema.cel.cost import tokens
from trainc.schema.cel.engine import CelCompileError, Program, compile_expression, references

CEL_RULE = Rule(
    "cel.rule",
    Severity.ERROR,
    "a validation rule without a trainc id is violated",
)

CEL_FAMILY = Rule(
    "cel.*",
    Severity.ERROR,
    "a CRD validation rule (x-kubernetes-validations) is violated",
)


SELF = "self"
OLD_SELF = "oldSelf"


@dataclass(frozen=True, slots=True)
class DeclaredRule:
    """One ``x-kubernetes-validations`` entry and trainc's id for it."""

    rule: str
    message: str
    id: str | None = None
    message_expression: str | None = None
    field_path: str | None = None
    optional_old_self: bool = False
    transition: bool = False

    @property
    def code(self) -> str:
        """Diagnostic code of a violation: ``cel.<id>``, or ``cel.rule`` for an unnamed rule."""
        return f"cel.{self.id}" if self.id else CEL_RULE.code

    @property
    def label(self) -> str:
        """How messages name the rule."""
        return f"rule {self.id}" if self.id else "a validation rule"

    @property
    def optional(self) -> bool:
        """True when ``oldSelf`` is an optional (a transition rule with optionalOldSelf)."""
        return self.transition and self.optional_old_self

    @property
    def program(self) -> Program:
        """The compiled rule (cached by the engine adapter)."""
        return _compile(self.rule, self)

    @property
    def message_program(self) -> Program | None:
        """The compiled ``messageExpression``, which sees the same variables as the rule."""
        if self.message_expression is None:
            return None
        return _compile(self.message_expression, self)


def _compile(expression: str, rule: DeclaredRule) -> Program:
    variables = (SELF, OLD_SELF) if rule.transition else (SELF,)
    optional = (OLD_SELF,) if rule.optional else ()
    try:
        return compile_expression(expression, variables, optional=optional)
    except CelCompileError as error:
        raise CompilerBug(
            f"the generated schema holds a CEL expression that does not compile: "
            f"{expression!r}: {error}"
        ) from error


@functools.cache
def rules_by_node(schema: KindSchema) -> Mapping[int, tuple[DeclaredRule, ...]]:
    """Rules by the identity of the schema node declaring them.

    Identity is stable because the cache keeps ``schema`` (and so its document) alive.
    """
    return {
        id(node): tuple(_parse(entry) for entry in entries if isinstance(entry, dict))
        for node, entries in _declaring_nodes(schema.document)
    }


def _declaring_nodes(value: JsonValue) -> Iterator[tuple[SchemaNode, list[JsonValue]]]:
    if isinstance(value, dict):
        entries = value.get("x-kubernetes-validations")
        if isinstance(entries, list):
            yield value, entries
        for child in value.values():
            yield from _declaring_nodes(child)
    elif isinstance(value, list):
        for child in value:
            yield from _declaring_nodes(child)


def _parse(entry: Mapping[str, JsonValue]) -> DeclaredRule:
    rule = str(entry.get("rule", ""))
    return DeclaredRule(
        rule=rule,
        message=str(entry.get("message") or ""),
        id=_text(entry.get("x-trainc-id")),
        message_expression=_text(entry.get("messageExpression")),
        field_path=_text(entry.get("fieldPath")),
        optional_old_self=entry.get("optionalOldSelf") is True,
        transition=_is_transition(rule),
    )


def _is_transition(rule: str) -> bool:
    """Whether ``rule`` reads ``oldSelf``, which only a rule naming it can: the compiler
    decides for those, and the others cost no compilation."""
    if ("word", OLD_SELF) not in tokens(rule):
        return False
    return references(rule, OLD_SELF, (SELF, OLD_SELF))


def _text(value: JsonValue) -> str | None:
    return value if isinstance(value, str) and value else None
