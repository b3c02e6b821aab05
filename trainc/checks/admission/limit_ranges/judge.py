"""LimitRanger on the objects a TrainJob makes the cluster create, at the lines behind them.

Every pod the Job controller creates passes LimitRanger first: the namespace's
LimitRanges give its containers the requests and limits they lack (the pod the later
families see, :func:`~trainc.checks.admission.mutated.mutated_spec`), then refuse a
container or pod outside their ``min``, ``max`` or ``maxLimitRequestRatio``
(``limitrange.min``, ``limitrange.max``, ``limitrange.ratio``), in LimitRanger's words,
naming the LimitRange. A default limit
below the request a container writes is refused earlier, by pod validation
(``limitrange.default-below-request``). The claims trainc emits (its volumeClaimPolicies
templates and the PersistentVolumeClaims the GitOps tool applies) are judged by the
LimitRanges' ``PersistentVolumeClaim`` items (``limitrange.claim-storage``).

Each finding sits on the value the message names, through the resolve trace: the
container's request or limit where it is written, its container when a LimitRange
default supplied it (the hint then names that default). Pods of several replicatedJobs
refused for the same value at the same line are one finding naming them all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from trainc.checks.admission.created import (
    AdmissionInput,
    CreatedPod,
    Judged,
    pods_created_from,
)
from trainc.checks.admission.limit_ranges.admission import admit_claim, admit_pod, pod_errors
from trainc.checks.admission.limit_ranges.defaults import (
    container_defaults,
    default_requests_to_limits,
)
from trainc.checks.admission.limit_ranges.limit_range import CONTAINER, POD, LimitRange
from trainc.checks.admission.resource_lists import container_list
from trainc.checks.shared.locate import locate
from trainc.checks.workload.jsonfields import objects, text
from trainc.checks.workload.version import KubeVersion
from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, as_list, as_object, get_path
from trainc.resolve.claims import POLICIES
from trainc.resolve.provenance import Origin, Written

_SOURCE = "`PodValidateLimitFunc` in `plugin/pkg/admission/limitranger`"

LIMITRANGE_MAX = Rule(
    "limitrange.max",
    Severity.ERROR,
    "a container or pod above a LimitRange's max",
    doc=RuleDoc(
        what=(
            "a container (or the pod's sum) whose limit or request, after the LimitRange's "
            "defaults, is above the LimitRange's `max`, or that has no limit for a resource "
            "the `max` names: `maximum cpu usage per Container is 8, but limit is 16`"
        ),
        source=_SOURCE,
        fix="lower the request or limit to the max, or raise the LimitRange's max",
    ),
)
LIMITRANGE_MIN = Rule(
    "limitrange.min",
    Severity.ERROR,
    "a container or pod below a LimitRange's min",
    doc=RuleDoc(
        what=(
            "a container (or the pod's sum) whose request or limit is below the "
            "LimitRange's `min`, or that has no request for it: "
            "`minimum memory usage per Container is 1Gi, but request is 512Mi`"
        ),
        source=_SOURCE,
        fix="raise the request or limit to the min, or lower the LimitRange's min",
    ),
)
LIMITRANGE_RATIO = Rule(
    "limitrange.ratio",
    Severity.ERROR,
    "a container or pod whose limit exceeds its request by more than maxLimitRequestRatio",
    doc=RuleDoc(
        what=(
            "a container (or the pod's sum) whose limit divided by its request is above "
            "the LimitRange's `maxLimitRequestRatio`: `cpu max limit to request ratio per "
            "Container is 2, but provided ratio is 4.000000`"
        ),
        source=_SOURCE,
        fix="bring the limit closer to the request",
    ),
)
LIMITRANGE_DEFAULT_BELOW_REQUEST = Rule(
    "limitrange.default-below-request",
    Severity.ERROR,
    "a LimitRange's default limit below the request a container writes",
    doc=RuleDoc(
        what=(
            "a container that requests a resource without a limit, in a namespace whose "
            "LimitRange gives it a default limit below that request; pod validation then "
            "refuses the pod: `must be less than or equal to cpu limit of 2`"
        ),
        source="`mergeContainerResources` in `plugin/pkg/admission/limitranger`, then "
        "`ValidateResourceRequirements`",
        fix="write the limit next to the request, or raise the LimitRange's default",
    ),
)
LIMITRANGE_CLAIM_STORAGE = Rule(
    "limitrange.claim-storage",
    Severity.ERROR,
    "a claim trainc emits outside a LimitRange's PersistentVolumeClaim min or max",
    doc=RuleDoc(
        what=(
            "a PersistentVolumeClaim trainc emits (a volumeClaimPolicies template, a claim "
            "the GitOps tool applies) whose storage request is outside a LimitRange's "
            "`PersistentVolumeClaim` `min`/`max`"
        ),
        source="`PersistentVolumeClaimValidateLimitFunc` in `plugin/pkg/admission/limitranger`",
        fix="request storage within the LimitRange's bounds",
    ),
)

_CONTAINER_KEYS = ("containers", "initContainers")
_RESOURCE = re.compile(r"^(?:minimum|maximum) (\S+) usage|^(\S+) max limit to request ratio")


def limit_ranges_of(found: AdmissionInput) -> list[LimitRange]:
    """The LimitRanges of the TrainJob's namespace, in the order they apply."""
    return list(found.cluster.limit_ranges.get(found.job.namespace, ()))


