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

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Final

from trainc.build.job import build_job
from trainc.cache.keys import digest
from trainc.checks.shared.whose import name_trainjob
from trainc.checks.workload.jsonfields import text
from trainc.checks.workload.version import KubeVersion, parse_version
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.load.documents import Document, finding_in
from trainc.load.inputs import find_inputs
from trainc.load.source import SourceFile
from trainc.model.json import FieldPath, JsonObject, format_path, get_path, held_prefix
from trainc.records import dataclass
from trainc.resolve.childjobs import ChildJob
from trainc.resolve.resolved import ResolvedJob

if TYPE_CHECKING:
    from trainc.checks.admission.cluster import ClusterObjects
    from trainc.checks.transitions.base import BaseRevision


#: trainc.yaml's setting that makes the output carry Namespaces.
_EMIT_NAMESPACES: Final = ("compile", "namespaces")


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
    namespaces: Collection[str] = (),
) -> RunCluster | None:
    """The run's cluster, or None without a ``cluster`` section (nothing imported).

    ``inputs`` are the sources the run read; a run on ``named`` paths also reads the
    repository's other input files, for the cluster's objects among them (a Namespace
    kept with the jobs), so that it judges against the cluster a whole run sees.
    ``namespaces`` are those of the run's TrainJobs: with ``compile.namespaces: Emit``
    the output carries a Namespace for each (and the sweeper's), which the cluster then
    holds with the labels trainc gives it.
    """
    if config.cluster is None:
        return None
    # Imported here: a repository without a cluster pays nothing for the admission code,
    # nor for building the sweeper and the Namespaces it judges.
    from trainc.build.namespaces import build_namespaces  # noqa: PLC0415
    from trainc.build.sweeper import build_sweeper  # noqa: PLC0415
    from trainc.checks.admission.cluster import read_cluster  # noqa: PLC0415

    others = _other_inputs(config, inputs) if named else {}
    every = {**others, **inputs}
    sweeper = build_sweeper(config, namespaces)
    emitted = build_namespaces(config, namespaces, sweeper)
    read = read_cluster(
        config,
        inputs=every,
        config_document=config_document,
        serves=_serves(config),
        emitted=emitted,
    )
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
            *_emitted_findings(config, read.objects, config_document),
            *_sweeper_findings(config, read.objects, sweeper, config_document),
        ),
    )


def _serves(config: RepoConfig) -> Callable[[str, str], bool]:
    """Whether the configured Kubernetes version serves a built-in kind, asked of its
    schemas only when a policy's paramKind needs it (kubernetes-validate loads lazily)."""
    from trainc.checks.output.objects import OutputCheck  # noqa: PLC0415

    return OutputCheck(config.kubernetes_version).serves


def _sweeper_findings(
    config: RepoConfig,
    cluster: ClusterObjects,
    sweeper: tuple[JsonObject, ...],
    document: Document | None,
) -> list[Diagnostic]:
    """The cluster's admission of the sweeper's objects, Jobs and pods, once per run, at
    the trainc.yaml setting behind the value at fault (:func:`sweeper_setting`), else at
    ``sweeper``; the hint names the setting."""
    from trainc.build.sweeper import sweeper_setting  # noqa: PLC0415
    from trainc.checks.admission.sweeper import SweeperInput, check_sweeper  # noqa: PLC0415

    def place(
        obj: JsonObject, path: FieldPath, code: str, message: str, hint: str | None
    ) -> Diagnostic:
        setting = sweeper_setting(obj, path)
        # A default's finding goes to the section of trainc.yaml that would hold it.
        written = held_prefix(document.data, setting) if document is not None else setting
        named = f"in trainc.yaml that is `{format_path(setting)}`" if len(setting) > 1 else ""
        return finding_in(
            document,
            config.config_file,
            written,
            code,
            message,
            hint="; ".join(part for part in (hint, named) if part) or None,
            section=written,
        )

    found = SweeperInput(
        sweeper, cluster, parse_version(config.kubernetes_version), place, config.namespace
    )
    return check_sweeper(found)


