"""The ResourceQuota plugin on the objects a TrainJob makes the cluster create, at the lines
behind them.

Each pod, as the mutating plugins leave it (:func:`~..mutated.mutated_spec`), is
judged against the namespace's quotas: a container that does not say how much cpu or
memory a quota tracks (``quota.must-specify``), one pod above a hard limit
(``quota.exceeded``). So are the other objects the TrainJob creates, one at a time: the
JobSet and PodGroup the GitOps tool applies, the Jobs the JobSet controller creates, the
claims (object counts such as ``count/jobs.batch``, and storage).

The namespace's current usage is unknown offline: every verdict assumes nothing else runs
there (``used: 0``), so a refusal found is certain, and an admission is not.

A gang can never run when its objects together exceed a hard limit, even if each passes
alone (``quota.gang-exceeds``). A TrainJob is a gang when its pods must all run at once:
its runtime sets a ``podGroupPolicy`` (coscheduling or Volcano), or its ``mlPolicy`` is
torch, MPI or JAX and it runs more than one pod (a distributed job whose ranks wait for
each other at start-up). The gang's objects are all its pods (parallelism times Jobs of each
replicatedJob), its Jobs, its JobSet, its PodGroup and its claims.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from trainc.checks.admission.cluster import ClusterObjects
from trainc.checks.admission.created import (
    GITOPS_TOOL,
    AdmissionInput,
    CreatedPod,
    Judged,
    sent,
)
from trainc.checks.admission.limit_ranges.judge import (
    Cause,
    PodCause,
    claims_of,
    grouped,
    resource_path,
)
from trainc.checks.admission.mutated import mutated_spec
from trainc.checks.admission.resource_lists import (
    POD_LEVEL_RESOURCES,
    ZERO,
    container_list,
    pod_level_resource,
    pretty,
)
from trainc.checks.admission.resource_quotas.admission import Refusal, admit, exceeded, mask
from trainc.checks.admission.resource_quotas.evaluators import (
    MUST_SPECIFY,
    Target,
    matching_resources,
    missing,
    usage,
)
from trainc.checks.admission.resource_quotas.gang import Member, shortfalls
from trainc.checks.admission.resource_quotas.quota import Quota
from trainc.checks.shared.locate import locate
from trainc.checks.workload.jsonfields import objects, text
from trainc.checks.workload.version import KubeVersion
from trainc.config.settings import LimitedResource
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, get_path
from trainc.model.kinds import TRAINJOB
from trainc.resolve.provenance import Origin, Written

_SOURCE = "`checkRequest` in `plugin/resourcequota`, `pkg/quota/v1/evaluator/core`"
#: What every quota finding says of the namespace's usage.
ASSUMED_EMPTY = "trainc assumes nothing else runs in the namespace (its usage is unknown offline)"

QUOTA_MUST_SPECIFY = Rule(
    "quota.must-specify",
    Severity.ERROR,
    "a container without the cpu or memory request or limit a ResourceQuota tracks",
    doc=RuleDoc(
        what=(
            "a pod in a namespace whose ResourceQuota limits cpu or memory (`requests.cpu`, "
            "`limits.memory`, ...), with a container that sets no such request or limit "
            "and gets none from a LimitRange: `failed quota: compute: must specify "
            "limits.cpu for: node`"
        ),
        source=_SOURCE,
        fix="set the request or limit on the container, or give the namespace a LimitRange default",
    ),
)
QUOTA_EXCEEDED = Rule(
    "quota.exceeded",
    Severity.ERROR,
    "one object the TrainJob creates is above a ResourceQuota's hard limit",
    doc=RuleDoc(
        what=(
            "one pod, Job, JobSet, PodGroup or claim the TrainJob creates that alone "
            "counts more than a ResourceQuota allows (`exceeded quota: gpus, requested: "
            "requests.nvidia.com/gpu=8, used: requests.nvidia.com/gpu=0, limited: "
            "requests.nvidia.com/gpu=4`), assuming nothing else uses the quota"
        ),
        source=_SOURCE,
        fix="request less, or raise the quota's hard limit",
    ),
)
QUOTA_UNCOVERED = Rule(
    "quota.uncovered",
    Severity.ERROR,
    "a pod uses a resource or scope the quota plugin limits, and no quota covers it",
    doc=RuleDoc(
        what=(
            "the ResourceQuota plugin's configuration (`cluster.resourceQuota."
            "limitedResources`) limits a resource or a scope to namespaces with a covering "
            "quota, and no ResourceQuota of the TrainJob's namespace covers what a pod (or "
            "claim) consumes: `insufficient quota to consume: requests.nvidia.com/gpu`, "
            "`insufficient quota to match these scopes: [{PriorityClass In "
            "[system-node-critical system-cluster-critical]}]`"
        ),
        source="`CheckRequest` in `plugin/resourcequota` and the plugin's `limitedResources`",
        fix="give the namespace a ResourceQuota that tracks the resource (or selects the "
        "scope), or leave the scope",
    ),
)
QUOTA_GANG_EXCEEDS = Rule(
    "quota.gang-exceeds",
    Severity.ERROR,
    "a gang whose objects together exceed a ResourceQuota's hard limit",
    doc=RuleDoc(
        what=(
            "a TrainJob whose pods must all run at once (a `podGroupPolicy`, or a torch, "
            "MPI or JAX job of more than one pod) and whose pods, Jobs, JobSet, PodGroup "
            "and claims together count more than a ResourceQuota allows: each may be "
            "admitted alone, the whole never is"
        ),
        source="trainc's own sum, with the quota evaluators' usage and scopes",
        fix="lower numNodes or the per-node request, or raise the quota's hard limit",
    ),
)


def quotas_of(found: AdmissionInput) -> list[Quota]:
    """The ResourceQuotas of the TrainJob's namespace, in the order they are checked."""
    return list(found.cluster.quotas.get(found.job.namespace, ()))