@dataclass(frozen=True, slots=True)
class Cause:
    """One refusal at one line: what joins the pods of several replicatedJobs."""

    code: str
    text: str
    hint: str
    origin: Origin


def grouped(causes: Iterable[tuple[Cause, CreatedPod]], head: str) -> list[Diagnostic]:
    """One finding per cause, naming every replicatedJob whose pods it refuses."""
    pods: dict[Cause, list[CreatedPod]] = {}
    for cause, pod in causes:
        named = pods.setdefault(cause, [])
        if all(other.replicated_job != pod.replicated_job for other in named):
            named.append(pod)
    return [
        locate(
            cause.origin,
            cause.code,
            f"{head} {pods_created_from(named)}: {cause.text}",
            hint=cause.hint,
        )
        for cause, named in pods.items()
    ]


@dataclass(frozen=True, slots=True)
class PodCause:
    """One refusal of a pod, whoever creates it: the path in the pod (``("spec", …)``)
    of the value at fault, as its creator wrote the pod."""

    code: str
    text: str
    hint: str
    path: FieldPath


def resource_path(written: JsonObject, where: FieldPath, key: str, name: str) -> FieldPath | None:
    """The path in the pod of a container's ``resources.<key>.<name>`` as its creator
    wrote the pod spec (``written``): the request a written limit implies sits on that
    limit. None when a default supplied it."""
    path = (*where, "resources", key, name)
    if get_path(written, path) is not None:
        return ("spec", *path)
    limit = (*where, "resources", "limits", name)
    if key == "requests" and get_path(written, limit) is not None:
        return ("spec", *limit)
    return None


def judge_limit_ranges(found: AdmissionInput) -> Judged:
    """LimitRanger's refusals of the TrainJob's pods and claims, and the pods it refuses;
    nothing without LimitRanges."""
    limit_ranges = limit_ranges_of(found)
    if not limit_ranges:
        return Judged([])
    causes = [
        (Cause(cause.code, cause.text, cause.hint, pod.origin(cause.path)), pod)
        for pod in found.pods
        for cause in pod_causes(limit_ranges, pod.spec, found.release)
    ]
    return Judged(
        [
            *grouped(causes, "the API server would refuse"),
            *_claim_findings(found, limit_ranges),
        ],
        frozenset(pod.replicated_job for _, pod in causes),
    )


def pod_causes(
    limit_ranges: list[LimitRange], written: JsonObject, release: KubeVersion
) -> Iterator[PodCause]:
    """LimitRanger's refusals of a pod whose creator wrote the spec ``written``: those of
    the first LimitRange that refuses it, the one the API server's message names (the
    plugin stops there), each at the value at fault."""
    decision = admit_pod(limit_ranges, written, release)
    spec = decision.spec
    below = list(_defaults_below_requests(limit_ranges, written, spec))
    if below:  # pod validation refuses it before LimitRanger's checks run
        yield from below
        return
    for limit_range in limit_ranges:
        if limit_range.name == decision.refused_by:
            yield from _refusals(limit_ranges, limit_range, written, spec, release)


def _containers(spec: JsonObject) -> Iterator[tuple[FieldPath, JsonObject]]:
    for key in _CONTAINER_KEYS:
        for index, container in objects(spec.get(key)):
            yield (key, index), container


def _defaulted_by(limit_ranges: list[LimitRange], key: str, name: str) -> str:
    """The LimitRange whose Container default gave a container ``<key>.<name>``."""
    for limit_range in limit_ranges:
        requests, limits = container_defaults(limit_range)
        if name in (requests if key == "requests" else limits):
            return limit_range.name
    return ""


def _defaults_below_requests(
    limit_ranges: list[LimitRange], sent: JsonObject, spec: JsonObject
) -> Iterator[PodCause]:
    """Containers whose defaulted limit is below the request their creator wrote."""
    written = default_requests_to_limits(sent)
    for where, container in _containers(spec):
        requests = container_list(container, "requests")
        limits = container_list(container, "limits")
        for name in sorted(limits):
            request = requests.get(name)
            if request is None or request.value <= limits[name].value:
                continue
            if get_path(sent, (*where, "resources", "limits", name)) is not None:
                continue  # a written limit below its request: pod.resource-limits says so
            if get_path(written, (*where, "resources", "requests", name)) is None:
                continue  # both defaulted: the LimitRange disagrees with itself
            origin = resource_path(sent, where, "requests", name)
            if origin is None:
                continue
            owner = _defaulted_by(limit_ranges, "limits", name)
            path = f"spec.{where[0]}[{where[1]}].resources.requests"
            yield PodCause(
                LIMITRANGE_DEFAULT_BELOW_REQUEST.code,
                f'{path}: Invalid value: "{request}": must be less than or equal to {name} '
                f"limit of {limits[name]} (the default limit of LimitRange {owner!r})",
                f"write resources.limits.{name} of at least {request} next to this request, "
                f"or raise the default {name} limit of LimitRange {owner!r}",
                origin,
            )


