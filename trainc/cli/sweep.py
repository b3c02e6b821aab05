"""``trainc sweep``: enforce deadlines, TTLs and garbage collection in the cluster, as JSON lines.

Each record of a pass (:class:`trainc.app.sweep.SweepPass`) becomes one JSON line on
stdout, and each pass ends with a ``{"summary": ...}`` line; stdout holds nothing else
(``docs/design.md``, "Output streams"). SIGTERM and SIGINT end the pass after its
current action.
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from types import FrameType

import click

from trainc.app import Session
from trainc.app.cluster import Cluster
from trainc.app.sweep import Sweeper, SweepRequest
from trainc.cli.cluster import context_option, kubeconfig_option
from trainc.sweep.garbage import DEFAULT_GRACE

DEFAULT_INTERVAL = 300


@click.command(
    "sweep",
    epilog="Exit codes: 0 every action succeeded, 1 an action failed or the cluster could "
    "not be listed, 2 usage or configuration error.",
)
@click.option(
    "-n",
    "--namespace",
    "namespaces",
    metavar="NS",
    multiple=True,
    help="Namespace to sweep; repeat for several. Exclusive with --all-namespaces.",
)
@click.option(
    "-A", "--all-namespaces", is_flag=True, help="Sweep every namespace (needs a ClusterRole)."
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Change nothing (no patch, delete or Event); report what would be done.",
)
@click.option("--once", is_flag=True, help="One pass, then exit (what the CronJob runs).")
@click.option(
    "--interval",
    type=click.IntRange(min=1),
    default=DEFAULT_INTERVAL,
    show_default=True,
    metavar="SECONDS",
    help="Without --once: seconds between passes, until SIGTERM or SIGINT.",
)
@kubeconfig_option
@context_option
@click.option(
    "--grace",
    type=click.IntRange(min=0),
    default=int(DEFAULT_GRACE.total_seconds()),
    show_default=True,
    metavar="SECONDS",
    help="How long a PodGroup, claim or ConfigMap may wait for its JobSet before it counts "
    "as garbage (a GitOps sync applies them first).",
)
def sweep_command(
    *,
    namespaces: tuple[str, ...],
    all_namespaces: bool,
    dry_run: bool,
    once: bool,
    interval: int,
    kubeconfig: Path | None,
    context: str | None,
    grace: int,
) -> int:
    """Enforce the lifecycle of compiled TrainJobs in the cluster.

    Only objects labelled app.kubernetes.io/managed-by=trainc are considered. A JobSet past
    its active or progress deadline has its Jobs failed (reason DeadlineExceeded); a
    finished JobSet past its TTL loses its Jobs and pods, and the record names the
    TrainJob file to remove from git; PodGroups, claims and ConfigMaps whose JobSet is gone
    are deleted. The JobSets git declares are never edited or deleted, so GitOps
    self-heal cannot start a training again. Each action is one JSON line on stdout, and
    each change also an Event on its object; every pass ends with a summary line.

    \b
    Examples:
      trainc sweep -n ml-team --once               # one pass, in-cluster (the CronJob)
      trainc sweep -A --once --dry-run --kubeconfig ~/.kube/config
      trainc sweep -n team-a -n team-b             # every 5 minutes until SIGTERM
    """
    if bool(namespaces) == all_namespaces:
        raise click.UsageError("give --namespace NS (repeatable) or --all-namespaces, not both")
    request = SweepRequest(namespaces, all_namespaces, dry_run, timedelta(seconds=grace))
    sweeper = Session.sweep(Cluster(kubeconfig, context), request)
    with _stop_on_signals() as stop:
        while True:
            code = _one_pass(sweeper, stop)
            if once or stop.wait(interval):
                return code


def _one_pass(sweeper: Sweeper, stop: threading.Event) -> int:
    """Sweep once, writing each record and the summary; 1 when anything failed."""
    one = sweeper.start_pass()
    for record in one:
        click.echo(json.dumps(record.to_json()))
        if stop.is_set():
            break
    click.echo(json.dumps({"summary": one.summary(interrupted=stop.is_set())}))
    return 1 if one.failed else 0


@contextmanager
def _stop_on_signals() -> Iterator[threading.Event]:
    """An event set by SIGTERM or SIGINT, so a pass ends after its current action."""
    stop = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
