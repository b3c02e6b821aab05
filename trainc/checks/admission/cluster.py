"""The cluster a run judges admission against: its objects and settings, read once.

Each admission family reads the cluster through its own parser: Pod Security from a
Namespace's labels (:func:`~.pod_security.policy_from_labels`), policies and their
parameters (:func:`.policies.cluster_from_objects`), LimitRanges
(:func:`~.limit_ranges.limit_range_from_json`), ResourceQuotas
(:func:`~.resource_quotas.quota_from_json`), Kueue's queues and flavors
(:func:`.kueue.cluster_from_objects`). This module gathers the documents of trainc.yaml's
``cluster.manifests`` and the objects of the same kinds among the inputs (see
:mod:`trainc.load.cluster_files`) into one immutable :class:`ClusterObjects` per run, built
by those parsers, with the ``cluster`` section's Pod Security defaults and exemptions and
its identities of who creates what.

What the API server would refuse to store is reported as ``cluster.invalid-object`` at
its line, and left out, since the cluster cannot hold it: an object without a name, a
Namespace whose Pod Security labels the PodSecurity plugin refuses (in its words,
``namespace_refusal``), an amount that is no quantity in a LimitRange or ResourceQuota,
and a second, different object of the same kind, namespace and name (the first wins).

Namespaced objects written without a namespace are placed in the run's default
namespace, as ``kubectl apply`` and Argo CD place them. A repository without a
``cluster`` section gets :data:`EMPTY`, built from nothing. :func:`read_cluster` is the
one call a run makes, once its inputs are loaded: it finds and reads the manifests,
checks the section, and builds the value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

from trainc.checks.admission.kueue import Cluster as KueueCluster
from trainc.checks.admission.kueue import cluster_from_objects as kueue_cluster
from trainc.checks.admission.limit_ranges import LimitRange, limit_range_from_json
from trainc.checks.admission.limit_ranges import ordered as ordered_limit_ranges
from trainc.checks.admission.pod_security import (
    Exemptions,
    LevelVersion,
    NamespacePolicy,
    exempt_namespace_warning,
    namespace_refusal,
    parse_level,
    parse_version,
    policy_from_labels,
)
from trainc.checks.admission.policies import Cluster as PolicyCluster
from trainc.checks.admission.policies import UserInfo, resource_for
from trainc.checks.admission.policies import cluster_from_objects as policy_cluster
from trainc.checks.admission.policies.configuration import (
    VAP_MISCONFIGURED,
    misconfigurations,
    unserved_param_kinds,
)
from trainc.checks.admission.resource_quotas import Quota, quota_from_json
from trainc.checks.admission.resource_quotas import ordered as ordered_quotas
from trainc.checks.workload.jsonfields import integer, objects, text
from trainc.checks.workload.version import KubeVersion, read_version
from trainc.config.cluster import check_cluster
from trainc.config.settings import (
    ClusterSettings,
    Identity,
    LimitedResource,
    PodSecurityDefaults,
    RepoConfig,
)
from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity, sort_diagnostics
from trainc.load.cluster_files import (
    CLUSTER_KINDS,
    ClusterDocuments,
    cluster_documents,
    find_cluster_files,
    param_kinds,
    read_cluster_file,
)
from trainc.load.documents import Document
from trainc.load.source import SourceFile
from trainc.model.json import FieldPath, JsonObject, as_object, get_path
from trainc.resolve.quantity import QuantityError, parse_quantity

CLUSTER_INVALID_OBJECT = Rule(
    "cluster.invalid-object",
    Severity.ERROR,
    "an object of the cluster's manifests that the API server would refuse to store",
    doc=RuleDoc(
        what=(
            "an object among `cluster.manifests` (or of a cluster kind among the inputs) "
            "the API server would refuse: no `metadata.name`, a Namespace's Pod Security "
            "label the PodSecurity plugin refuses, an amount of a LimitRange or "
            "ResourceQuota that is no quantity, or a different object of the same kind, "
            "namespace and name. It is left out of every admission check"
        ),
        fix="correct the object; declare each object once",
    ),
)

CLUSTER_UNREAD_VERSION = Rule(
    "cluster.unread-version",
    Severity.WARNING,
    "a policy or binding under an API version trainc does not judge, so it is not applied",
    doc=RuleDoc(
        what=(
            "a ValidatingAdmissionPolicy or ValidatingAdmissionPolicyBinding under "
            "`admissionregistration.k8s.io/v1beta1` or `v1alpha1`: trainc judges the `v1` "
            "objects only, and says so rather than pass what the policy would refuse"
        ),
        fix=(
            "write the object as `admissionregistration.k8s.io/v1` (GA since Kubernetes "
            "1.30), as `trainc cluster pull` reads it"
        ),
    ),
)

PSA_EXEMPT_NAMESPACE = Rule(
    "psa.exempt-namespace",
    Severity.WARNING,
    "Pod Security labels on a namespace the PodSecurity plugin exempts",
    doc=RuleDoc(
        what=(
            "a Namespace listed in `cluster.podSecurity.exemptions.namespaces` carries "
            "`pod-security.kubernetes.io/*` labels that set a level: the plugin ignores "
            "them, and the API server warns so when the Namespace is created or relabelled"
        ),
        fix=(
            "remove the labels, or the namespace from the exemptions if its pods are "
            "meant to be judged"
        ),
        source=(
            "https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/"
            "pod-security-admission/admission/admission.go"
        ),
    ),
)

V1: Final = "v1"
NAMESPACE: Final = "Namespace"
LIMIT_RANGE: Final = "LimitRange"
RESOURCE_QUOTA: Final = "ResourceQuota"
PRIORITY_CLASS: Final = "PriorityClass"
PRIORITY_CLASS_API_VERSION: Final = "scheduling.k8s.io/v1"
_POLICY_API_VERSION: Final = "admissionregistration.k8s.io/v1"
_POLICY_KINDS: Final = frozenset({"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"})
KUEUE_GROUP: Final = "kueue.x-k8s.io"
#: Kinds of Kueue's group that are namespaced (the rest are cluster-scoped).
_KUEUE_NAMESPACED: Final = frozenset({"LocalQueue", "Workload"})
#: The prefix of the Pod Security labels of a Namespace.
_POD_SECURITY_LABELS: Final = "pod-security.kubernetes.io/"
#: Where a LimitRange item and a ResourceQuota hold amounts.
_LIMIT_KEYS: Final = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")
#: A PriorityClass's ``preemptionPolicy`` when unset (``SetDefaults_PriorityClass``).
PREEMPT_LOWER_PRIORITY: Final = "PreemptLowerPriority"


@dataclass(frozen=True, slots=True)
class PriorityClass:
    """A ``scheduling.k8s.io/v1`` PriorityClass: the priority pods naming it get."""

    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = PREEMPT_LOWER_PRIORITY


def priority_class_from_json(obj: JsonObject) -> PriorityClass:
    """A PriorityClass manifest, with the API server's default ``preemptionPolicy``."""
    return PriorityClass(
        name=text(as_object(obj.get("metadata")).get("name")) or "",
        value=integer(obj.get("value")) or 0,
        global_default=obj.get("globalDefault") is True,
        preemption_policy=text(obj.get("preemptionPolicy")) or PREEMPT_LOWER_PRIORITY,
    )


