"""``trainc schemas``: regenerate the CRDs and JSON Schemas, or check they are current."""

from __future__ import annotations

from pathlib import Path

import click

from trainc.app import check_schemas, write_schemas
from trainc.cli.staleness import report_check
from trainc.diagnostics import counted
from trainc.errors import os_errors_as_usage


@click.command("schemas")
@click.option(
    "-o",
    "--output",
    "directory",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("schemas"),
    show_default=True,
    help="Directory to write to.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 if the directory is not "
    "exactly what would be written (for CI and pre-commit).",
)
def schemas_command(*, directory: Path, check: bool) -> int:
    """Generate CRDs and JSON Schemas for TrainJob, TrainingRuntime, ClusterTrainingRuntime.

    The CRDs (apiextensions.k8s.io/v1, with defaults and CEL validation rules) go to
    DIR/crds/; JSON Schemas for editors (yaml-language-server) and kubeconform go to
    DIR/jsonschema/<group>/<kind>_<version>.json, along with schemas for trainc.yaml
    and policy files.

    \b
    Examples:
      trainc schemas                  # regenerate ./schemas
      trainc schemas --check          # fail when ./schemas is stale
      trainc schemas -o /tmp/schemas  # for an editor setup
    """
    if check:
        with os_errors_as_usage("check", directory):
            problems = check_schemas(directory)
        return report_check(directory, problems, fix="trainc schemas", current="")
    with os_errors_as_usage("write", directory):
        changes = write_schemas(directory)
    for change in changes:
        click.echo(f"{directory}: {change}", err=True)
    changed = counted(len(changes), "file") if changes else "no files"
    click.echo(f"{directory}: {changed} changed.", err=True)
    return 0
