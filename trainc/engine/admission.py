"""The cluster a run judges admission against, read once after loading.

A repository without a ``cluster`` section in trainc.yaml reads, parses and imports
nothing here: :func:`read_run_cluster` returns None and the job pass judges no admission.
With one, the cluster's objects are read (:func:`~trainc.checks.admission.cluster.read_cluster`)
from the ``cluster.manifests`` globs, always over the whole repository, whatever files a
run names (they are the cluster, not inputs), and from the objects of cluster kinds
among the inputs. The manifests are schema-checked as what they are: every kind
``kubernetes-validate`` knows for the configured Kubernetes version (Namespaces,
LimitRanges, ResourceQuotas, PriorityClasses, ConfigMaps,
ValidatingAdmissionPolicies and their bindings on releases that serve them); Kueue's
kinds and other custom resources have no schema there and are read as written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from trainc.cache.keys import digest
from trainc.checks.shared.whose import name_trainjob
from trainc.checks.workload.version import KubeVersion
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.load.documents import Document
from trainc.load.inputs import find_inputs
from trainc.load.source import SourceFile
from trainc.model.json import JsonObject
from trainc.records import dataclass
from trainc.resolve.resolved import ResolvedJob

if TYPE_CHECKING:
    from trainc.checks.admission.cluster import ClusterObjects


@dataclass(frozen=True, slots=True)
class RunCluster:
    """What a run with a ``cluster`` section read of the cluster.

    ``objects`` reach every worker (they are forked after this is read); ``digest``
    changes with any document they were read from, so a cached verdict does not survive
    a change of a LimitRange; ``sources`` are the manifests that are no inputs, for
    reporters to quote; ``diagnostics`` every finding about them.
    """

    objects: ClusterObjects
    digest: str
    sources: Mapping[str, SourceFile]
    diagnostics: tuple[Diagnostic, ...]


def read_run_cluster(
    config: RepoConfig,
    *,
    inputs: Mapping[str, SourceFile],
    config_document: Document | None,
    named: bool = False,
) -> RunCluster | None:
    """The run's cluster, or None without a ``cluster`` section (nothing imported).

    ``inputs`` are the sources the run read; a run on ``named`` paths also reads the
    repository's other input files, for the cluster's objects among them (a Namespace
    kept with the jobs), so that it judges against the cluster a whole run sees.
    """
    if config.cluster is None:
        return None
    # Imported here: a repository without a cluster pays nothing for the admission code.
    from trainc.checks.admission.cluster import read_cluster  # noqa: PLC0415

    others = _other_inputs(config, inputs) if named else {}
    every = {**others, **inputs}
    read = read_cluster(config, inputs=every, config_document=config_document)
    documents = (*read.manifests, *read.inputs)
    holding = {document.source.path for document in read.inputs}
    quoted = {path: source for path, source in others.items() if path in holding}
    texts = {document.source.path: document.source.text for document in documents}
    return RunCluster(
        read.objects,
        digest(part for path in sorted(texts) for part in (path, texts[path])),
        {**read.sources, **quoted},
        (
            *read.diagnostics,
            *_schema_findings(read.manifests, config.kubernetes_version),
            *_namespace_findings(read.objects, read.inputs),
        ),
    )


def _namespace_findings(cluster: ClusterObjects, inputs: tuple[Document, ...]) -> list[Diagnostic]:
    """What the policies say of the Namespaces among the inputs, which the GitOps tool
    applies: once per run, at their lines."""
    from trainc.checks.admission.policies.judge import check_namespace_objects  # noqa: PLC0415

    return check_namespace_objects(cluster, inputs)


def _other_inputs(config: RepoConfig, read: Mapping[str, SourceFile]) -> dict[str, SourceFile]:
    """The repository's input files a run on named paths did not read, each as text."""
    from trainc.load.cluster_files import read_cluster_file  # noqa: PLC0415

    found = find_inputs([config.root], config=config)
    others: dict[str, SourceFile] = {}
    for path in found.paths:
        if path in read:
            continue
        source = read_cluster_file(config.root, path, config.limits, config.template_values)
        if isinstance(source, SourceFile):
            others[path] = source
    return others


def _schema_findings(manifests: tuple[Document, ...], version: str) -> list[Diagnostic]:
    """The first schema violation of each manifest object of a kind kubernetes-validate
    knows, at its line, as ``cluster.invalid-object``."""
    from trainc.checks.admission.cluster import CLUSTER_INVALID_OBJECT  # noqa: PLC0415
    from trainc.checks.output.objects import OutputCheck  # noqa: PLC0415

    check = OutputCheck(version)
    found: list[Diagnostic] = []
    for document in manifests:
        data = document.data
        if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
            continue
        violation = check.core_violation(data)
        if violation is None:
            continue
        path, message = violation
        kind = data["kind"]
        found.append(
            document.finding(
                path,
                CLUSTER_INVALID_OBJECT.code,
                f"{kind} does not match the Kubernetes {version} schema of its kind: "
                f"{message}: the API server would refuse to store it",
                hint="correct the field as the kind's API reference describes it",
            )
        )
    return found


def judge_admission(
    job: ResolvedJob, cluster: RunCluster, release: KubeVersion, applied: Sequence[JsonObject]
) -> list[Diagnostic]:
    """The cluster's admission of ``job``'s objects, each finding naming the TrainJob."""
    from trainc.checks.admission.created import AdmissionInput  # noqa: PLC0415
    from trainc.checks.admission.judge import check_admission  # noqa: PLC0415

    found = AdmissionInput(job, cluster.objects, release, tuple(applied))
    return name_trainjob(job.trainjob, check_admission(found))