@dataclass(frozen=True, slots=True)
class Creators:
    """Who sends each request a TrainJob leads to, as ``request.userInfo`` shows it."""

    gitops: UserInfo
    jobset_controller: UserInfo
    job_controller: UserInfo
    cronjob_controller: UserInfo
    trainer_controller: UserInfo


def _user(identity: Identity) -> UserInfo:
    return UserInfo(identity.username, groups=identity.groups)


def creators_of(settings: ClusterSettings) -> Creators:
    """The identities of the ``cluster`` section, as ``request.userInfo`` shows them."""
    return Creators(
        _user(settings.gitops),
        _user(settings.jobset_controller),
        _user(settings.job_controller),
        _user(settings.cronjob_controller),
        _user(settings.trainer_controller),
    )


def _default_creators() -> Creators:
    return creators_of(ClusterSettings())


def _empty_policies() -> PolicyCluster:
    return PolicyCluster((), ())


@dataclass(frozen=True, slots=True)
class ClusterObjects:
    """The cluster's objects and admission settings, as the admission families read them.

    ``configured`` is False without a ``cluster`` section (then everything is empty).
    ``namespaces`` maps each Namespace the repository declares to its labels, and
    ``pod_security`` to its Pod Security policy; a namespace not declared gets
    ``pod_security_defaults`` (:meth:`pod_security_for`). ``limit_ranges`` and
    ``quotas`` are by namespace, in the order the checks apply them. ``kueue`` is built
    once and must not be changed. ``limited`` is the ResourceQuota plugin's
    ``limitedResources``. ``places`` keeps where each object is written, by kind,
    namespace and name, so that a finding caused by a cluster object can name its line.
    ``findings`` are the objects refused.
    """

    configured: bool = False
    namespaces: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    pod_security: Mapping[str, NamespacePolicy] = field(default_factory=dict)
    pod_security_defaults: NamespacePolicy = field(default_factory=NamespacePolicy)
    exemptions: Exemptions = field(default_factory=Exemptions)
    policies: PolicyCluster = field(default_factory=_empty_policies)
    limit_ranges: Mapping[str, tuple[LimitRange, ...]] = field(default_factory=dict)
    quotas: Mapping[str, tuple[Quota, ...]] = field(default_factory=dict)
    priority_classes: Mapping[str, PriorityClass] = field(default_factory=dict)
    kueue: KueueCluster = field(default_factory=KueueCluster)
    creators: Creators = field(default_factory=_default_creators)
    limited: tuple[LimitedResource, ...] = ()
    places: Mapping[tuple[str, str, str], tuple[Document, FieldPath]] = field(default_factory=dict)
    findings: tuple[Diagnostic, ...] = ()
    emitted: tuple[JsonObject, ...] = ()
    """The Namespaces trainc's output carries that no declared Namespace overrides: the
    GitOps tool creates them as trainc builds them."""

    def pod_security_for(self, namespace: str) -> NamespacePolicy:
        """The Pod Security policy pods in ``namespace`` are judged by."""
        return self.pod_security.get(namespace, self.pod_security_defaults)

    def written(self, kind: str, name: str, namespace: str = "") -> JsonObject | None:
        """The object of ``kind`` and ``name`` as its manifest writes it; None if unknown."""
        place = self.places.get((kind, namespace, name))
        return None if place is None else as_object(get_path(place[0].data, place[1]))

    def line_of(self, kind: str, name: str, path: FieldPath = (), namespace: str = "") -> str:
        """``FILE:LINE`` of ``path`` in the manifest of an object (the nearest node that is
        written), so a finding can point at the cluster's line; "" when unknown."""
        place = self.places.get((kind, namespace, name))
        if place is None:
            return ""
        document, at = place
        return f"{document.source.path}:{document.locate((*at, *path)).line}"

    @property
    def empty(self) -> bool:
        """True when the cluster holds no object trainc read."""
        return not (
            self.namespaces
            or self.policies.policies
            or self.policies.bindings
            or self.limit_ranges
            or self.quotas
            or self.priority_classes
            or self.kueue.cluster_queues
            or self.kueue.local_queues
            or self.kueue.flavors
            or self.kueue.cohorts
            or self.kueue.priority_classes
        )


