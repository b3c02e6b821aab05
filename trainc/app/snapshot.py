"""``trainc cluster pull``: the cluster's admission-relevant objects, read into a snapshot
directory of the repository (:mod:`trainc.cluster.pull`), or compared with it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trainc.app.cluster import Cluster
from trainc.cluster.client import ClusterError, connect
from trainc.cluster.pull import pull
from trainc.emit.writer import WriteResult, check_tree, write_tree


@dataclass(frozen=True, slots=True)
class SnapshotRequest:
    """Which ``namespaces`` (none: every one) go into ``directory``; with ``check``,
    nothing is written and the snapshot is only compared with the cluster."""

    directory: Path
    namespaces: tuple[str, ...] = ()
    check: bool = False


@dataclass(frozen=True, slots=True)
class SnapshotReport:
    """What a pull found: the kinds it skipped and why (``notes``), how many files the
    snapshot holds, and how the directory differs from it (``differences``: none, it is
    up to date); ``written`` when it was replaced; ``failure`` when the cluster could not
    be read (nothing else is then set)."""

    notes: tuple[str, ...] = ()
    files: int = 0
    differences: tuple[str, ...] = ()
    written: WriteResult | None = None
    failure: str | None = None


def pull_snapshot(cluster: Cluster, request: SnapshotRequest) -> SnapshotReport:
    """Read the cluster (discovery, list and get only) and write the snapshot into
    ``request.directory``, as a whole and atomically, when it differs and ``check`` is
    not set."""
    reader = connect(kubeconfig=cluster.kubeconfig, context=cluster.context)
    try:
        pulled = pull(reader, request.namespaces)
    except ClusterError as error:
        return SnapshotReport(failure=str(error))
    notes, files = tuple(pulled.notes), len(pulled.files)
    differences = tuple(check_tree(request.directory, pulled.files))
    if not differences or request.check:
        return SnapshotReport(notes, files, differences)
    written = write_tree(request.directory, pulled.files)
    return SnapshotReport(notes, files, differences, written)
