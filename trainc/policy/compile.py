"""A validated ValidationPolicy turned into compiled CEL programs, ready to evaluate.

Compiling every expression once, when the policy is loaded, reports a broken policy
at its own file and line before any object is judged, and keeps evaluation over
thousands of objects free of parsing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.documents import Document
from trainc.model.json import FieldPath, JsonObject
from trainc.model.kinds import INPUT_KINDS, TRAINJOB
from trainc.policy.files import POLICY_INVALID
from trainc.records import dataclass
from trainc.schema.cel.engine import CelCompileError, Program, compile_expression
from trainc.schema.cel.reads import Reads, reads, union

if TYPE_CHECKING:
    from trainc.model.policy import MatchResources, ValidationPolicy

POLICY_FAMILY = Rule(
    "policy.*",
    Severity.ERROR,
    "an organisation policy is violated",
)


#: Variables every policy expression sees, as in a ValidatingAdmissionPolicy plus
#: trainc's ``runtime`` (the TrainJob's runtime) and ``resolved`` (its summary).
ACTIVATION_VARIABLES: tuple[str, ...] = (
    "object",
    "oldObject",
    "params",
    "variables",
    "runtime",
    "resolved",
)

_KINDS_BY_RESOURCE = {info.plural: info.kind for info in INPUT_KINDS}
_DEFAULT_VIOLATION_PATH: FieldPath = ("spec",)
# `object.a.b` not preceded by a name character or a dot (so not `variables.object`),
# with an optional `(` telling that the last segment is a method call such as size().
_OBJECT_REFERENCE = re.compile(r"(?<![\w.])object((?:\.[A-Za-z_][A-Za-z0-9_]*)+)(\()?")

#: The prefix of every finding about organisation policies: their violations
#: (``policy.<name>``), and the policies that do not load or evaluate.
POLICY_CODES = "policy."


@dataclass(frozen=True, slots=True)
class NamedProgram:
    """A matchCondition or variable: its name and its compiled expression."""

    name: str
    program: Program


@dataclass(frozen=True, slots=True)
class CompiledValidation:
    """One ``validations[]`` entry, compiled.

    ``object_path`` is where a violation is reported in the checked object: the deepest
    ``object.…`` path all references in the expression share (``spec`` when it reads
    none), so ``has(object.spec.activeDeadlineSeconds)`` points at that field, or at
    its nearest existing parent. VAP validations carry no fieldPath; this is trainc's.
    """

    index: int
    program: Program
    message: str
    message_program: Program | None
    object_path: FieldPath


@dataclass(frozen=True, slots=True, eq=False)
class CompiledPolicy:
    """A policy ready to evaluate: what it matches, its parameters and its programs."""

    name: str
    kinds: frozenset[str]
    severity: Severity
    params: JsonObject
    match_conditions: tuple[NamedProgram, ...]
    variables: tuple[NamedProgram, ...]
    validations: tuple[CompiledValidation, ...]
    reads: Mapping[str, Reads]
    """What the expressions read of each activation variable (:mod:`.cel.reads`): an
    evaluation binds no more, and does not compute a variable nobody reads."""

    @property
    def code(self) -> str:
        """Rule code of this policy's violations."""
        return f"{POLICY_CODES}{self.name}"


def compile_policy(
    name: str, policy: ValidationPolicy, document: Document, params: JsonObject
) -> CompiledPolicy | list[Diagnostic]:
    """Compile every expression of ``policy``, or return a ``policy.invalid`` per failure.

    ``name`` is the policy's checked ``metadata.name``; ``params`` the effective
    parameters (``spec.params`` with trainc.yaml's merged over them). ``Deny`` (the
    default) makes violations errors and ``Warn`` alone warnings, as a VAP's
    validationActions choose between rejecting and warning.
    """
    spec = policy.spec
    compiler = _Compiler(document)
    conditions = tuple(
        NamedProgram(c.name, compiler.program(c.expression, ("matchConditions", i)))
        for i, c in enumerate(spec.match_conditions or ())
    )
    variables = tuple(
        NamedProgram(v.name, compiler.program(v.expression, ("variables", i)))
        for i, v in enumerate(spec.variables or ())
    )
    validations = tuple(
        CompiledValidation(
            index=i,
            program=compiler.program(v.expression, ("validations", i)),
            message=v.message or f"failed expression: {v.expression}",
            message_program=(
                compiler.program(v.message_expression, ("validations", i), "messageExpression")
                if v.message_expression
                else None
            ),
            object_path=violation_path(v.expression),
        )
        for i, v in enumerate(spec.validations)
    )
    if compiler.diagnostics:
        return compiler.diagnostics
    actions = spec.validation_actions or ["Deny"]
    programs = [
        *(c.program for c in conditions),
        *(v.program for v in variables),
        *(v.program for v in validations),
        *(v.message_program for v in validations if v.message_program is not None),
    ]
    return CompiledPolicy(
        name=name,
        kinds=_kinds(spec.match_constraints),
        severity=Severity.ERROR if "Deny" in actions else Severity.WARNING,
        params=params,
        match_conditions=conditions,
        variables=variables,
        validations=validations,
        reads={name: _reads(programs, name) for name in ACTIVATION_VARIABLES},
    )


def _reads(programs: Iterable[Program], variable: str) -> Reads:
    nothing: Reads = {}
    return functools.reduce(union, (reads(p.expression, variable) for p in programs), nothing)


#: Where cel-cpp places a compile error inside the expression: ``<input>:LINE:COLUMN:``.
_CEL_POSITION = re.compile(r"<input>:(?P<line>\d+):(?P<column>\d+):")


class _Compiler:
    """Compiles expressions of one document, collecting errors instead of stopping."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.diagnostics: list[Diagnostic] = []

    def program(self, expression: str, entry: FieldPath, key: str = "expression") -> Program:
        """The compiled expression; on failure a diagnostic and a stand-in that is never run."""
        try:
            return compile_expression(expression, ACTIVATION_VARIABLES)
        except CelCompileError as error:
            path = ("spec", *entry, key)
            spot = _CEL_POSITION.search(str(error))
            position = (
                self.document.locate_in_value(path, int(spot["line"]), int(spot["column"]))
                if spot is not None
                else None
            )
            message = f"{key} does not compile: {error}"
            self.diagnostics.append(
                self.document.finding(path, POLICY_INVALID.code, message, position=position)
            )
            return compile_expression("false", ACTIVATION_VARIABLES)


def _kinds(constraints: MatchResources | None) -> frozenset[str]:
    """Kinds named by ``resourceRules``; TrainJobs when there are none."""
    if constraints is None:
        return frozenset({TRAINJOB.kind})
    resources = {r for rule in constraints.resource_rules for r in rule.resources}
    if "*" in resources:
        return frozenset(_KINDS_BY_RESOURCE.values())
    return frozenset(_KINDS_BY_RESOURCE[r] for r in resources)


def violation_path(expression: str) -> FieldPath:
    """The longest path shared by every ``object.…`` reference in ``expression``."""
    references = list(_object_references(expression))
    if not references:
        return _DEFAULT_VIOLATION_PATH
    shared = references[0]
    for path in references[1:]:
        length = next(
            (i for i, (a, b) in enumerate(zip(shared, path, strict=False)) if a != b),
            min(len(shared), len(path)),
        )
        shared = shared[:length]
    return shared


def _object_references(expression: str) -> Iterator[FieldPath]:
    for match in _OBJECT_REFERENCE.finditer(expression):
        segments = tuple(match[1].split(".")[1:])
        yield segments[:-1] if match[2] else segments
