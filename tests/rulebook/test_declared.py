from __future__ import annotations

import ast
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from trainc.diagnostics import FAMILY_SUFFIX, Rule, Severity, rule_for
from trainc.rulebook.declared import DECLARING_MODULES, DuplicateRuleError, declared_rules

PACKAGE = Path(__file__).resolve().parents[2] / "trainc"

#: Declared codes no check reports, with the reason they stay declared.
NEVER_REPORTED = {
    # A trainc.yaml that is no YAML gets load.syntax, as any file does; the code stays a
    # rule, so that a trainc.yaml that sets its level stays valid.
    "config.syntax",
}


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        yield name.removesuffix(".__init__"), ast.parse(path.read_text(encoding="utf-8"))


def _declares(tree: ast.Module) -> bool:
    imports_rule = any(
        isinstance(node, ast.ImportFrom)
        and node.module == "trainc.diagnostics"
        and any(alias.name == "Rule" for alias in node.names)
        for node in tree.body
    )
    return imports_rule and any(
        isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "Rule"
        for node in tree.body
    )


def _fake_module(monkeypatch: pytest.MonkeyPatch, name: str, **attributes: object) -> str:
    module = types.ModuleType(name)
    vars(module).update(attributes)
    monkeypatch.setitem(sys.modules, name, module)
    return name


def test_every_module_that_declares_a_rule_is_listed() -> None:
    declaring = {name for name, tree in _modules() if _declares(tree)}
    assert declaring == set(DECLARING_MODULES)


def test_two_declarations_of_one_code_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    first = _fake_module(monkeypatch, "fake_a", X=Rule("pod.x", Severity.ERROR, "one"))
    second = _fake_module(monkeypatch, "fake_b", Y=Rule("pod.x", Severity.WARNING, "two"))
    with pytest.raises(DuplicateRuleError, match=r"pod\.x is declared in fake_a and in fake_b"):
        declared_rules([first, second])


def test_a_rule_imported_by_another_module_is_one_declaration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rule = Rule("pod.x", Severity.ERROR, "one")
    modules = [
        _fake_module(monkeypatch, "fake_a", X=rule),
        _fake_module(monkeypatch, "fake_b", X=rule, other="not a rule"),
    ]
    assert declared_rules(modules) == (rule,)


def _families(rules: tuple[Rule, ...]) -> set[str]:
    return {rule.code.partition(".")[0] for rule in rules}


def _code_literals() -> Iterator[tuple[str, str]]:
    """Every whole string in trainc's code that is spelt like a rule code, but for the
    generated catalogue's copies."""
    families = "|".join(sorted(_families(declared_rules())))
    looks_like_code = re.compile(rf"(?:{families})\.[a-z][a-z0-9-]*")
    for name, tree in _modules():
        if name == "trainc.catalogue":
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and looks_like_code.fullmatch(node.value)
            ):
                yield name, node.value


def test_every_code_trainc_reports_is_declared() -> None:
    """A code reported without a declaration would raise KeyError only when it fires."""
    undeclared = set()
    for name, code in _code_literals():
        try:
            rule_for(code)
        except KeyError:
            undeclared.add(f"{name}: {code}")
    assert not undeclared


def test_every_declared_code_is_used_beyond_its_declaration() -> None:
    """A rule whose constant and code nobody uses is a rule no check reports.

    The case corpus proves most rules fire (tests/test_cases.py); this catches the
    families it has no cases for, such as config.*, compile.* and apply.*.
    """
    rules = [rule for rule in declared_rules() if not rule.code.endswith(FAMILY_SUFFIX)]
    literal_counts: dict[str, int] = {}
    for _, code in _code_literals():
        literal_counts[code] = literal_counts.get(code, 0) + 1
    used_names = {
        node.value.id
        for _, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr == "code"
        and isinstance(node.value, ast.Name)
    }
    constants = {
        rule.code: name
        for module in DECLARING_MODULES
        for name, rule in vars(__import__(module, fromlist=["_"])).items()
        if isinstance(rule, Rule)
    }
    unused = {
        rule.code
        for rule in rules
        if constants[rule.code] not in used_names and literal_counts.get(rule.code, 0) < 2
    }
    assert unused == NEVER_REPORTED
