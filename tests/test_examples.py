"""The bundled example repository validates, and its committed compiled output is current."""

from __future__ import annotations

from pathlib import Path

from tests.support.compiled import compile_collected
from trainc.app import compile_paths, validate_paths
from trainc.emit.sinks import DirectoryCheck
from trainc.emit.writer import check_tree

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_examples_validate_without_errors() -> None:
    report = validate_paths([], cwd=EXAMPLES)
    assert [d for d in report.diagnostics if d.is_error] == []
    assert report.objects == 8


def test_committed_output_is_what_compile_writes() -> None:
    check = DirectoryCheck(None, [])  # trainc.yaml's compile.output
    report = compile_paths([], cwd=EXAMPLES, sink=check)
    assert report.exit_code == 0
    assert check.directory == EXAMPLES / "rendered"
    assert check.problems == [], "examples/rendered is stale: run `cd examples && trainc compile`"


def test_the_check_agrees_with_the_files_compile_collects() -> None:
    assert check_tree(EXAMPLES / "rendered", compile_collected([], cwd=EXAMPLES).files) == []