#: The cluster of a repository without a ``cluster`` section.
EMPTY: Final = ClusterObjects()


@dataclass(frozen=True, slots=True)
class _Found:
    """One object of a document: its JSON (namespace filled in), where it is written."""

    obj: JsonObject
    document: Document
    at: FieldPath

    @property
    def api_version(self) -> str:
        return text(self.obj.get("apiVersion")) or ""

    @property
    def kind(self) -> str:
        return text(self.obj.get("kind")) or ""

    @property
    def metadata(self) -> JsonObject:
        return as_object(self.obj.get("metadata"))

    @property
    def name(self) -> str:
        return text(self.metadata.get("name")) or ""

    @property
    def namespace(self) -> str:
        return text(self.metadata.get("namespace")) or ""

    def finding(self, path: FieldPath, message: str, *, hint: str) -> Diagnostic:
        return self.document.finding(
            (*self.at, *path), CLUSTER_INVALID_OBJECT.code, message, hint=hint
        )


def pod_security_defaults(written: PodSecurityDefaults) -> NamespacePolicy:
    """The plugin's defaults as a policy (levels and versions the schema checked)."""

    def mode(level: str, version: str) -> LevelVersion:
        return LevelVersion(parse_level(level)[0], parse_version(version)[0])

    return NamespacePolicy(
        enforce=mode(written.enforce, written.enforce_version),
        audit=mode(written.audit, written.audit_version),
        warn=mode(written.warn, written.warn_version),
    )


