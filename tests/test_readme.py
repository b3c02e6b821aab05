"""README's promises: the two opening commands, and CI running the very test command."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.cli import run

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


def test_the_tour_s_error_is_what_trainc_prints(tmp_path: Path) -> None:
    """The tour's two files, with the typo the tour shows, give exactly its console."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tour = readme.split("## A tour", 1)[1]
    runtime, job = re.findall(r"```yaml\n(.*?)```", tour, re.DOTALL)[:2]
    (console,) = re.findall(r"```console\n\$ trainc validate\n(.*?)```", tour, re.DOTALL)
    (tmp_path / ".git").mkdir()
    for text in (runtime, job.replace("numNodes: 4", "numNode: 4")):
        name = text.splitlines()[0].removeprefix("# ").split(" ")[0]
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")

    result = run(tmp_path, "validate", env={"TRAINC_NO_CACHE": "1"})

    assert (result.returncode, result.stdout) == (1, console)
