"""``trainc migrate``: rewrite older spellings of the Trainer API into the current one."""

from __future__ import annotations

from pathlib import Path

import click

from trainc.app import RunOptions, Session
from trainc.app.migrate import MIGRATE_MANAGER, MigrateRequest, MigrationReport
from trainc.report.base import headline


@click.command(
    "migrate",
    epilog="Exit codes: 0 nothing left to migrate; 1 a file would change (without --write) "
    "or a finding was left for a person (listed on stderr); 2 usage or internal error.",
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--write",
    is_flag=True,
    help="Rewrite the files in place (atomically) instead of printing a diff.",
)
@click.option(
    "--manager",
    default=MIGRATE_MANAGER,
    show_default=True,
    metavar="NAME",
    help="runtimePatches manager (a domain-prefixed path you own) of the entry that "
    "podSpecOverrides, podTemplateOverrides, spec.labels and spec.annotations become.",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="trainc.yaml to use (default: found from the current directory up).",
)
def migrate_command(
    paths: tuple[Path, ...], *, write: bool, manager: str, config_file: Path | None
) -> int:
    """Rewrite older spellings in PATHS (default: the repository) into the current API.

    What `trainc validate` reports as migrate.* findings is rewritten as its hint says:
    the v2alpha1 apiVersion, datasetConfig/modelConfig, podSpecOverrides,
    podTemplateOverrides and spec.labels/annotations (into one runtimePatches entry),
    quoted trainer.numProcPerNode, and the fields runtimes lost. Comments, key order,
    quoting and indentation are kept; in a file of several documents only the ones
    that change are rewritten.

    Without --write, prints a unified diff and writes nothing. What cannot be rewritten
    safely (a value with no successor, a conflict with what the object holds, Jinja
    templates, JSON files) is left as is and listed on stderr with its finding.

    \b
    Examples:
      trainc migrate                        # diff of the whole repository
      trainc migrate jobs/llama.yaml        # one file
      trainc migrate --write                # rewrite in place
      trainc migrate --write --manager example.com/ml-platform
    """
    options = RunOptions(cwd=Path.cwd(), paths=paths, config_file=config_file)
    report = Session(options).migrate(MigrateRequest(manager, write))
    _print(report)
    return report.exit_code


def _print(report: MigrationReport) -> None:
    if not report.written:
        click.echo(report.diff(), nl=False)
    for diagnostic in report.diagnostics:
        click.echo(headline(diagnostic), err=True)
    for left in report.left:
        diagnostic = left.diagnostic
        click.echo(headline(diagnostic), err=True)
        if diagnostic.hint:
            click.echo(f"  = help: {diagnostic.hint}", err=True)
        click.echo(f"  = note: not rewritten: {left.reason}", err=True)
    changed = len(report.changed)
    verb = "rewritten" if report.written else "would be rewritten"
    summary = f"{changed} file{'' if changed == 1 else 's'} {verb}"
    if report.left:
        summary += f", {len(report.left)} finding{'' if len(report.left) == 1 else 's'} left as is"
    click.echo(f"{summary}.", err=True)
