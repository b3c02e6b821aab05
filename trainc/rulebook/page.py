"""docs/rules.md, from its template (``page.md``) and the rules' own documentation.

The page's prose about each family lives in the template; every line about one rule
comes from that rule's :class:`~trainc.diagnostics.RuleDoc`, so a check and what the page
says of it change together. Two directives in the template stand for generated text,
each followed by the codes it shows, in the page's order, up to the next blank line:

- ``@rules COLUMN...`` is the rows of a table, one per code, with the cells that
  :data:`COLUMNS` names;
- ``@sections`` is the ``### `code``` part of each code, from its ``section`` text.

The order is the page's own (upstream's order of validation, for the pod rules), which no
order of declarations across modules could give.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from trainc.diagnostics import Rule, RuleDoc, Severity

TEMPLATE = Path(__file__).with_name("page.md")


def _level(rule: Rule, doc: RuleDoc) -> str:
    return f"{rule.severity.value} {doc.level_note}" if doc.level_note else rule.severity.value


def _code_and_level(rule: Rule, _: RuleDoc) -> str:
    level = "" if rule.severity is Severity.ERROR else f" ({rule.severity.value})"
    return f"`{rule.code}`{level}"


#: The cells a table may show: the code (alone, or followed by its level when that is
#: not error), the default level, and the texts of the rule's documentation.
COLUMNS: dict[str, Callable[[Rule, RuleDoc], str]] = {
    "code": lambda rule, _: f"`{rule.code}`",
    "code-level": _code_and_level,
    "level": _level,
    "what": lambda _, doc: doc.what,
    "source": lambda _, doc: doc.source,
    "versions": lambda _, doc: doc.versions,
    "fix": lambda _, doc: doc.fix,
}


class PageError(ValueError):
    """The template and the declarations do not fit together."""


def _row(rule: Rule, doc: RuleDoc, columns: Sequence[str]) -> str:
    return "| " + " | ".join(COLUMNS[column](rule, doc) for column in columns) + " |\n"


def _section(rule: Rule, doc: RuleDoc) -> str:
    if not doc.section:
        raise PageError(f"@sections: {rule.code} has no section text")
    return f"### `{rule.code}`\n\n{doc.section}"


def _directives(template: str) -> Iterator[tuple[str, list[str], list[str]]]:
    """``(text, [], [])`` for a plain line, ``(directive, arguments, codes)`` otherwise."""
    lines = iter(template.splitlines(keepends=True))
    for line in lines:
        if not line.startswith("@"):
            yield line, [], []
            continue
        directive, *arguments = line.split()
        codes: list[str] = []
        for following in lines:
            if not following.strip():
                yield directive, arguments, codes
                yield following, [], []
                break
            codes.extend(following.split())
        else:
            yield directive, arguments, codes


def render_page(rules: Sequence[Rule], template: str) -> str:
    """The page: ``template`` with its directives replaced.

    Raises :class:`PageError` for an unknown directive or column, an undocumented code,
    and a documented rule that no ``@rules`` directive shows, which would vanish from
    the page unseen.
    """
    documented: Mapping[str, tuple[Rule, RuleDoc]] = {
        rule.code: (rule, rule.doc) for rule in rules if rule.doc is not None
    }
    out: list[str] = []
    shown: set[str] = set()
    for text, arguments, codes in _directives(template):
        if not text.startswith("@"):
            out.append(text)
            continue
        missing = [code for code in codes if code not in documented]
        if missing:
            raise PageError(f"{text}: no documentation declared for {', '.join(missing)}")
        unknown = [column for column in arguments if column not in COLUMNS]
        if text == "@rules" and arguments and not unknown:
            out.extend(_row(*documented[code], arguments) for code in codes)
            shown.update(codes)
        elif text == "@sections" and not arguments:
            out.append("\n".join(_section(*documented[code]) for code in codes))
        else:
            raise PageError(
                f"cannot read {text} {' '.join(arguments)} (columns: {sorted(COLUMNS)})"
            )
    hidden = sorted(documented.keys() - shown)
    if hidden:
        raise PageError(f"documented rules no @rules directive shows: {', '.join(hidden)}")
    return "".join(out)
