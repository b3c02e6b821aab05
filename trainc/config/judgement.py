"""What trainc.yaml's ``rules`` and the inputs' inline suppressions make of each finding.

Every finding of a run passes here before it counts: a rule set to ``off`` (for the whole
repository, or for the files of a ``perPathRules`` entry) drops it, ``error`` or
``warning`` sets its severity, and a ``# trainc: ignore[CODE]`` comment where it points
(:mod:`trainc.load.suppressions`) drops it. Whether a run is clean, whether a TrainJob's
Jobs are judged after an error, and whether compile writes, are all decided on what is
left, so a suppressed error no longer blocks and a rule raised to ``error`` does.

How the repository is deployed (trainc.yaml's ``deploy``) turns rules off too. With
``deploy: JobSet`` (the default) trainc's compiled JobSets are what reaches the cluster,
and every rule applies. With ``deploy: TrainJob`` the TrainJobs go to the Trainer
controller as they are and trainc only validates them: the TrainJob, its runtime and the
JobSet and Jobs Trainer builds from them are judged as before, while the rules the
catalogue marks ``compiled`` (trainc's own JobSet metadata, the sweeper, the apply of
compiled objects, Kueue's fight with GitOps over a compiled JobSet's ``suspend``) are
off: none of what they judge exists then.

A suppression that silences nothing is reported (``suppression.unused``), as ruff's
``RUF100`` reports an unused ``noqa``, so suppressions do not outlive their reason; one
that cannot work (no codes, an unknown code, misplaced) is ``suppression.invalid``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from trainc.config.settings import DEPLOY_JOBSET, Deploy, PathRules, RepoConfig
from trainc.diagnostics import (
    CATALOGUE,
    Diagnostic,
    Rule,
    Severity,
    did_you_mean,
    finding,
    rule_for,
)
from trainc.load.globs import any_of
from trainc.load.source import SourceFile
from trainc.load.suppressions import Suppression, find_suppressions

# Both rules are sensitive: a suppression comment sits on the line it silences, which may
# hold a literal credential (compile.plaintext-credential); their messages name the codes.
SUPPRESSION_INVALID = Rule(
    "suppression.invalid",
    Severity.ERROR,
    "a suppression comment names no rule, or cannot apply",
    sensitive=True,
)

SUPPRESSION_UNUSED = Rule(
    "suppression.unused",
    Severity.WARNING,
    "a suppression comment silences no finding",
    sensitive=True,
)


#: The codes of the findings about suppressions themselves: trainc.yaml may set their
#: level, a suppression cannot silence them.
SUPPRESSION_FAMILY = "suppression."


def is_rule_code(code: str) -> bool:
    """Whether ``code`` names a rule: a catalogue code or one of a family (``policy.x``)."""
    try:
        rule_for(code)
    except KeyError:
        return False
    return True


def unknown_code_hint(code: str) -> str:
    """The hint for a code that is no rule: the closest one, or where codes are seen."""
    return did_you_mean(code, CATALOGUE) or (
        "a rule code is what a finding names in brackets, as `pod.image` in `error[pod.image]`"
    )


class Judgement:
    """The levels of trainc.yaml and the suppressions of the run's files, applied to
    findings (:meth:`__call__`), and what was never used (:meth:`problems`).

    A run makes one before judging anything, from every file whose findings it may
    report; worker processes inherit it, and the run's own process judges every
    finding once more as it takes them, so the record of used suppressions is whole.
    """

    def __init__(
        self,
        rules: Mapping[str, str] | None = None,
        path_rules: Sequence[PathRules] = (),
        suppressions: Iterable[Suppression] = (),
        deploy: Deploy = DEPLOY_JOBSET,
    ) -> None:
        self._rules = dict(rules or {})
        self._compiled_rules_off = deploy != DEPLOY_JOBSET
        self._path_rules = tuple((any_of(entry.paths), entry.rules) for entry in path_rules)
        self._levels: dict[str | None, Mapping[str, str]] = {}
        self._suppressions: dict[str, list[Suppression]] = {}
        for suppression in suppressions:
            self._suppressions.setdefault(suppression.file, []).append(suppression)
        self._used: set[tuple[str, int, str]] = set()

    @classmethod
    def for_run(cls, config: RepoConfig, sources: Iterable[SourceFile]) -> Judgement:
        """The judgement of a run with ``config`` over files ``sources``."""
        found = (suppression for source in sources for suppression in find_suppressions(source))
        return cls(config.rules, config.path_rules, found, config.deploy)

    def __call__(self, findings: Iterable[Diagnostic]) -> list[Diagnostic]:
        """``findings`` at their configured severity, without those turned off or
        suppressed; each suppression that silenced one is recorded as used."""
        kept = []
        for diagnostic in findings:
            judged, suppression = self._judge(diagnostic)
            if suppression is not None:
                self._used.add((suppression.file, suppression.line, diagnostic.code))
            elif judged is not None:
                kept.append(judged)
        return kept

    def fails(self, findings: Iterable[Diagnostic]) -> bool:
        """Whether one of ``findings`` is still an error once judged (records nothing)."""
        for diagnostic in findings:
            judged, suppression = self._judge(diagnostic)
            if suppression is None and judged is not None and judged.is_error:
                return True
        return False

    def problems(self, targets: Iterable[str], answerable: Iterable[str]) -> list[Diagnostic]:
        """The invalid suppressions of ``targets`` and the unused ones of ``answerable``
        (the files whose every possible finding the run judged), at their configured
        levels.

        Call it once every finding of the run was judged.
        """
        found = []
        for file in sorted(set(targets)):
            for suppression in self._suppressions.get(file, ()):
                found += self._invalid(suppression)
        for file in sorted(set(answerable)):
            for suppression in self._suppressions.get(file, ()):
                found += self._unused(suppression)
        return [judged for judged in map(self._level, found) if judged is not None]

    def _judge(self, diagnostic: Diagnostic) -> tuple[Diagnostic | None, Suppression | None]:
        """The finding at its level (None: off), and the suppression that silences it."""
        judged = self._level(diagnostic)
        if judged is None or diagnostic.file is None or diagnostic.line is None:
            return judged, None
        if diagnostic.code.startswith(SUPPRESSION_FAMILY):
            return judged, None
        for suppression in self._suppressions.get(diagnostic.file, ()):
            if diagnostic.code in suppression.codes and suppression.covers(diagnostic.line):
                return judged, suppression
        return judged, None

    def _level(self, diagnostic: Diagnostic) -> Diagnostic | None:
        """``diagnostic`` at the level its rule is set to for its file; None when off."""
        if self._compiled_rules_off and rule_for(diagnostic.code).compiled:
            return None
        level = self._levels_of(diagnostic.file).get(diagnostic.code)
        if level is None:
            return diagnostic
        if level == "off":
            return None
        severity = Severity(level)
        return (
            diagnostic
            if diagnostic.severity is severity
            else replace(diagnostic, severity=severity)
        )

    def _levels_of(self, file: str | None) -> Mapping[str, str]:
        """The levels that apply in ``file``: ``rules``, then each matching entry's."""
        levels = self._levels.get(file)
        if levels is None:
            merged = dict(self._rules)
            for pattern, rules in self._path_rules:
                if file is not None and pattern.fullmatch(file):
                    merged.update(rules)
            levels = self._levels[file] = merged
        return levels

    def _invalid(self, suppression: Suppression) -> list[Diagnostic]:
        if suppression.problem is not None:
            return [
                _at(
                    suppression, SUPPRESSION_INVALID.code, f"this suppression {suppression.problem}"
                )
            ]
        found = []
        for code in suppression.codes:
            if code.startswith(SUPPRESSION_FAMILY):
                message = f"this suppression names {code!r}, which only trainc.yaml's rules can set"
                found.append(
                    _at(suppression, SUPPRESSION_INVALID.code, message, f"rules: {{{code}: 'off'}}")
                )
            elif not is_rule_code(code):
                message = f"this suppression names {code!r}, which is no rule code"
                found.append(
                    _at(suppression, SUPPRESSION_INVALID.code, message, unknown_code_hint(code))
                )
        return found

    def _unused(self, suppression: Suppression) -> list[Diagnostic]:
        if suppression.problem is not None:
            return []
        unused = [
            code
            for code in suppression.codes
            if is_rule_code(code)
            and not code.startswith(SUPPRESSION_FAMILY)
            and (suppression.file, suppression.line, code) not in self._used
        ]
        if not unused:
            return []
        where = "in this document" if suppression.whole_document else "on this line"
        named = ", ".join(repr(code) for code in unused)
        message = f"this suppression silences nothing: no {named} finding {where}"
        hint = "remove it, or the codes that no longer apply"
        return [_at(suppression, SUPPRESSION_UNUSED.code, message, hint)]


def _at(suppression: Suppression, code: str, message: str, hint: str | None = None) -> Diagnostic:
    return finding(
        code,
        message,
        file=suppression.file,
        line=suppression.line,
        column=suppression.column,
        hint=hint,
    )