def cluster_objects(
    settings: ClusterSettings | None,
    documents: ClusterDocuments | None,
    *,
    default_namespace: str,
    release: KubeVersion | None = None,
    serves: Callable[[str, str], bool] | None = None,
    emitted: Iterable[JsonObject] = (),
) -> ClusterObjects:
    """The run's :class:`ClusterObjects` from trainc.yaml's ``cluster`` settings and the
    documents :func:`~trainc.load.cluster_files.cluster_documents` gathered.

    Every object of the manifests is taken (any of them may be a policy's parameter);
    of the inputs, only objects of the cluster kinds and of the parameter kinds of the
    policies, wherever those are kept. ``release`` is the cluster's Kubernetes release
    (None: the newest trainc knows), whose CEL libraries its policies may call.
    ``emitted`` are the Namespaces trainc's output carries (``compile.namespaces:
    Emit``): the GitOps tool applies them, so the cluster holds them with their labels,
    unless a Namespace of the same name is declared (the cluster's own wins). Without
    ``settings`` the cluster is unknown: :data:`EMPTY`, nothing read.
    """
    if settings is None:
        return EMPTY
    documents = documents or ClusterDocuments()
    manifests = list(_objects(documents.manifests, default_namespace))
    wanted = CLUSTER_KINDS | frozenset(param_kinds((*documents.manifests, *documents.inputs)))
    from_inputs = [
        found for found in _objects(documents.inputs, default_namespace) if found.kind in wanted
    ]
    findings: list[Diagnostic] = []
    kept = _distinct([*manifests, *from_inputs], findings)
    kept = [found for found in kept if _valid(found, findings)]
    findings.extend(_unread_versions(kept))
    every = [found.obj for found in kept]
    unserved = unserved_param_kinds(every, serves) if serves is not None else frozenset()
    findings.extend(_misconfigured(kept, unserved, release))
    defaults = pod_security_defaults(settings.pod_security_defaults)
    namespaces: dict[str, Mapping[str, str]] = {}
    pod_security: dict[str, NamespacePolicy] = {}
    limit_ranges: dict[str, list[LimitRange]] = {}
    quotas: dict[str, list[Quota]] = {}
    priority_classes: dict[str, PriorityClass] = {}
    for found in kept:
        key = (found.api_version, found.kind)
        if key == (V1, NAMESPACE):
            labels = _labels(found.metadata)
            if found.name in settings.pod_security_exemptions.namespaces:
                findings.extend(_exempt_warning(found, labels, defaults))
            namespaces[found.name] = MappingProxyType(labels)
            pod_security[found.name] = policy_from_labels(labels, defaults)
        elif key == (V1, LIMIT_RANGE):
            limit_ranges.setdefault(found.namespace, []).append(limit_range_from_json(found.obj))
        elif key == (V1, RESOURCE_QUOTA):
            quotas.setdefault(found.namespace, []).append(quota_from_json(found.obj))
        elif key == (PRIORITY_CLASS_API_VERSION, PRIORITY_CLASS):
            priority_classes[found.name] = priority_class_from_json(found.obj)
    created: list[JsonObject] = []
    for namespace in emitted:
        name = text(as_object(namespace.get("metadata")).get("name")) or ""
        if name and name not in namespaces:
            labels = _labels(as_object(namespace.get("metadata")))
            namespaces[name] = MappingProxyType(labels)
            pod_security[name] = policy_from_labels(labels, defaults)
            created.append(namespace)
    every.extend(created)
    exempt = settings.pod_security_exemptions
    return ClusterObjects(
        configured=True,
        namespaces=MappingProxyType(namespaces),
        pod_security=MappingProxyType(pod_security),
        pod_security_defaults=defaults,
        exemptions=Exemptions(
            usernames=frozenset(exempt.usernames),
            namespaces=frozenset(exempt.namespaces),
            runtime_classes=frozenset(exempt.runtime_classes),
        ),
        policies=policy_cluster(every, release, unserved=unserved),
        limit_ranges=MappingProxyType(
            {ns: tuple(ordered_limit_ranges(items)) for ns, items in sorted(limit_ranges.items())}
        ),
        quotas=MappingProxyType(
            {ns: tuple(ordered_quotas(items)) for ns, items in sorted(quotas.items())}
        ),
        priority_classes=MappingProxyType(priority_classes),
        kueue=kueue_cluster(every),
        creators=creators_of(settings),
        limited=settings.limited_resources,
        places=MappingProxyType(
            {
                (found.kind, found.namespace, found.name): (found.document, found.at)
                for found in kept
            }
        ),
        findings=sort_diagnostics(findings),
        emitted=tuple(created),
    )