def judge_resource_quotas(found: AdmissionInput) -> Judged:
    """The quota plugin's refusals of the TrainJob's objects, a gang that never fits, and
    the pods it refuses."""
    quotas = quotas_of(found)
    if not quotas and not found.cluster.limited:
        return Judged([])
    pods = [(pod, _pod_target(found, pod)) for pod in found.pods]
    limited = found.cluster.limited
    causes = [
        (Cause(cause.code, cause.text, cause.hint, _pod_origin(found, pod, cause.path)), pod)
        for pod, target in pods
        for cause in pod_quota_causes(quotas, target, pod.spec, found.release, limited)
    ]
    findings = grouped(causes, "the API server would refuse")
    refused_alone = {_quota_of(finding.message) for finding in findings}
    objects_ = list(_other_objects(found))
    for target, count, origin, who in objects_:
        prejudged = found.prejudged_for(target.obj)
        refusal = (
            prejudged.quota
            if prejudged is not None
            else admit(quotas, target, found.release, limited=found.cluster.limited)
        )
        if refusal is not None and count > 0:
            refused_alone.add(refusal.quota)
            code, hint = refusal_rule(refusal)
            findings.append(
                locate(
                    origin, code, f"the API server would refuse {who}: {refusal.message}", hint=hint
                )
            )
    if is_gang(found):
        members = [Member(target, pod.count * pod.jobs) for pod, target in pods]
        members += [Member(target, count) for target, count, _, _ in objects_]
        for shortfall in shortfalls(quotas, members, found.release):
            if shortfall.quota in refused_alone:
                continue
            findings.append(
                locate(
                    _count_origin(found),
                    QUOTA_GANG_EXCEEDS.code,
                    f"the TrainJob's pods must all run at once, and {shortfall.message}",
                    hint=f"lower numNodes or what each pod requests, or raise the hard limit of "
                    f"quota {shortfall.quota!r} to at least {pretty(shortfall.demand)}; "
                    f"{ASSUMED_EMPTY}",
                )
            )
    return Judged(findings, frozenset(pod.replicated_job for _, pod in causes))


