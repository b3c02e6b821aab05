"""The options of the commands that talk to a cluster (``sweep``, ``prune``).

How they pick the cluster is :mod:`trainc.sweep.kubeconfig`'s: kubectl's order.
"""

from __future__ import annotations

from pathlib import Path

import click

kubeconfig_option = click.option(
    "--kubeconfig",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Kubeconfig file. Without it, as kubectl: the files of $KUBECONFIG (merged), else "
    "~/.kube/config, else, in a pod, its service account.",
)
context_option = click.option(
    "--context", metavar="NAME", help="Kubeconfig context (default: the current one)."
)
