"""trainc.yaml's ``rules`` and ``perPathRules`` checked: every code they set must be a rule.

A misspelt code would otherwise change nothing in silence. Any rule may be set, the
cluster's own included (docs/suppressions.md says what turning one off means).
"""

from __future__ import annotations

from collections.abc import Mapping

from trainc.config.file import CONFIG_INVALID
from trainc.config.judgement import is_rule_code, unknown_code_hint
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.load.documents import Document, finding_in
from trainc.model.json import FieldPath


def check_rule_settings(config: RepoConfig, document: Document | None) -> list[Diagnostic]:
    """A ``config.invalid`` finding for each code in ``rules`` or ``perPathRules`` that
    names no rule."""
    found = _check_codes(config, document, config.rules, ("rules",))
    for number, entry in enumerate(config.path_rules):
        found += _check_codes(config, document, entry.rules, ("perPathRules", number, "rules"))
    return found


def _check_codes(
    config: RepoConfig, document: Document | None, rules: Mapping[str, str], at: FieldPath
) -> list[Diagnostic]:
    found = []
    for code in sorted(rules):
        if is_rule_code(code):
            continue
        message = f"rules names {code!r}, which is no rule code"
        hint = unknown_code_hint(code)
        found.append(
            finding_in(
                document, config.config_file, (*at, code), CONFIG_INVALID.code, message, hint=hint
            )
        )
    return found