def refusal_rule(refusal: Refusal) -> tuple[str, str]:
    """The rule code and hint of a finding about an object (no pod) the quotas refuse:
    one above a quota's hard limit, or one no quota covers where the plugin's
    ``limitedResources`` require one."""
    if refusal.quota:
        return (
            QUOTA_EXCEEDED.code,
            f"raise the hard limit of quota {refusal.quota!r}; {ASSUMED_EMPTY}",
        )
    return QUOTA_UNCOVERED.code, (
        "give the namespace a ResourceQuota that covers it, as the API server's "
        "ResourceQuota configuration (limitedResources) requires"
    )


def quota_refusal(
    cluster: ClusterObjects, namespace: str, target: Target, release: KubeVersion
) -> Refusal | None:
    """The refusal by the quotas of ``namespace`` (or the plugin's ``limitedResources``)
    of one object alone, nothing else running; None when they admit it."""
    quotas = list(cluster.quotas.get(namespace, ()))
    if not quotas and not cluster.limited:
        return None
    return admit(quotas, target, release, limited=cluster.limited)


def is_gang(found: AdmissionInput) -> bool:
    """Whether the TrainJob's pods must all run at once: a ``podGroupPolicy``, or a torch,
    MPI or JAX job of more than one pod."""
    runtime = found.job.runtime_spec
    if runtime.pod_group_policy is not None:
        return True
    policy = runtime.ml_policy
    distributed = policy is not None and (
        policy.torch is not None or policy.mpi is not None or policy.jax is not None
    )
    return distributed and sum(pod.count * pod.jobs for pod in found.pods) > 1


def _quota_of(message: str) -> str:
    """The quota a pod finding's message names (``exceeded quota: NAME,`` or
    ``failed quota: NAME:``)."""
    for head, end in (("exceeded quota: ", ","), ("failed quota: ", ":")):
        if head in message:
            return message.split(head, 1)[1].split(end, 1)[0]
    return ""


def _pod_target(found: AdmissionInput, pod: CreatedPod) -> Target:
    obj: JsonObject = {"metadata": pod.metadata, "spec": mutated_spec(found, pod)}
    return Target("", "pods", obj)


def _containers(spec: JsonObject) -> Iterator[tuple[FieldPath, JsonObject]]:
    for key in ("containers", "initContainers"):
        for index, container in objects(spec.get(key)):
            yield (key, index), container


def _pod_origin(found: AdmissionInput, pod: CreatedPod, path: FieldPath) -> Origin:
    """The line of a pod's value at ``path``; of its pod count for ``()``."""
    return pod.origin(path) if path else _pod_count_origin(found, pod)


def pod_quota_causes(
    quotas: list[Quota],
    target: Target,
    written: JsonObject,
    release: KubeVersion,
    limited: Sequence[LimitedResource] = (),
) -> Iterator[PodCause]:
    """The quota plugin's refusal of one pod (``target``, as the mutating plugins leave
    it; its creator wrote the spec ``written``), at the path of the value at fault:
    ``()`` when it is the number of pods. ``limited`` is the plugin's configuration."""
    refusal = admit(quotas, target, release, limited=limited)
    if refusal is None:
        return
    if not refusal.quota:
        yield _uncovered_cause(target, written, refusal, release)
        return
    quota = next(quota for quota in quotas if quota.name == refusal.quota)
    if refusal.message.startswith("failed quota"):
        where, lacking = _lacking(target, quota, release)
        name = text(get_path(target.spec, (*where, "name"))) or ""
        fields = " and ".join(f"resources.{'.'.join(_container_field(n))}" for n in lacking)
        yield PodCause(
            QUOTA_MUST_SPECIFY.code,
            refusal.message,
            f"set {fields} on container {name!r} (or give the namespace a LimitRange "
            f"default for it): quota {quota.name!r} tracks it{_default_class(written, target)}",
            ("spec", *where),
        )
        return
    yield PodCause(
        QUOTA_EXCEEDED.code,
        refusal.message,
        f"request less per pod, or raise the hard limit of quota {quota.name!r}; "
        f"{ASSUMED_EMPTY}{_default_class(written, target)}",
        _exceeding_path(target, written, quota, release),
    )


