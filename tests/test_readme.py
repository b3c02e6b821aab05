"""README's promises: the two opening commands, and CI running the very test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _opening_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.+?)\n```", readme)[:2]


def test_readme_opens_with_an_install_and_run_command_and_a_test_command() -> None:
    run, test = _opening_commands()
    assert run.startswith("pip install .")
    assert "cd examples" in run
    assert "trainc validate" in run
    assert test.startswith("pip install -e '.[test]'")
    assert "pytest" in test


def test_ci_runs_exactly_the_readme_test_command() -> None:
    _, test = _opening_commands()
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test in ci_lines
