"""``trainc compile``: TrainJobs and runtimes → the manifests the Trainer controller would make."""

from __future__ import annotations

import io
import shlex
import sys
from pathlib import Path

import click

from trainc import __version__
from trainc.app import RunOptions, Session, ValidationReport
from trainc.cache.store import Store
from trainc.cli.options import (
    ReportOptions,
    cache_options,
    jobs_option,
    report_options,
    say_untracked,
    split_inputs,
    untracked_option,
)
from trainc.cli.progress import progress_line
from trainc.cli.refresh import Refresh
from trainc.cli.staleness import report_check
from trainc.diagnostics import counted
from trainc.emit.sinks import DirectoryCheck, DirectoryOutput, StreamOutput
from trainc.engine.answer import Answer
from trainc.errors import UsageError

STDOUT = "-"


@click.command(
    "compile",
    epilog="Exit codes: 0 written (or --check: up to date), 1 errors in the input (nothing "
    "written) or --check found differences, 2 usage or internal error.",
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    metavar="DIR|-",
    help="Directory to write (one file per TrainJob plus kustomization.yaml), relative to the "
    "current directory, or - for one YAML stream on stdout (Argo CD). Default: compile.output "
    "of trainc.yaml, relative to the repository's root.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 when DIR differs from "
    "what would be written (for CI and pre-commit).",
)
@untracked_option
@jobs_option
@cache_options
@report_options
def compile_command(
    paths: tuple[Path, ...],
    *,
    output: str | None,
    check: bool,
    untracked: bool,
    jobs: int | None,
    cache: Store | None,
    report: ReportOptions,
) -> int:
    """Compile TrainJobs in PATHS (default: the repository) into Kubernetes manifests.

    Each TrainJob and its runtime become what the Trainer controller would create in the
    cluster: a JobSet, a PodGroup for gang scheduling, the PersistentVolumeClaims of its
    volume claim policies and the MPI hostfile ConfigMap, labelled as trainc's. Everything
    is validated first: with any error nothing is written. Output is byte-identical for
    identical input. Diagnostics go to stderr; stdout carries only manifests. The
    repository is found from PATHS as by validate, and - reads a YAML stream from the
    standard input.

    With PATHS, only their TrainJobs are compiled. Into the repository's compile.output
    that is an update: their files are replaced, every other TrainJob's file is kept as
    it is, and the sweeper still covers every namespace the directory deploys (--check
    compares the same way). Into another -o DIR, or -o -, the output is those TrainJobs
    alone. Without PATHS, in a git work tree, only the files git tracks are read (see
    --untracked).

    \b
    Examples:
      trainc compile -o rendered/             # write the tree, atomically
      trainc compile jobs/vision/yolo.yaml    # update one file's jobs in compile.output
      trainc compile -o rendered/ --check     # CI: fail when rendered/ is stale
      trainc compile -o -                     # Argo CD config-management plugin
      helm template x charts/x | trainc compile - -o -
    """
    if output == STDOUT and check:
        raise UsageError("--check compares a directory: use -o DIR with --check")
    inputs = split_inputs(paths)
    # -o is relative to the working directory, as every path on the command line is;
    # trainc.yaml's compile.output to the repository root.
    # Bytes, not text, on stdout: manifests are UTF-8 whatever the locale.
    directory = None if output in (None, STDOUT) else Path(output)
    sink: StreamOutput | DirectoryCheck | DirectoryOutput
    if output == STDOUT:
        sink = StreamOutput(sys.stdout.buffer)
    elif check:
        sink = DirectoryCheck(directory, inputs.paths)
    else:
        sink = DirectoryOutput(directory, inputs.paths, cache)
    with progress_line(sys.stderr, "compiling", enabled=not report.quiet) as progress:
        options = RunOptions(
            cwd=Path.cwd(),
            paths=inputs.paths,
            stdin=inputs.stdin,
            jobs=jobs,
            cache=cache,
            untracked=untracked,
            progress=progress,
            **report.repository,
        )
        result = Session(options).compile(sink)
    refresh = click.get_current_context().find_object(Refresh)
    if refresh is None:
        report.write(result.validation, result.diagnostics, sys.stderr, version=__version__)
    else:  # Argo CD's generate: what the report says is kept with the answer
        said = io.StringIO()
        report.write(result.validation, result.diagnostics, said, version=__version__)
        sys.stderr.write(said.getvalue())
        _keep_answer(refresh, cache, sink, result.validation, said.getvalue())
    say_untracked(result.validation, report)
    if result.exit_code:
        return result.exit_code
    if isinstance(sink, DirectoryCheck):
        kept = f"; {_kept(sink)} were not compared" if sink.kept else ""
        return report_check(
            sink.directory or Path(),
            sink.problems or [],
            fix=shlex.join(["trainc", "compile", *map(str, paths)]),
            current=None if report.quiet else f" ({counted(result.jobs, 'TrainJob')}{kept})",
        )
    if isinstance(sink, DirectoryOutput) and not report.quiet:
        kept = f"; {_kept(sink)} were kept as they were ({_WHOLE})" if sink.kept else ""
        click.echo(
            f"Compiled {counted(result.jobs, 'TrainJob')} into {sink.directory}{kept}.", err=True
        )
    return 0


def _keep_answer(
    refresh: Refresh, cache: Store | None, sink: object, run: ValidationReport, said: str
) -> None:
    """Keep what Argo CD's ``generate`` wrote when the compile reported nothing at all: a
    finding (a warning too) has lines to quote, and an untracked file left out a note."""
    written = sink.written if isinstance(sink, StreamOutput) else None
    if cache is not None and written is not None and not run.diagnostics and not run.untracked:
        refresh.keep(cache, Answer(written, said))


#: How to compile what a compile of some paths left alone.
_WHOLE = "`trainc compile` without paths compiles every TrainJob"


def _kept(sink: DirectoryCheck | DirectoryOutput) -> str:
    return f"the files of {counted(len(sink.kept), 'other TrainJob')}"
