"""``trainc sweep``: enforce deadlines, TTLs and garbage collection in the cluster, as JSON lines.

Each record of :func:`trainc.sweep.sweep_pass.sweep` becomes one JSON line on stdout, and each
pass ends with a ``{"summary": ...}`` line; stdout holds nothing else (``docs/design.md``,
"Output streams").
The clock is read once per pass, here, and handed to the sweep.
"""

from __future__ import annotations

import json
import signal
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import FrameType

import click

from trainc.cli.cluster import context_option, kubeconfig_option
from trainc.sweep.calls import SweepLimits
from trainc.sweep.client import SweepClient, connect
from trainc.sweep.garbage import DEFAULT_GRACE
from trainc.sweep.sweep_pass import Outcome, sweep
from trainc.sweep.times import format_time

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
    client = connect(kubeconfig=kubeconfig, context=context, limits=SweepLimits())
    options = _PassOptions(namespaces, all_namespaces, dry_run, timedelta(seconds=grace))
    with _stop_on_signals() as stop:
        while True:
            code = _one_pass(client, options, stop)
            if once or stop.wait(interval):
                return code


@dataclass(frozen=True, slots=True)
class _PassOptions:
    """What each pass is asked to do."""

    namespaces: tuple[str, ...]
    all_namespaces: bool
    dry_run: bool
    grace: timedelta


def _one_pass(client: SweepClient, options: _PassOptions, stop: threading.Event) -> int:
    """Sweep once, writing each record and the summary; 1 when anything failed."""
    now = datetime.now(UTC)
    outcomes: Counter[str] = Counter({str(outcome): 0 for outcome in Outcome})
    actions: Counter[str] = Counter()
    records = sweep(
        client,
        namespaces=options.namespaces,
        all_namespaces=options.all_namespaces,
        now=now,
        dry_run=options.dry_run,
        grace=options.grace,
    )
    for record in records:
        click.echo(json.dumps(record.to_json()))
        outcomes[str(record.outcome)] += 1
        actions[record.action] += 1
        if stop.is_set():
            break
    summary = {
        "timestamp": format_time(now),
        "dryRun": options.dry_run,
        "outcomes": dict(sorted(outcomes.items())),
        "actions": dict(sorted(actions.items())),
        "calls": client.calls,
        "interrupted": stop.is_set(),
    }
    click.echo(json.dumps({"summary": summary}))
    return 1 if outcomes[Outcome.FAILED] else 0


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
