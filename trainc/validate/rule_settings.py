"""trainc.yaml's ``rules`` section checked: every code it sets must be a configurable rule.

A misspelt code would otherwise change nothing in silence, and a rule the cluster enforces
cannot be turned off: the cluster would refuse the object all the same. Policies are
switched with ``policies.disable`` and their own ``validationActions``.
"""

from __future__ import annotations

from trainc.config import RepoConfig
from trainc.diagnostics import CATALOGUE, Diagnostic, did_you_mean, finding
from trainc.load.documents import Document

#: The codes trainc.yaml's ``rules`` section may set.
CONFIGURABLE: frozenset[str] = frozenset(
    code for code, rule in CATALOGUE.items() if rule.configurable
)


def check_rule_settings(config: RepoConfig, document: Document | None) -> list[Diagnostic]:
    """A ``config.invalid`` finding for each code in ``rules`` that is not configurable."""
    found = []
    for code in sorted(config.rules):
        if code in CONFIGURABLE:
            continue
        listed = "configurable rules: " + ", ".join(sorted(CONFIGURABLE))
        if code in CATALOGUE:
            message = f"rules names {code!r}, which is not a configurable rule"
            hint = listed
        elif code.startswith("policy."):
            message = f"rules names {code!r}, a policy, which rules cannot change"
            hint = f"turn it off with policies.disable: [{code.removeprefix('policy.')}]"
        else:
            message = f"rules names {code!r}, which is no rule code"
            hint = did_you_mean(code, CONFIGURABLE) or listed
        found.append(_finding(config, document, code, message, hint))
    return found


def _finding(
    config: RepoConfig, document: Document | None, code: str, message: str, hint: str
) -> Diagnostic:
    if document is not None:
        return document.finding(("rules", code), "config.invalid", message, hint=hint)
    return finding("config.invalid", message, file=config.config_file, hint=hint)
