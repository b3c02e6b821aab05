"""``trainc explain``: the compiled manifests, each line with where its value came from."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from trainc import __version__
from trainc.app import RunOptions, Session
from trainc.cli.options import ReportOptions, report_options
from trainc.explain import render_explained, render_histories


@click.command(
    "explain",
    epilog="Exit codes: 0 explained, 1 errors in the input, 2 usage or internal error "
    "(e.g. --object or --field naming nothing).",
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--object",
    "object_name",
    metavar="KIND/NAME",
    help="Only this compiled object, e.g. JobSet/llama or PodGroup/llama.",
)
@click.option(
    "--field",
    metavar="PATH",
    help="Only this field, and the values it took: runtime, runtime patches, then the "
    "TrainJob override or plugin rule that set it. A path such as "
    "spec.replicatedJobs[node].template.spec.template.spec.containers[node].image, or its "
    "end: containers[node].image; [NAME] picks a list item by name.",
)
@report_options
def explain_command(
    paths: tuple[Path, ...],
    *,
    object_name: str | None,
    field: str | None,
    report: ReportOptions,
) -> int:
    """Show the manifests compile emits for PATHS, each line with its origin.

    Every line of each TrainJob's objects is followed by where its value came from: a
    line of the runtime (runtimes/torch.yaml:24), a TrainJob override (jobs/x.yaml:11),
    a runtime patch and its manager (patch example.com/team (jobs/x.yaml:20)), a plugin's
    rule (torch plugin: torchrun environment), a JobSet default, or trainc itself.
    Nothing is written; findings go to stderr.

    \b
    Examples:
      trainc explain jobs/llama.yaml
      trainc explain jobs/llama.yaml --object JobSet/llama
      trainc explain jobs/llama.yaml --field containers[node].image
      trainc explain jobs/llama.yaml --field env[PET_NNODES].value
    """
    options = RunOptions(cwd=Path.cwd(), paths=paths, **report.repository)
    result = Session(options).explain(object_name=object_name, field=field)
    report.write(result.validation, result.diagnostics, sys.stderr, version=__version__)
    text = render_histories(result.fields) if result.fields else render_explained(result.objects)
    sys.stdout.write(text)
    sys.stdout.flush()
    return result.exit_code
