"""The options of the commands that talk to a cluster (``sweep``, ``prune``)."""

from __future__ import annotations

from pathlib import Path

import click

kubeconfig_option = click.option(
    "--kubeconfig",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Kubeconfig file. Without --kubeconfig and --context the pod's service account is "
    "used (in-cluster); --context alone reads $KUBECONFIG or ~/.kube/config.",
)
context_option = click.option(
    "--context", metavar="NAME", help="Kubeconfig context (default: the current one)."
)
