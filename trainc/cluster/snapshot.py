"""What ``trainc cluster pull`` reads, what it keeps of each object, and where it writes it.

No I/O here: the reader (:mod:`trainc.cluster.client`) answers discovery, list and get
calls, and this module turns the answers into files.

**What.** The kinds admission reads: Namespaces (their labels select policies and Pod
Security levels), LimitRanges, ResourceQuotas, PriorityClasses, the
``admissionregistration.k8s.io/v1`` ValidatingAdmissionPolicies and their bindings, the
parameter objects the bindings' ``paramRef`` names, and Kueue's queueing kinds. The
policies and Kueue are optional: a cluster without them serves neither, which discovery
tells (``/apis/GROUP/VERSION`` answers 404, or lists no such resource). Kueue serves
``v1beta1`` and, from v0.15.0, ``v1beta2``
(https://github.com/kubernetes-sigs/kueue/tree/v0.19.2/apis/kueue); the newest served
version is read, as :mod:`trainc.checks.admission.kueue` reads both.

**Kept.** What the object's owner wrote, nothing the server or a controller set. The
ObjectMeta reference
(https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/object-meta/)
marks ``uid``, ``resourceVersion``, ``generation``, ``creationTimestamp``,
``deletionTimestamp``, ``deletionGracePeriodSeconds``, ``selfLink`` and ``managedFields``
as the system's: all go, with ``status``. Kept are ``name``, ``namespace``, ``labels``
(the server-set ``kubernetes.io/metadata.name`` Namespace label too: namespace selectors
match it), ``annotations`` but kubectl's ``last-applied-configuration`` (a copy of the
object, rewritten on every apply), ``ownerReferences`` without their ``uid``, and every
other top-level field (``spec``, ``data``, a PriorityClass's ``value``). ``finalizers``
go: controllers add and drop them as an object comes into use (Kueue's
``kueue.x-k8s.io/resource-in-use``), which says nothing about admission and would turn
every scheduled pull into a pull request. ``generateName`` goes: the name is known.

**Where.** One file per namespace and kind: ``cluster/<resource>.yaml`` for
cluster-scoped kinds, ``namespaces/<namespace>/<resource>.yaml`` for namespaced ones,
``<resource>`` being the plural and, outside the core group, ``.<group>``
(``localqueues.kueue.x-k8s.io.yaml``), so two groups' kinds of one name never share a
file. By namespace because that is how a platform repository is owned and reviewed (a
team's directory, a CODEOWNERS line), a team's quota change is a one-directory pull
request, and a deleted namespace is a deleted directory. Each file holds its objects
sorted by name, keys as trainc's emitter orders them (:func:`trainc.emit.yamlout.dump_yaml`),
so an unchanged cluster writes identical bytes.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from trainc.checks.admission.kueue.api import GROUP as KUEUE_GROUP
from trainc.checks.admission.kueue.api import VERSIONS as KUEUE_VERSIONS
from trainc.checks.admission.policies.model import binding_from_json, policy_from_json
from trainc.checks.admission.policies.resources import Resource
from trainc.checks.workload.selectors import selector_matches
from trainc.emit.yamlout import dump_yaml
from trainc.model.json import JsonObject, JsonValue, as_object

#: The annotation ``kubectl apply`` keeps a copy of the applied object in.
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
#: ObjectMeta fields kept; every other is the server's or a controller's.
_KEPT_METADATA = ("name", "namespace", "labels", "annotations", "ownerReferences")
#: Directory of the cluster-scoped kinds' files, and of the namespaces'.
CLUSTER_DIRECTORY = "cluster"
NAMESPACES_DIRECTORY = "namespaces"

ADMISSION_GROUP = "admissionregistration.k8s.io"
#: Families a cluster may lack, as stderr names them.
POLICIES = "ValidatingAdmissionPolicies"
KUEUE = "Kueue"


@dataclass(frozen=True, slots=True)
class PulledKind:
    """A kind ``cluster pull`` reads: where it may be served, newest version first.

    ``family`` names the optional add-on that serves it (None: every cluster serves it).
    """

    kind: str
    group: str
    versions: tuple[str, ...]
    plural: str
    namespaced: bool
    family: str | None = None

    def resource(self, version: str) -> Resource:
        """The resource of this kind at ``version``."""
        return Resource(self.group, version, self.plural, self.kind, self.namespaced)


_KUEUE_NEWEST_FIRST = tuple(reversed(KUEUE_VERSIONS))

#: Every kind pulled, in the order they are read.
PULLED_KINDS: tuple[PulledKind, ...] = (
    PulledKind("Namespace", "", ("v1",), "namespaces", namespaced=False),
    PulledKind("LimitRange", "", ("v1",), "limitranges", namespaced=True),
    PulledKind("ResourceQuota", "", ("v1",), "resourcequotas", namespaced=True),
    PulledKind("PriorityClass", "scheduling.k8s.io", ("v1",), "priorityclasses", namespaced=False),
    PulledKind(
        "ValidatingAdmissionPolicy",
        ADMISSION_GROUP,
        ("v1",),
        "validatingadmissionpolicies",
        namespaced=False,
        family=POLICIES,
    ),
    PulledKind(
        "ValidatingAdmissionPolicyBinding",
        ADMISSION_GROUP,
        ("v1",),
        "validatingadmissionpolicybindings",
        namespaced=False,
        family=POLICIES,
    ),
    *(
        PulledKind(kind, KUEUE_GROUP, _KUEUE_NEWEST_FIRST, plural, namespaced, family=KUEUE)
        for kind, plural, namespaced in (
            ("ResourceFlavor", "resourceflavors", False),
            ("ClusterQueue", "clusterqueues", False),
            ("LocalQueue", "localqueues", True),
            ("Cohort", "cohorts", False),
            ("WorkloadPriorityClass", "workloadpriorityclasses", False),
        )
    ),
)

#: What discovery answered: for each ``(group, version)`` asked, the resources it serves
#: by plural, or None when the group version is not served at all.
Discovery = Mapping[tuple[str, str], Mapping[str, Resource] | None]


def group_versions(kinds: Iterable[PulledKind]) -> list[tuple[str, str]]:
    """The ``(group, version)`` pairs to discover for the optional ``kinds``, in order."""
    pairs = ((k.group, v) for k in kinds if k.family is not None for v in k.versions)
    return list(dict.fromkeys(pairs))


def served_resource(kind: PulledKind, discovery: Discovery) -> Resource | None:
    """``kind`` at its newest served version; None when no version serves it.

    A kind every cluster serves is not looked up.
    """
    if kind.family is None:
        return kind.resource(kind.versions[0])
    for version in kind.versions:
        resources = discovery.get((kind.group, version))
        if resources is not None and kind.plural in resources:
            return kind.resource(version)
    return None


def resource_of_kind(resources: Mapping[str, Resource], kind: str) -> Resource | None:
    """The resource serving ``kind`` in one group version's discovery, subresources aside."""
    found = (r for plural, r in sorted(resources.items()) if "/" not in plural and r.kind == kind)
    return next(found, None)