def _uncovered_cause(
    target: Target, written: JsonObject, refusal: Refusal, release: KubeVersion
) -> PodCause:
    """A pod the plugin's ``limitedResources`` refuse: no quota covers what it consumes,
    or a scope it is in; at the amount, or at its ``priorityClassName`` where written."""
    first = refusal.uncovered[0] if refusal.uncovered else ""
    if refusal.message.startswith("insufficient quota to consume"):
        path = _amount_path(target, written, first, release)
        hint = (
            f"the API server's ResourceQuota configuration limits {', '.join(refusal.uncovered)}"
            " to namespaces with a quota for it: give the namespace a ResourceQuota that "
            "tracks it, or request none"
        )
    else:
        named = first == "PriorityClass" and text(written.get("priorityClassName"))
        path = ("spec", "priorityClassName") if named else ("spec", "containers", 0)
        hint = (
            f"the API server's ResourceQuota configuration admits pods of scope {first} only "
            "in a namespace with a ResourceQuota whose scopeSelector selects them: create "
            "one, or leave the scope (another priorityClassName, say)"
        )
    return PodCause(
        QUOTA_UNCOVERED.code, refusal.message, hint + _default_class(written, target), path
    )


def _default_class(written: JsonObject, target: Target) -> str:
    """Why a quota scoped by PriorityClass selects pods that name none: the Priority
    plugin gave them the cluster's global default."""
    given = text(target.spec.get("priorityClassName"))
    if not given or text(written.get("priorityClassName")):
        return ""
    return (
        f"; the pods name no PriorityClass, so the Priority plugin gives them {given!r}, the "
        "cluster's global default: name another class in the pod template to leave this "
        "quota's scope"
    )


def _lacking(target: Target, quota: Quota, release: KubeVersion) -> tuple[FieldPath, list[str]]:
    """The first container the quota's "must specify" names, and what it lacks."""
    required = matching_resources(target, list(quota.hard))
    wanted = sorted(MUST_SPECIFY.intersection(required))
    for where, container in _containers(target.spec):
        alone = Target("", "pods", {"spec": {"containers": [container]}})
        lacking = [name for name in wanted if missing(alone, [name], release)]
        if lacking:
            return where, lacking
    return ("containers", 0), []


def _exceeding_path(
    target: Target, written: JsonObject, quota: Quota, release: KubeVersion
) -> FieldPath:
    """The path of the amount at fault: the first exceeded resource's (:func:`_amount_path`)."""
    over = exceeded(mask(usage(target, release), list(quota.hard)), quota.hard)
    return _amount_path(target, written, sorted(over)[0] if over else "", release)


def _amount_path(
    target: Target, written: JsonObject, first: str, release: KubeVersion
) -> FieldPath:
    """The path of the quota resource ``first`` in the pod its creator wrote: the
    pod-level amount where the pod sets one, else its largest container request or
    limit, written; its container when a default supplied it; ``()`` for the number
    of pods."""
    if first in ("pods", "count/pods"):
        return ()
    key, name = _container_field(first)
    if release >= POD_LEVEL_RESOURCES and pod_level_resource(name):
        # The pod's own amount replaces its containers' (a request defaults to its limit).
        for path in (("resources", key, name), ("resources", "limits", name)):
            if get_path(written, path) is not None:
                return ("spec", *path)
    best: tuple[FieldPath, JsonObject] | None = None
    for where, container in _containers(target.spec):
        amount = get_path(container, ("resources", key, name))
        if amount is not None and (best is None or _larger(container, best[1], key, name)):
            best = (where, container)
    if best is None:
        return ("spec", "containers", 0)
    return resource_path(written, best[0], key, name) or ("spec", *best[0])


