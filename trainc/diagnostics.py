"""Findings as immutable data: the Diagnostic record, severities and the rule-code catalogue.

Every stage returns diagnostics instead of printing or raising, so the command line, the
Argo CD plugin, pre-commit and the tests all see the same list; only reporters render it.
Rule codes are stable identifiers (SARIF rule ids, documentation anchors): each is
declared once, next to the check that reports it, and read here from the catalogue
generated from those declarations.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

# The standard decorator, not trainc.records': reading the catalogue (a finding's
# severity) imports nothing but it and this module (tests/rulebook/test_files.py).
from dataclasses import dataclass

from trainc import catalogue


class Severity(enum.StrEnum):
    """How bad a finding is; only ERROR fails a run."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


_SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    """One finding about the user's input, located as precisely as trainc can."""

    code: str
    severity: Severity
    message: str
    file: str | None
    line: int | None
    column: int | None
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    field_path: str | None = None
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        """True when this finding fails the run."""
        return self.severity is Severity.ERROR


def finding(
    code: str,
    message: str,
    *,
    file: str | None,
    line: int | None = None,
    column: int | None = None,
    field_path: str | None = None,
    hint: str | None = None,
    severity: Severity | None = None,
) -> Diagnostic:
    """A diagnostic whose severity is the catalogue's for ``code`` unless given."""
    return Diagnostic(
        code=code,
        severity=severity or rule_for(code).severity,
        message=message,
        file=file,
        line=line,
        column=column,
        field_path=field_path,
        hint=hint,
    )


def sort_key(diagnostic: Diagnostic) -> tuple[str, int, int, int, str, str]:
    """Canonical order: by file, position, then severity, code and message.

    Repo-wide findings (no file) sort first so a broken config is read before the
    consequences it has on individual files.
    """
    return (
        diagnostic.file or "",
        diagnostic.line or 0,
        diagnostic.column or 0,
        _SEVERITY_RANK[diagnostic.severity],
        diagnostic.code,
        diagnostic.message,
    )


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> tuple[Diagnostic, ...]:
    """Return the diagnostics in canonical order, without exact duplicates."""
    return tuple(sorted(set(diagnostics), key=sort_key))


def closest(word: str, candidates: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """The candidate closest in spelling to ``word``, if one is close enough to suggest.

    Suggestions are made only once something is wrong, so :mod:`difflib` is imported
    then: a clean run, the pre-commit hook's usual case, never pays for it.
    """
    import difflib  # noqa: PLC0415 - see above

    close = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=cutoff)
    return close[0] if close else None


def did_you_mean(word: str, candidates: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """The hint ``did you mean 'x'?`` for the :func:`closest` candidate, None without one."""
    match = closest(word, candidates, cutoff=cutoff)
    return f"did you mean {match!r}?" if match is not None else None


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``1 TrainJob``, ``2 TrainJobs``: a count with its noun in the right number.

    ``plural`` is for nouns that do not just add an ``s``.
    """
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def exit_code(diagnostics: Iterable[Diagnostic]) -> int:
    """1 when any finding is an error, else 0 (warnings never fail a run)."""
    return 1 if any(d.is_error for d in diagnostics) else 0


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleDoc:
    """What docs/rules.md says of a rule, written next to the check that reports it.

    A section of the page shows a table whose columns each pick one of these texts
    (``trainc/rulebook/page.md`` names them); ``section`` is a part of its own below the
    table, for a rule whose reason and fix need more than a cell.
    """

    what: str
    source: str = ""
    versions: str = ""
    fix: str = ""
    level_note: str = ""
    section: str = ""


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule code and what it means, for SARIF, JSON and documentation.

    Each rule is declared once, as a module-level constant of the module whose check
    reports it; :mod:`trainc.rulebook` collects those declarations into the generated
    :mod:`trainc.catalogue` (what a run reads, without importing the checks) and into
    docs/rules.md (from ``doc``). A code ending in ``.*`` declares a family whose last
    part is data (``cel.<rule-id>``, ``policy.<policy-name>``).

    ``severity`` is the default: trainc.yaml's ``rules`` may set any rule's, and inline
    suppressions silence single findings (:mod:`trainc.config.judgement`). A
    ``sensitive`` rule's findings sit on lines that may hold secret text: reporters never
    quote those lines, so a CI log does not spread what the finding warns about. A
    ``compiled`` rule is about what only trainc's own deployment has: the compiled JobSet
    and its companions as trainc builds them, and the sweeper. It is off when trainc.yaml
    says ``deploy: TrainJob``, where the Trainer controller builds the JobSets
    (``docs/deploy.md``).
    """

    code: str
    severity: Severity
    summary: str
    sensitive: bool = False
    compiled: bool = False
    doc: RuleDoc | None = None


#: The suffix of a declared code that names a family rather than one rule.
FAMILY_SUFFIX = ".*"

CATALOGUE: dict[str, Rule] = {
    code: Rule(
        code,
        Severity(severity),
        summary,
        sensitive=code in catalogue.SENSITIVE,
        compiled=code in catalogue.COMPILED,
    )
    for code, severity, summary in catalogue.RULES
    if not code.endswith(FAMILY_SUFFIX)
}

#: Code families whose last segment is data, by prefix, with the severity they default to.
FAMILIES: dict[str, Rule] = {
    code.removesuffix("*"): Rule(code, Severity(severity), summary)
    for code, severity, summary in catalogue.RULES
    if code.endswith(FAMILY_SUFFIX)
}


def rule_for(code: str) -> Rule:
    """Catalogue entry for ``code``, falling back to its family.

    Raises KeyError for a code nobody declared: a typo in trainc itself, caught by tests.
    """
    if code in CATALOGUE:
        return CATALOGUE[code]
    for prefix, family in FAMILIES.items():
        if code.startswith(prefix):
            return Rule(code, family.severity, family.summary)
    raise KeyError(code)
