"""Running trainc on generated repositories, and the invariants every run must keep.

The properties (``test_*.py`` here) and the long fuzz run (``python -m tests.fuzz``) share
these: a repository is written to a temporary directory, trainc runs on it in process,
and the result is held to the documented contract.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.fuzz.strategies import Repo
from tests.load.files import write
from tests.support.compiled import Compiled
from trainc.checks.output.objects import OutputCheck
from trainc.cli.main import main
from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic
from trainc.emit.order import sort_objects
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents

#: Findings about a file as a whole (what it is, not a place in it), which have no line.
WHOLE_FILE_CODES = frozenset({"load.binary", "load.too-large", "load.unreadable"})


@dataclass(slots=True)
class Tally:
    """How many inputs the properties of this process have run trainc on."""

    inputs: int = 0


TALLY = Tally()


@contextlib.contextmanager
def written(repo: Repo) -> Iterator[Path]:
    """The repository in a fresh temporary directory (a ``.git`` marks its root)."""
    TALLY.inputs += 1
    with tempfile.TemporaryDirectory(prefix="trainc-fuzz-") as directory:
        root = Path(directory)
        (root / ".git").mkdir()
        for path, content in repo.files.items():
            write(root, path, content)
        yield root


def _lines(content: str | bytes) -> int:
    """An upper bound of the file's line count: every line break any YAML version knows."""
    text = content.decode("utf-8", "replace") if isinstance(content, bytes) else content
    return len(text.splitlines()) + 1


def assert_located(diagnostics: Iterable[Diagnostic], files: dict[str, str | bytes]) -> None:
    """Every error names a file of the repository, a line in it (unless it is about the
    whole file) and a message."""
    for diagnostic in diagnostics:
        if not diagnostic.is_error:
            continue
        assert diagnostic.message.strip(), diagnostic
        assert diagnostic.file in files, diagnostic
        if diagnostic.code in WHOLE_FILE_CODES:
            continue
        assert diagnostic.line is not None, diagnostic
        assert 1 <= diagnostic.line <= _lines(files[diagnostic.file]), diagnostic
        assert diagnostic.column is None or diagnostic.column >= 1, diagnostic


def assert_valid_output(report: Compiled, *, kubernetes_version: str) -> None:
    """What compile produced passes trainc's own output validation, and so does what it
    writes: the YAML stream reads back as exactly those objects."""
    objects = [*(obj for job in report.jobs for obj in job.objects), *report.shared]
    assert OutputCheck(kubernetes_version).problems(objects) == []
    parsed = parse_documents(SourceFile(path="stream.yaml", text=report.stream), InputLimits())
    assert parsed.diagnostics == ()
    assert [document.data for document in parsed.documents] == sort_objects(objects)


def assert_one_verdict(validation: Iterable[Diagnostic], compiled: Compiled) -> None:
    """``validate`` and ``compile`` agree: every error compile reports, validate reports
    at the same place, and a clean validation compiles."""
    errors = {_where(d) for d in validation if d.is_error}
    compile_errors = {_where(d) for d in compiled.diagnostics if d.is_error}
    assert compile_errors <= errors, compile_errors - errors
    if not errors:
        assert compiled.exit_code == 0, compiled.diagnostics


def _where(diagnostic: Diagnostic) -> tuple[object, ...]:
    return (
        diagnostic.code,
        diagnostic.file,
        diagnostic.line,
        diagnostic.column,
        diagnostic.message,
    )


#: How the console script's error boundary starts what it prints for an exception.
INTERNAL_ERROR = "trainc: internal error"


class Outcome(NamedTuple):
    """What ``trainc ARGS`` did: exit code, stdout, stderr."""

    code: int
    out: str
    err: str


def run_cli(root: Path, argv: Sequence[str]) -> Outcome:
    """``trainc ARGV`` in ``root``, in process, through the console script's error boundary."""
    out, err = _stream(), _stream()
    with (
        contextlib.chdir(root),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        pytest.raises(SystemExit) as exited,
    ):
        main(list(argv))
    code = exited.value.code
    assert isinstance(code, int)
    return Outcome(code, _text(out), _text(err))


def _stream() -> io.TextIOWrapper:
    """A text stream with a binary buffer, as sys.stdout has (YAML output goes to it)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")
