"""``trainc compile``: TrainJobs and runtimes → the manifests the Trainer controller would make."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from trainc import __version__
from trainc.api import CompileReport, compile_paths
from trainc.cli.options import ReportOptions, report_options
from trainc.cli.progress import progress_line
from trainc.emit.writer import check_tree, validate_output_location, write_tree
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
    help="Directory to write (one file per TrainJob plus kustomization.yaml), or - for one "
    "YAML stream on stdout (Argo CD). Default: compile.output of trainc.yaml.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 when DIR differs from "
    "what would be written (for CI and pre-commit).",
)
@report_options
def compile_command(
    paths: tuple[Path, ...], *, output: str | None, check: bool, report: ReportOptions
) -> int:
    """Compile TrainJobs in PATHS (default: the repository) into Kubernetes manifests.

    Each TrainJob and its runtime become what the Trainer controller would create in the
    cluster: a JobSet, a PodGroup for gang scheduling, the PersistentVolumeClaims of its
    volume claim policies and the MPI hostfile ConfigMap, labelled as trainc's. Everything
    is validated first: with any error nothing is written. Output is byte-identical for
    identical input. Diagnostics go to stderr; stdout carries only manifests.

    \b
    Examples:
      trainc compile -o rendered/             # write the tree, atomically
      trainc compile -o rendered/ --check     # CI: fail when rendered/ is stale
      trainc compile -o -                     # Argo CD config-management plugin
    """
    with progress_line(sys.stderr, "compiling", enabled=not report.quiet) as progress:
        result = compile_paths(
            list(paths),
            cwd=Path.cwd(),
            config_file=report.config_file,
            environment=report.environment,
            overrides=report.overrides,
            progress=progress,
        )
    report.write(result.validation, result.diagnostics, sys.stderr, version=__version__)
    if result.exit_code:
        return result.exit_code
    if output == STDOUT:
        if check:
            raise UsageError("--check compares a directory: use -o DIR with --check")
        # Bytes, not text: manifests are UTF-8 whatever the locale or PYTHONIOENCODING.
        sys.stdout.buffer.write(result.stream.encode())
        sys.stdout.buffer.flush()
        return 0
    # -o is relative to the working directory, trainc.yaml's compile.output to the root.
    target = Path(output) if output is not None else result.output_directory
    if target is None:
        raise UsageError("choose where the manifests go: -o DIR, or -o - for stdout")
    return _to_directory(target, result, paths, check=check)


def _to_directory(
    directory: Path, result: CompileReport, paths: tuple[Path, ...], *, check: bool
) -> int:
    root = result.root or Path.cwd()
    validate_output_location(directory, list(paths) or [root], root)
    if check:
        problems = check_tree(directory, result.files)
        for problem in problems:
            click.echo(f"{directory}: {problem}", err=True)
        if problems:
            click.echo("Run `trainc compile` to update it.", err=True)
            return 1
        click.echo(f"{directory} is up to date ({len(result.jobs)} TrainJobs).", err=True)
        return 0
    write_tree(directory, result.files)
    click.echo(f"Compiled {len(result.jobs)} TrainJobs into {directory}.", err=True)
    return 0
