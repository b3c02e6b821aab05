"""The bundled example repository validates, and its committed compiled output is current."""

from __future__ import annotations

from pathlib import Path

from trainc.api import compile_paths, validate_paths
from trainc.emit.writer import check_tree

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_examples_validate_without_errors() -> None:
    report = validate_paths([], cwd=EXAMPLES)
    assert [d for d in report.diagnostics if d.is_error] == []
    assert report.objects == 8


def test_committed_output_is_what_compile_writes() -> None:
    report = compile_paths([], cwd=EXAMPLES)
    assert report.exit_code == 0
    assert report.default_output == "rendered"
    assert check_tree(EXAMPLES / "rendered", report.files) == [], (
        "examples/rendered is stale: run `cd examples && trainc compile`"
    )