def _exempt_warning(
    found: _Found, labels: dict[str, str], defaults: NamespacePolicy
) -> Iterator[Diagnostic]:
    """The API server's warning on labelling a namespace the plugin exempts, at its
    first Pod Security label."""
    said = exempt_namespace_warning(found.name, labels, defaults)
    if said is None:
        return
    label = next(key for key in labels if key.startswith(_POD_SECURITY_LABELS))
    yield found.document.finding(
        (*found.at, "metadata", "labels", label),
        PSA_EXEMPT_NAMESPACE.code,
        f"Namespace {found.name!r}: {said}",
        hint="remove the Pod Security labels, or the namespace from "
        "cluster.podSecurity.exemptions.namespaces",
    )


def _objects(documents: Iterable[Document], default_namespace: str) -> Iterator[_Found]:
    """The objects of ``documents``, a ``List``'s items one by one, namespaces filled in."""
    for document in documents:
        data = document.data
        if not isinstance(data, dict):
            continue
        kind = text(data.get("kind")) or ""
        if kind.endswith("List") and isinstance(data.get("items"), list):
            for index, item in objects(data.get("items")):
                yield _Found(_placed(item, default_namespace), document, ("items", index))
        elif kind:
            yield _Found(_placed(data, default_namespace), document, ())


def _namespaced(api_version: str, kind: str) -> bool:
    """Whether objects of this kind live in a namespace (unknown kinds: as written)."""
    known = resource_for(api_version, kind)
    if known is not None:
        return known.namespaced
    if api_version.startswith(KUEUE_GROUP + "/"):
        return kind in _KUEUE_NAMESPACED
    return False


def _placed(obj: JsonObject, default_namespace: str) -> JsonObject:
    """``obj`` with the run's default namespace when it is namespaced and names none."""
    metadata = as_object(obj.get("metadata"))
    api_version, kind = text(obj.get("apiVersion")) or "", text(obj.get("kind")) or ""
    if text(metadata.get("namespace")) or not _namespaced(api_version, kind):
        return obj
    return {**obj, "metadata": {**metadata, "namespace": default_namespace}}


#: What the API server keys a stored object by: API group, kind, namespace, name.
StoredKey = tuple[str, str, str, str]


def object_identity(obj: JsonObject) -> StoredKey:
    """The API group, kind, namespace and name of ``obj``: two objects with the same
    identity are one object of the cluster (the version is only how it is read)."""
    metadata = as_object(obj.get("metadata"))
    return (
        (text(obj.get("apiVersion")) or "").rpartition("/")[0],
        text(obj.get("kind")) or "",
        text(metadata.get("namespace")) or "",
        text(metadata.get("name")) or "",
    )


def _distinct(found: list[_Found], findings: list[Diagnostic]) -> list[_Found]:
    """The objects, each declared once: a repeat that differs is refused, an identical
    repeat (the same Namespace in the inputs and the platform directory) is dropped."""
    first: dict[StoredKey, _Found] = {}
    kept = []
    for item in found:
        key = object_identity(item.obj)
        if not item.name:
            kept.append(item)
            continue
        earlier = first.setdefault(key, item)
        if earlier is item:
            kept.append(item)
        elif earlier.obj != item.obj:
            where = earlier.document.locate((*earlier.at, "metadata", "name"))
            findings.append(
                item.finding(
                    ("metadata", "name"),
                    f"{item.kind} {item.name!r} is already declared at "
                    f"{earlier.document.source.path}:{where.line} with other content: the "
                    "cluster holds one of them, and trainc judges with the first",
                    hint="declare each object once",
                )
            )
    return kept


def _valid(found: _Found, findings: list[Diagnostic]) -> bool:
    """Whether the API server would store ``found``; each reason is added to ``findings``."""
    if not found.name:
        findings.append(
            found.finding(
                ("metadata",),
                f"{found.kind} without a name: metadata.name: Required value: name or "
                "generateName is required",
                hint="name the object (metadata.name)",
            )
        )
        return False
    problems = [*_label_problems(found), *_quantity_problems(found)]
    findings.extend(problems)
    return not problems


def _unread_versions(kept: Iterable[_Found]) -> Iterator[Diagnostic]:
    """Policies and bindings under an older version: the policies family reads ``v1``
    only, and a policy left out in silence would pass what the cluster refuses."""
    for found in kept:
        if found.kind in _POLICY_KINDS and found.api_version != _POLICY_API_VERSION:
            yield found.document.finding(
                (*found.at, "apiVersion"),
                CLUSTER_UNREAD_VERSION.code,
                f"{found.kind} {found.name!r} is under {found.api_version}, which trainc does "
                "not judge: it is not applied to any object",
                hint=f"write it as {_POLICY_API_VERSION}",
            )


