"""The command line on generated repositories and arguments: exit codes 0, 1 and 2 only."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import INTERNAL_ERROR, run_cli, written
from tests.fuzz.seeds import seeds
from tests.fuzz.strategies import Repo, mutated_repositories

FORMATS = ("text", "json", "github", "junit", "sarif")
#: Commands that read the repository and write at most below it.
COMMANDS = st.one_of(
    st.sampled_from(FORMATS).map(lambda format_: ["validate", "--format", format_]),
    st.sampled_from((["validate", "-v"], ["validate", "-q"], ["compile", "-o", "-"])),
    st.sampled_from((["compile", "-o", "out"], ["compile", "--check", "-o", "out"])),
)
#: Pieces of command lines, right and wrong.
ARGUMENTS = (
    "validate", "compile", "--format", "json", "xml", "-q", "-v", "--env", "prod", "--base",
    "HEAD", "-o", "-", "out", "--check", "--config", "trainc.yaml", "missing.yaml", "--debug",
    "--help", "-V", "--no-such-option", "", "é", "--format=sarif", "valdate", "jobs", ".",
    "..", "/", "--", "-", "runtime.yaml",
)  # fmt: skip


@given(mutated_repositories(), COMMANDS)
def test_input_errors_exit_1_and_never_an_internal_error(repo: Repo, argv: list[str]) -> None:
    with written(repo) as root:
        outcome = run_cli(root, argv)
    assert outcome.code in (0, 1), outcome.err
    assert INTERNAL_ERROR not in outcome.err
    if argv[-1] == "-" and outcome.code:
        assert outcome.out == ""  # Argo CD must never see an empty application
    if "json" in argv:
        report = json.loads(outcome.out)
        errors = [d for d in report["diagnostics"] if d["severity"] == "error"]
        assert all(d["file"] and d["message"] for d in errors)


@given(st.lists(st.sampled_from(ARGUMENTS), max_size=5))
def test_any_command_line_exits_0_1_or_2_and_usage_errors_print_nothing(argv: list[str]) -> None:
    seed = seeds()[0]
    repo = Repo(seed.name, {path: file.text for path, file in seed.files.items()})
    with written(repo) as root:
        outcome = run_cli(root, argv)
    assert outcome.code in (0, 1, 2)
    assert INTERNAL_ERROR not in outcome.err
    if outcome.code == 2:
        assert outcome.out == ""
        assert outcome.err
