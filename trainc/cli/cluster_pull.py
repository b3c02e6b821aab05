"""``trainc cluster pull``: the cluster's admission-relevant objects, into the repository."""

from __future__ import annotations

from pathlib import Path

import click

from trainc.app import Session
from trainc.app.cluster import Cluster
from trainc.app.snapshot import SnapshotRequest
from trainc.cli.cluster import context_option, kubeconfig_option

EXIT_CLUSTER = 1


@click.group("cluster")
def cluster_group() -> None:
    """Read what the cluster itself holds into the repository.

    \b
    Example:
      trainc cluster pull --kubeconfig ~/.kube/prod -o platform/cluster
    """


@cluster_group.command(
    "pull",
    epilog="Exit codes: 0 written, or up to date; 1 the cluster could not be read (nothing "
    "written), or with --check the snapshot differs; 2 usage or configuration error.",
)
@kubeconfig_option
@context_option
@click.option(
    "-o",
    "--output",
    "output",
    required=True,
    metavar="DIR",
    type=click.Path(path_type=Path, file_okay=False),
    help="Directory of the snapshot; replaced as a whole, atomically.",
)
@click.option(
    "-n",
    "--namespace",
    "namespaces",
    multiple=True,
    metavar="NAME",
    help="Only these namespaces (repeatable): their Namespace objects and namespaced "
    "kinds. Cluster-scoped kinds, and policy parameters in the namespace a binding names, "
    "are always read. Default: every namespace.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 when DIR differs from the cluster, listing the files.",
)
def pull_command(
    *,
    kubeconfig: Path | None,
    context: str | None,
    output: Path,
    namespaces: tuple[str, ...],
    check: bool,
) -> int:
    """Write the cluster's admission-relevant objects into DIR, for a scheduled pull request.

    Reads, and only reads (discovery, list, get): Namespaces, LimitRanges,
    ResourceQuotas, PriorityClasses, admissionregistration.k8s.io/v1
    ValidatingAdmissionPolicies and their bindings, the parameter objects the bindings'
    paramRef names, and Kueue's ResourceFlavors, ClusterQueues, LocalQueues, Cohorts and
    WorkloadPriorityClasses (the newest version served, v1beta2 or v1beta1). A cluster
    without Kueue or without ValidatingAdmissionPolicies is no error: those kinds are
    skipped, and stderr says so.

    Each object is written without status and without what the server sets (uid,
    resourceVersion, generation, creationTimestamp, managedFields, ...), and without
    kubectl's last-applied-configuration annotation: one file per kind, in
    DIR/cluster/ for cluster-scoped kinds and DIR/namespaces/NAMESPACE/ for the others,
    objects sorted by name, keys sorted. An unchanged cluster writes the same bytes, so
    the snapshot changes only when the cluster does. DIR is replaced as a whole and
    atomically: a run that fails or is killed leaves the previous snapshot.

    The identity needs get and list on these resources (a read-only ClusterRole).

    \b
    Examples:
      trainc cluster pull --kubeconfig ~/.kube/prod -o platform/cluster
      trainc cluster pull --context prod -n team-a -n team-b -o platform/cluster
      trainc cluster pull -o platform/cluster --check     # in CI: is the snapshot current?
    """
    request = SnapshotRequest(output, namespaces, check)
    report = Session.pull_snapshot(Cluster(kubeconfig, context), request)
    if report.failure is not None:
        click.echo(f"trainc: error: {report.failure}", err=True)
        return EXIT_CLUSTER
    for note in report.notes:
        click.echo(f"trainc: note: {note}", err=True)
    if not report.differences:
        click.echo(f"{output} is up to date ({report.files} files).", err=True)
        return 0
    if report.written is None:
        click.echo(f"{output} differs from the cluster:", err=True)
        for difference in report.differences:
            click.echo(f"  {difference}", err=True)
        return EXIT_CLUSTER
    written = report.written
    click.echo(
        f"Wrote {output}: {len(written.changed)} files changed, {len(written.removed)} removed.",
        err=True,
    )
    return 0