def _refusals(
    limit_ranges: list[LimitRange],
    limit_range: LimitRange,
    written: JsonObject,
    spec: JsonObject,
    release: KubeVersion,
) -> Iterator[PodCause]:
    containers = LimitRange(
        limit_range.name, tuple(item for item in limit_range.items if item.type == CONTAINER)
    )
    for where, container in _containers(spec):
        alone: JsonObject = {"containers": [container]}
        for error in pod_errors(containers, alone, release):
            yield _cause(limit_ranges, limit_range.name, written, where, error)
    whole = LimitRange(
        limit_range.name, tuple(item for item in limit_range.items if item.type == POD)
    )
    first = next(_containers(spec), None)
    if first is None:
        return
    for error in pod_errors(whole, spec, release):
        yield _cause(limit_ranges, limit_range.name, written, first[0], error)


def _code(error: str) -> str:
    if error.startswith("minimum"):
        return LIMITRANGE_MIN.code
    if error.startswith("maximum"):
        return LIMITRANGE_MAX.code
    return LIMITRANGE_RATIO.code


def _key(error: str) -> str:
    """The list the message names: a refusal names the request or the limit at fault."""
    return "requests" if "request is" in error and "ratio" not in error else "limits"


def _cause(
    limit_ranges: list[LimitRange], owner: str, written: JsonObject, where: FieldPath, error: str
) -> PodCause:
    match = _RESOURCE.match(error)
    name = (match.group(1) or match.group(2)) if match else ""
    key = _key(error)
    origin = resource_path(written, where, key, name)
    hint = {
        LIMITRANGE_MAX.code: f"lower resources.{key}.{name} to the max of LimitRange {owner!r}",
        LIMITRANGE_MIN.code: f"raise resources.{key}.{name} to the min of LimitRange {owner!r}",
        LIMITRANGE_RATIO.code: f"bring resources.limits.{name} within the maxLimitRequestRatio of "
        f"LimitRange {owner!r}",
    }[_code(error)]
    if origin is None:
        origin = ("spec", *where)
        default = _defaulted_by(limit_ranges, key, name) or owner
        hint = (
            f"resources.{key}.{name} is not written here: the default of LimitRange "
            f"{default!r} sets it; write resources.{key}.{name} on this container within "
            "the bounds"
        )
    return PodCause(_code(error), f"{error} (LimitRange {owner!r})", hint, origin)


def _claim_findings(found: AdmissionInput, limit_ranges: list[LimitRange]) -> list[Diagnostic]:
    findings: list[Diagnostic] = []
    for claim, origin, who in claims_of(found):
        refused = admit_claim(limit_ranges, claim)
        if refused is None:
            continue
        owner, message = refused
        findings.append(
            locate(
                origin,
                LIMITRANGE_CLAIM_STORAGE.code,
                f"the API server would refuse {who}: {message} (LimitRange {owner!r})",
                hint=f"request storage within the PersistentVolumeClaim min and max of "
                f"LimitRange {owner!r}",
            )
        )
    return findings


def claims_of(found: AdmissionInput) -> Iterator[tuple[JsonObject, Origin, str]]:
    """The claims created for the TrainJob: (claim, the line of its storage request, who
    creates it). Its volumeClaimPolicies templates first (applied by the GitOps tool as
    trainc emits them, or created by the JobSet controller when the policy stays in the
    JobSet), then any other claim the GitOps tool applies for it. None after a refused
    TrainJob."""
    if found.trainjob_refused:
        return
    job = found.job
    native = POLICIES in job.jobset_spec
    creator = "created by the JobSet controller" if native else found.built_by
    made: set[str] = set()
    for path, template in _claim_templates(job.template):
        claim_name = f"{text(get_path(template, ('metadata', 'name'))) or ''}-{job.name}"
        made.add(claim_name)
        storage = ("spec", "resources", "requests", "storage")
        at = (*path, *storage) if get_path(template, storage) is not None else path
        claim: JsonObject = {
            "metadata": {**as_object(template.get("metadata")), "name": claim_name},
            "spec": as_object(template.get("spec")),
        }
        yield claim, job.origin(at), f"the PersistentVolumeClaim {claim_name!r}, {creator}"
    for obj in found.applied:
        name = text(get_path(obj, ("metadata", "name"))) or ""
        if obj.get("kind") == "PersistentVolumeClaim" and name not in made:
            yield (
                obj,
                Written(job.trainjob, ("metadata", "name")),
                f"the PersistentVolumeClaim {name!r}, {found.built_by}",
            )


def _claim_templates(spec: JsonObject) -> Iterator[tuple[FieldPath, JsonObject]]:
    for i, policy in enumerate(as_list(spec.get(POLICIES))):
        for j, template in objects(as_object(policy).get("templates")):
            yield (POLICIES, i, "templates", j), template