def _namespace_findings(cluster: ClusterObjects, inputs: tuple[Document, ...]) -> list[Diagnostic]:
    """What the policies say of the Namespaces among the inputs, which the GitOps tool
    applies: once per run, at their lines."""
    from trainc.checks.admission.policies.judge import check_namespace_objects  # noqa: PLC0415

    return check_namespace_objects(cluster, inputs)


def _emitted_findings(
    config: RepoConfig, cluster: ClusterObjects, document: Document | None
) -> list[Diagnostic]:
    """What the policies say of the Namespaces trainc emits, which the GitOps tool
    creates: once per run, at trainc.yaml's ``compile.namespaces`` (the setting that
    emits them), naming each. A Namespace the cluster's objects declare is the
    cluster's: judged as declared, not again."""
    from trainc.checks.admission.policies.judge import RunObject, check_run_objects  # noqa: PLC0415

    def place(path: FieldPath, code: str, message: str, hint: str | None) -> Diagnostic:
        return finding_in(
            document,
            config.config_file,
            _EMIT_NAMESPACES,
            code,
            f"{message} (at its {format_path(path) or 'metadata'})",
            hint=f"{hint}; or declare the Namespace among `cluster.manifests` with what the "
            "policy needs, or set `compile.namespaces: Omit`"
            if hint
            else None,
            section=_EMIT_NAMESPACES,
        )

    found = (
        RunObject(
            namespace,
            f"the Namespace {text(get_path(namespace, ('metadata', 'name'))) or ''!r}, "
            "emitted by trainc (compile.namespaces) and applied by the GitOps tool",
            place,
        )
        for namespace in cluster.emitted
    )
    return check_run_objects(cluster, found)


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
    job: ResolvedJob,
    cluster: RunCluster,
    release: KubeVersion,
    applied: Sequence[JsonObject],
    children: Sequence[ChildJob],
    *,
    through_trainer: bool,
    base: BaseRevision | None = None,
    deployed: ResolvedJob | None = None,
) -> list[Diagnostic]:
    """The cluster's admission of ``job``'s objects (``children``: its child Jobs, as the
    Job checks had them), each finding naming the TrainJob. ``through_trainer``: the
    GitOps tool applies the TrainJob and the Trainer controller creates the rest
    (``deploy: TrainJob``). With ``base`` (``--base``), what the GitOps tool applies
    over what it deployed there is an UPDATE (:func:`deployed_before`); ``deployed`` is
    the TrainJob resolved at the base (``BaseRevision.deployed``), which the caller
    resolves once and shares with the update checks."""
    from trainc.checks.admission.created import AdmissionInput  # noqa: PLC0415
    from trainc.checks.admission.judge import check_admission  # noqa: PLC0415

    found = AdmissionInput(
        job,
        cluster.objects,
        release,
        tuple(applied),
        children=tuple(children),
        through_trainer=through_trainer,
        before=deployed_before(base, job, deployed, through_trainer=through_trainer)
        if base
        else (),
    )
    return name_trainjob(job.trainjob, check_admission(found))


def deployed_before(
    base: BaseRevision, job: ResolvedJob, deployed: ResolvedJob | None, *, through_trainer: bool
) -> tuple[JsonObject, ...]:
    """What the GitOps tool applied for ``job``'s TrainJob at the base revision: the
    TrainJob as it was (``deploy: TrainJob``), else the objects trainc builds from
    ``deployed``, the TrainJob resolved there as the transition checks resolve it.
    Nothing when the TrainJob is new or did not resolve cleanly there (it deployed
    nothing)."""
    if through_trainer:
        previous = base.previous(job.trainjob)
        return (previous.data,) if previous is not None else ()
    return build_job(deployed).objects if deployed is not None else ()
