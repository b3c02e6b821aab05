from __future__ import annotations

from trainc.diagnostics import Rule, Severity
from trainc.rulebook.catalogue_text import render_catalogue

RULES = (
    Rule("load.unreadable", Severity.ERROR, "the file could not be read"),
    Rule(
        "apply.object-near-limit",
        Severity.WARNING,
        "an emitted object nears etcd's 1.5 MiB request limit, which is a long way to say it",
        compiled=True,
    ),
    Rule("suppression.unused", Severity.WARNING, 'a "noqa" silences nothing', sensitive=True),
    Rule("cel.*", Severity.ERROR, "a CRD validation rule is violated"),
)


def test_the_catalogue_holds_each_rule_as_data_with_its_flags() -> None:
    namespace: dict[str, object] = {}
    exec(render_catalogue(RULES), namespace)  # noqa: S102 - the generated module's own text
    assert namespace["RULES"] == tuple(
        (rule.code, rule.severity.value, rule.summary) for rule in RULES
    )
    assert namespace["SENSITIVE"] == ("suppression.unused",)
    assert namespace["COMPILED"] == ("apply.object-near-limit",)


def test_lines_stay_within_the_line_length() -> None:
    text = render_catalogue(RULES)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert '        "an emitted object nears' in text