def _misconfigured(
    kept: list[_Found], unserved: frozenset[tuple[str, str]], release: KubeVersion | None
) -> Iterator[Diagnostic]:
    """The policies and bindings the API server cannot apply as written, at their lines."""
    policies = [found for found in kept if found.api_version == _POLICY_API_VERSION]
    placed = {id(found.obj): found for found in policies}
    for problem in misconfigurations((found.obj for found in policies), unserved, release):
        found = placed[id(problem.obj)]
        yield found.document.finding(
            (*found.at, *problem.path), VAP_MISCONFIGURED.code, problem.message, hint=problem.hint
        )


def _labels(metadata: JsonObject) -> dict[str, str]:
    labels = as_object(metadata.get("labels"))
    return {key: value for key, value in labels.items() if isinstance(value, str)}


def _label_problems(found: _Found) -> list[Diagnostic]:
    """A Namespace's Pod Security labels, as the PodSecurity plugin refuses them."""
    if (found.api_version, found.kind) != (V1, NAMESPACE):
        return []
    errors = policy_from_labels(_labels(found.metadata)).errors
    refusal = namespace_refusal(found.name, errors)
    if refusal is None:
        return []
    return [
        found.finding(
            ("metadata", "labels", errors[0].label),
            refusal,
            hint="use a level of privileged, baseline or restricted, and a version "
            '"latest" or "v1.N"',
        )
    ]


def _quantity_problems(found: _Found) -> Iterator[Diagnostic]:
    """Amounts of a LimitRange or ResourceQuota that are no quantity: not decodable."""
    spec = as_object(found.obj.get("spec"))
    places: list[tuple[FieldPath, JsonObject]] = []
    if (found.api_version, found.kind) == (V1, LIMIT_RANGE):
        for index, item in objects(spec.get("limits")):
            places.extend(
                (("spec", "limits", index, key), as_object(item.get(key))) for key in _LIMIT_KEYS
            )
    elif (found.api_version, found.kind) == (V1, RESOURCE_QUOTA):
        places.append((("spec", "hard"), as_object(spec.get("hard"))))
    for path, amounts in places:
        for resource, value in amounts.items():
            try:
                parse_quantity(value)
            except QuantityError as error:
                yield found.finding(
                    (*path, resource),
                    f"{found.kind} {found.name!r}: {error}: the API server cannot decode it",
                    hint="write an amount such as 500m, 4Gi or 2",
                )


@dataclass(frozen=True, slots=True)
class ClusterRead:
    """What reading the cluster gave a run: its objects, the sources read that were no
    inputs (for reporters to quote), and every finding: the ``cluster`` section's, the
    files', the objects'. ``manifests`` and ``inputs`` are the documents the objects
    were read from (for the schema check and the digest of a run's cache)."""

    objects: ClusterObjects = EMPTY
    sources: Mapping[str, SourceFile] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()
    manifests: tuple[Document, ...] = ()
    inputs: tuple[Document, ...] = ()


def read_cluster(
    config: RepoConfig,
    *,
    inputs: Mapping[str, SourceFile],
    config_document: Document | None = None,
    serves: Callable[[str, str], bool] | None = None,
    emitted: Iterable[JsonObject] = (),
) -> ClusterRead:
    """The cluster of a run, in one call: the run's ``config``, the sources of its input
    files (``LoadResult.sources``), trainc.yaml as parsed, to place findings, and the
    Namespaces trainc emits (:func:`cluster_objects`).

    Without a ``cluster`` section nothing is read, walked or parsed.
    """
    settings = config.cluster
    if settings is None:
        return ClusterRead()
    files = find_cluster_files(config.root, settings.manifests)
    documents = cluster_documents(
        files,
        inputs=inputs,
        read=lambda path: read_cluster_file(
            config.root, path, config.limits, config.template_values
        ),
        limits=config.limits,
    )
    objects = cluster_objects(
        settings,
        documents,
        default_namespace=config.namespace,
        release=read_version(config.kubernetes_version),
        serves=serves,
        emitted=emitted,
    )
    found = [
        *check_cluster(config, config_document, files.unmatched),
        *documents.diagnostics,
        *objects.findings,
    ]
    return ClusterRead(
        objects, documents.sources, tuple(found), documents.manifests, documents.inputs
    )
