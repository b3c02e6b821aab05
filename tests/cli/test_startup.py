"""What a single-file ``trainc validate`` (the pre-commit hook) imports: only what judging
that file needs. Counted by module names, never timed (speed belongs in bench/)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: Imported by other commands, other report formats, templates, --base or a worker
#: pool: none of them by one clean TrainJob validated with the text report.
NOT_NEEDED = (
    "multiprocessing",
    "ctypes",
    "jinja2",
    "ruamel",
    "kubernetes",
    "trainc.crdgen",
    "trainc.emit",
    "trainc.migrate",
    "trainc.prune",
    "trainc.diff",
    "trainc.explain",
    "trainc.sweep",
    "trainc.load.gitref",
    "trainc.load.template",
    "trainc.checks.transitions.base",
    # Without a ``cluster`` section, no admission is judged: nothing of it is imported.
    "trainc.checks.admission",
    "trainc.report.github",
    "trainc.report.json",
    "trainc.report.junit",
    "trainc.report.sarif",
)

_SCRIPT = """
import sys
from trainc.cli.main import main
try:
    main(["validate", sys.argv[1]])
except SystemExit as end:
    print("exit", end.code, file=sys.stderr)
print(*sorted(sys.modules))
"""


def _imported(path: str) -> set[str]:
    """The modules a clean ``trainc validate PATH`` in examples/ imports."""
    completed = subprocess.run(
        [sys.executable, "-c", _SCRIPT, path],
        cwd=EXAMPLES,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "exit 0" in completed.stderr
    return set(completed.stdout.split())


def test_single_file_validate_imports_only_what_it_uses() -> None:
    modules = _imported("jobs/llm/llama-finetune.yaml")
    # The run did judge and build the job (its runtime found elsewhere in the repository).
    assert {"trainc.engine.pipeline", "trainc.build.job", "trainc.report.text"} <= modules
    loaded = sorted(
        name
        for name in modules
        for heavy in NOT_NEEDED
        if name.split(".")[: heavy.count(".") + 1] == heavy.split(".")
    )
    assert loaded == []


def test_a_repository_without_a_cluster_imports_no_admission_check() -> None:
    modules = _imported(".")
    assert "trainc.build.job" in modules
    assert not {name for name in modules if name.startswith("trainc.checks.admission")}