def split_api_version(api_version: str) -> tuple[str, str]:
    """``(group, version)`` of an ``apiVersion``; the core group is ``""``."""
    group, _, version = api_version.rpartition("/")
    return group, version


@dataclass(frozen=True, slots=True)
class ParamFetch:
    """The parameter objects one binding names: of ``api_version``/``kind``, by ``name``
    or by ``selector`` (spelled as a query in ``selector_text``), in ``namespace`` ("" when
    the binding names none: for a namespaced kind, the namespace of each request, so every
    namespace pulled)."""

    api_version: str
    kind: str
    namespace: str
    name: str
    selector_text: str = ""
    selector: JsonObject | None = field(default=None, compare=False, hash=False)

    def keeps(self, obj: JsonObject) -> bool:
        """Whether ``obj`` (of the right kind) is one this reference names."""
        meta = as_object(obj.get("metadata"))
        if self.namespace and meta.get("namespace") not in (None, self.namespace):
            return False
        if self.name:
            return meta.get("name") == self.name
        labels = as_object(meta.get("labels"))
        plain = {k: v for k, v in labels.items() if isinstance(v, str)}
        return selector_matches(self.selector or {}, plain) is True


def param_fetches(
    policies: Iterable[JsonObject], bindings: Iterable[JsonObject]
) -> list[ParamFetch]:
    """The parameter objects to read: each binding's ``paramRef`` of its policy's ``paramKind``.

    A binding without ``paramRef``, of a policy without ``paramKind`` or of a policy that
    does not exist names nothing; neither does a ``paramRef`` with neither a name nor a
    selector (the API server refuses such a binding). Without duplicates, sorted.
    """
    kinds = {}
    for obj in policies:
        policy = policy_from_json(obj)
        if policy.param_kind is not None and policy.param_kind.kind:
            kinds[policy.name] = policy.param_kind
    fetches: dict[ParamFetch, None] = {}
    for obj in bindings:
        binding = binding_from_json(obj)
        ref, param_kind = binding.param_ref, kinds.get(binding.policy_name)
        if ref is None or param_kind is None:
            continue
        if ref.name:
            fetch = ParamFetch(param_kind.api_version, param_kind.kind, ref.namespace, ref.name)
        elif ref.selector is not None:
            text = label_selector_text(ref.selector)
            fetch = ParamFetch(
                param_kind.api_version, param_kind.kind, ref.namespace, "", text, ref.selector
            )
        else:
            continue
        fetches.setdefault(fetch)
    return sorted(
        fetches, key=lambda f: (f.api_version, f.kind, f.namespace, f.name, f.selector_text)
    )


