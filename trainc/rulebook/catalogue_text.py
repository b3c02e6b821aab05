"""The text of the generated :mod:`trainc.catalogue`.

The catalogue is plain data at the lowest import layer: a finding's severity, trainc.yaml's
rule codes and the reporters' summaries are then known without importing every check
module, which would load the template engine and the rest for a pre-commit run that needs
none of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from trainc.diagnostics import Rule

_HEADER = '''\
"""The rule catalogue, generated from the rules the check modules declare: do not edit.

``python -m trainc.rulebook`` writes it; a rule is changed where it is declared, next to
the check that reports it (:mod:`trainc.rulebook.declared` lists those modules).
"""

#: ``(code, default severity, summary)`` of every rule; a code ending in ``.*`` is a
#: family whose last part is data (``cel.<rule-id>``, ``policy.<policy-name>``).
RULES: tuple[tuple[str, str, str], ...] = (
'''

_LINE_LENGTH = 100


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _entry(rule: Rule) -> str:
    fields = (_literal(rule.code), _literal(rule.severity.value), _literal(rule.summary))
    line = f"    ({', '.join(fields)}),"
    if len(line) <= _LINE_LENGTH:
        return line + "\n"
    return "    (\n" + "".join(f"        {field},\n" for field in fields) + "    ),\n"


def _codes(name: str, comment: str, codes: Sequence[str]) -> str:
    listed = "".join(f"    {_literal(code)},\n" for code in codes)
    return f"\n#: {comment}\n{name}: tuple[str, ...] = (\n{listed})\n"


def render_catalogue(rules: Iterable[Rule]) -> str:
    """The module's source: ruff-formatted as written, so formatting never makes it stale."""
    rules = tuple(rules)
    return (
        _HEADER
        + "".join(_entry(rule) for rule in rules)
        + ")\n"
        + _codes(
            "SENSITIVE",
            "Rules whose findings sit on lines that may hold secret text.",
            [rule.code for rule in rules if rule.sensitive],
        )
        + _codes(
            "COMPILED",
            "Rules about what only trainc's own deployment has (off with deploy: TrainJob).",
            [rule.code for rule in rules if rule.compiled],
        )
    )