def _larger(container: JsonObject, other: JsonObject, key: str, name: str) -> bool:
    mine = container_list(container, key).get(name, ZERO)
    theirs = container_list(other, key).get(name, ZERO)
    return mine.value > theirs.value


def _container_field(quota_name: str) -> tuple[str, str]:
    """The container list and resource a quota's resource name reads: ``limits.cpu`` →
    (limits, cpu), ``requests.nvidia.com/gpu`` and bare ``cpu`` → (requests, ...)."""
    if quota_name.startswith("limits."):
        return "limits", quota_name.removeprefix("limits.")
    return "requests", quota_name.removeprefix("requests.")


def _other_objects(found: AdmissionInput) -> Iterator[tuple[Target, int, Origin, str]]:
    """Every object the TrainJob creates but its pods: (target, how many, line, who). An
    object the GitOps tool applies over the deployed one (``--base``) is an UPDATE of it,
    and its finding says so."""
    job = found.job
    named = Written(job.trainjob, ("metadata", "name"))
    if found.through_trainer:
        trainjob = job.trainjob.data
        old = found.old(trainjob)
        yield (
            Target(TRAINJOB.group, TRAINJOB.plural, trainjob, old),
            1,
            named,
            f"the TrainJob {job.name!r}, {sent(GITOPS_TOOL, old)}",
        )
    if found.trainjob_refused:
        return  # nothing is created after a refused TrainJob
    jobset = job.stored_jobset()
    old = found.updated(jobset)
    yield (
        Target("jobset.x-k8s.io", "jobsets", jobset, old),
        1,
        named,
        f"the JobSet {job.name!r}, {sent(found.built_by, old)}",
    )
    for pod in (CreatedPod(job, child) for child in found.child_jobs):
        origin = job.origin(("replicatedJobs", pod.child.index, "name"))
        yield (
            Target("batch", "jobs", pod.child.job),
            pod.jobs,
            origin,
            (f"the Job of replicatedJob {pod.replicated_job!r}, created by the JobSet controller"),
        )
    claims: dict[str, JsonObject] = {}
    for obj in found.applied:
        kind = obj.get("kind")
        api_version = text(obj.get("apiVersion")) or ""
        name = text(get_path(obj, ("metadata", "name"))) or ""
        old = found.updated(obj)
        if kind == "PodGroup":
            group = api_version.split("/", 1)[0]
            yield (
                Target(group, "podgroups", obj, old),
                1,
                named,
                f"the PodGroup {name!r}, {sent(found.built_by, old)}",
            )
        elif kind == "ConfigMap":
            yield (
                Target("", "configmaps", obj, old),
                1,
                named,
                f"the ConfigMap {name!r}, {sent(found.built_by, old)}",
            )
        elif kind == "PersistentVolumeClaim":
            claims[name] = obj
    for claim, origin, who in claims_of(found):
        # A claim the GitOps tool applies (not one the JobSet controller creates) may
        # replace the deployed one.
        applied = claims.get(text(get_path(claim, ("metadata", "name"))) or "")
        old = found.updated(applied) if applied is not None else None
        yield Target("", "persistentvolumeclaims", claim, old), 1, origin, sent(who, old)


def _pod_count_origin(found: AdmissionInput, pod: CreatedPod) -> Origin:
    """The line that sets how many pods a replicatedJob runs."""
    for pod_set in found.job.pod_sets:
        if pod_set.name == pod.replicated_job:
            return pod_set.count_origin
    return _count_origin(found)


def _count_origin(found: AdmissionInput) -> Origin:
    """The line that sets how many pods run: the largest PodSet's count."""
    pod_sets = found.job.pod_sets
    if not pod_sets:
        return Written(found.job.trainjob, ("metadata", "name"))
    return max(pod_sets, key=lambda pod_set: pod_set.count).count_origin