def label_selector_text(selector: JsonObject) -> str:
    """A ``LabelSelector`` as the ``labelSelector`` query parameter spells it.

    ``matchLabels`` as ``key=value``, ``matchExpressions`` as ``key in (a,b)``,
    ``key notin (a,b)``, ``key`` and ``!key``, sorted as ``metav1.LabelSelectorAsSelector``
    sorts its requirements
    (https://github.com/kubernetes/apimachinery/blob/v0.34.0/pkg/apis/meta/v1/helpers.go).
    An operator it does not know yields a selector that selects nothing the server can
    name, so the reader's own filter (:meth:`ParamFetch.keeps`) decides.
    """
    terms: list[tuple[str, str]] = []
    for key, value in sorted(as_object(selector.get("matchLabels")).items()):
        terms.append((key, f"{key}={value}"))
    expressions = selector.get("matchExpressions")
    for raw in expressions if isinstance(expressions, list) else []:
        expression = as_object(raw)
        key = str(expression.get("key") or "")
        operator = expression.get("operator")
        values = expression.get("values")
        listed = ",".join(sorted(str(v) for v in values)) if isinstance(values, list) else ""
        spelled = {
            "In": f"{key} in ({listed})",
            "NotIn": f"{key} notin ({listed})",
            "Exists": key,
            "DoesNotExist": f"!{key}",
        }.get(str(operator))
        if spelled is not None:
            terms.append((key, spelled))
    return ",".join(text for _, text in sorted(terms))


def stripped(obj: JsonObject, resource: Resource) -> JsonObject:
    """``obj`` without what the server or controllers set (see the module's docstring).

    ``apiVersion`` and ``kind`` are the resource's: a list's items of built-in kinds come
    without them.
    """
    meta = as_object(obj.get("metadata"))
    kept: JsonObject = {}
    for key in _KEPT_METADATA:
        value = meta.get(key)
        if key == "annotations":
            value = {k: v for k, v in as_object(value).items() if k != LAST_APPLIED}
        elif key == "ownerReferences" and isinstance(value, list):
            value = [{k: v for k, v in as_object(ref).items() if k != "uid"} for ref in value]
        if value not in (None, {}, []):
            kept[key] = copy.deepcopy(value)
    out: JsonObject = {"apiVersion": resource.api_version, "kind": resource.kind, "metadata": kept}
    for key, value in obj.items():
        if key not in ("apiVersion", "kind", "metadata", "status"):
            out[key] = copy.deepcopy(value)
    return out


def file_path(resource: Resource, namespace: str) -> str:
    """The snapshot file of ``resource``'s objects in ``namespace`` ("" for cluster scope)."""
    if resource.namespaced and namespace:
        return f"{NAMESPACES_DIRECTORY}/{namespace}/{resource.group_resource}.yaml"
    return f"{CLUSTER_DIRECTORY}/{resource.group_resource}.yaml"


def snapshot_files(pulled: Iterable[tuple[Resource, JsonObject]]) -> dict[str, bytes]:
    """The snapshot's files: each object stripped, in its file, files sorted by name.

    An object read twice (a parameter that is also a pulled kind) is written once.
    """
    by_file: dict[str, dict[tuple[str, str], JsonObject]] = {}
    for resource, obj in pulled:
        clean = stripped(obj, resource)
        meta = as_object(clean["metadata"])
        namespace = str(meta.get("namespace") or "")
        name = str(meta.get("name") or "")
        by_file.setdefault(file_path(resource, namespace), {})[(name, resource.api_version)] = clean
    files: dict[str, bytes] = {}
    for path in sorted(by_file):
        objects = by_file[path]
        documents: Sequence[JsonValue] = [objects[key] for key in sorted(objects)]
        files[path] = dump_yaml(documents).encode()
    return files


def namespaced_scope(namespaces: Sequence[str]) -> tuple[str, ...] | None:
    """The namespaces to read namespaced kinds in: None for all, else sorted, unique."""
    return tuple(sorted(set(namespaces))) if namespaces else None
