"""The files generated from the rules' declarations: render them, write them, check them.

As with ``schemas/``, the generated copies are committed so that a run reads them
without the generator and a reader finds docs/rules.md in the repository; a test fails
when one is stale, so a declaration and its copies change in one commit.
"""

from __future__ import annotations

from pathlib import Path

from trainc.rulebook.catalogue_text import render_catalogue
from trainc.rulebook.declared import declared_rules
from trainc.rulebook.page import TEMPLATE, render_page

_PACKAGE_DIR = Path(__file__).resolve().parents[1]

#: The generated files, by POSIX path relative to the source checkout's root.
CATALOGUE_PATH = "trainc/catalogue.py"
PAGE_PATH = "docs/rules.md"


def render_files() -> dict[str, str]:
    """Every generated file's text, by path relative to the checkout's root."""
    rules = declared_rules()
    return {
        CATALOGUE_PATH: render_catalogue(rules),
        PAGE_PATH: render_page(rules, TEMPLATE.read_text(encoding="utf-8")),
    }


def checkout_root() -> Path:
    """The source checkout this package runs from (the generated files are its own)."""
    return _PACKAGE_DIR.parent


def stale_files(root: Path) -> list[str]:
    """The generated files under ``root`` that differ from their rendering."""
    return [
        relative
        for relative, text in render_files().items()
        if not (root / relative).is_file() or (root / relative).read_text(encoding="utf-8") != text
    ]


def write_files(root: Path) -> list[str]:
    """Bring the generated files under ``root`` up to date; returns those it rewrote."""
    stale = stale_files(root)
    rendered = render_files()
    for relative in stale:
        (root / relative).write_text(rendered[relative], encoding="utf-8")
    return stale
