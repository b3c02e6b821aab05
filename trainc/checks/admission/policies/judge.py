"""The cluster's ValidatingAdmissionPolicies on every object one TrainJob leads to, located.

Each object reaches the API server from its own creator, and policies match on who sends
it (``request.userInfo``): the GitOps tool applies what trainc builds (the JobSet, its
PodGroup, claims and ConfigMaps; the resolved JobSet alone when the run builds nothing),
the JobSet controller creates the child Jobs, the Job controller the pods, which arrive
after LimitRanger's defaults (mutating admission runs first). :func:`admit` gives the
plugin's verdict on each; a refusal is an error in the API server's words
(``pods is forbidden: ValidatingAdmissionPolicy 'P' with binding 'B' denied request: …``),
a ``Warn`` or ``Audit`` failure a warning, and a policy that cannot be evaluated offline
(``authorizer``, a CEL library the engine lacks, a cost over the limits) a warning once
per policy, never a silent pass.

A finding sits on the input line behind the value the policy reads, as far as the
policy's expressions tell (:func:`~trainc.schema.cel.reads.reads`): an image policy's
refusal goes to the ``image`` line of the container that fails it alone (the policy is
asked again of the pod cut down to each container in turn). Where the fields it reads
branch, or it reads the whole object, the finding goes to that point of the object (the
replicatedJob in the runtime, the TrainJob's metadata). The same refusal from the same
line is one finding naming every replicatedJob it reaches.

The Namespaces the repository's inputs declare are applied by the GitOps tool too, once
per run rather than per TrainJob: :func:`check_namespace_objects` judges them at their
own lines, and :func:`check_run_objects` any object sent once per run (the Namespaces
trainc emits, the sweeper's objects, Jobs and pods), wherever its caller places them.

With ``deploy: TrainJob`` the GitOps tool applies the TrainJob and the Trainer controller
creates the rest (:attr:`~trainc.checks.admission.created.AdmissionInput.through_trainer`);
with ``--base``, what the GitOps tool applies over an object the base revision deployed
is an UPDATE whose ``oldObject`` is that object
(:meth:`~trainc.checks.admission.created.AdmissionInput.old`), as the plugin's request for
an update carries it
(https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/dispatcher.go).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from trainc.checks.admission.cluster import ClusterObjects
from trainc.checks.admission.created import (
    GITOPS_TOOL,
    JOB_CONTROLLER,
    POD_NAME,
    AdmissionInput,
    CreatedPod,
    Judged,
    sent,
)
from trainc.checks.admission.mutated import mutated_spec
from trainc.checks.admission.policies.admission import (
    VALIDATION_FAILURE,
    Cluster,
    Verdict,
    admit,
)
from trainc.checks.admission.policies.model import Policy
from trainc.checks.admission.policies.request import Request, UserInfo, request_for
from trainc.checks.admission.resource_lists import forbidden
from trainc.checks.created.childjobs import child_origin
from trainc.checks.shared.findings import created_from
from trainc.checks.shared.locate import locate
from trainc.checks.workload.jsonfields import objects, text
from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity
from trainc.load.documents import Document
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_object, get_path
from trainc.model.labels import JOBSET_API_VERSION, JOBSET_KIND
from trainc.resolve.childjobs import ChildJob
from trainc.resolve.claims import POLICIES as CLAIM_POLICIES
from trainc.resolve.provenance import Origin, Written
from trainc.resolve.resolved import ResolvedJob, claim_name
from trainc.schema.cel.reads import ITEMS, Reads, reads, union

_SOURCE: Final = (
    "`validating.dispatcher` of the API server's ValidatingAdmissionPolicy plugin "
    "(k8s.io/apiserver/pkg/admission/plugin/policy/validating)"
)

VAP_DENIED = Rule(
    "vap.denied",
    Severity.ERROR,
    "a ValidatingAdmissionPolicy with a Deny binding refuses an object the TrainJob leads to",
    doc=RuleDoc(
        what=(
            "a ValidatingAdmissionPolicy of the cluster, through a binding whose "
            "`validationActions` hold `Deny`, refuses the JobSet (or its PodGroup, claims, "
            "ConfigMaps) the GitOps tool applies (or, with `deploy: TrainJob`, the TrainJob "
            "it applies and what the Trainer controller creates; with `--base`, as an UPDATE "
            "of what it deployed), a Job the JobSet controller creates, the pods the Job "
            "controller creates, a Namespace trainc emits, or the sweeper's objects, Jobs "
            "and pods: the API server's refusal, at the line of the value the policy reads"
        ),
        source=_SOURCE,
        fix="change the value the policy's message names, or exempt the TrainJob's "
        "namespace or objects in the binding's `matchResources`",
    ),
)

VAP_WARNED = Rule(
    "vap.warned",
    Severity.WARNING,
    "a ValidatingAdmissionPolicy with a Warn binding fails on an object of the TrainJob",
    doc=RuleDoc(
        what=(
            "a policy whose binding's `validationActions` hold `Warn` fails: the API server "
            "admits the object and returns `Validation failed for ValidatingAdmissionPolicy "
            "…` to its creator, a controller whose warnings nobody reads"
        ),
        source=_SOURCE,
        fix="change the value the policy's message names; a Warn binding often becomes Deny",
    ),
)

VAP_AUDITED = Rule(
    "vap.audited",
    Severity.WARNING,
    "a ValidatingAdmissionPolicy with an Audit binding fails on an object of the TrainJob",
    doc=RuleDoc(
        what=(
            "a policy whose binding's `validationActions` hold `Audit` fails: the API "
            "server admits the object and records a "
            "`validation.policy.admission.k8s.io/validation_failure` audit annotation"
        ),
        source=_SOURCE,
        fix="change the value the policy's message names; an Audit binding often becomes Deny",
    ),
)

VAP_NOT_EVALUATED = Rule(
    "vap.not-evaluated",
    Severity.WARNING,
    "a ValidatingAdmissionPolicy selecting an object of the TrainJob cannot be run offline",
    doc=RuleDoc(
        what=(
            "a policy selects an object the TrainJob leads to, but trainc cannot answer it "
            "offline: it calls `authorizer`, a Kubernetes CEL library signature trainc's "
            "engine cannot declare (`string(ip)`, `string(cidr)`), its "
            "cost estimate exceeds the API server's limits, or its selectors read a Namespace "
            "the repository does not declare. Reported once per policy and TrainJob; the "
            "object is not counted as admitted"
        ),
        source=_SOURCE,
        fix="check the objects with `kubectl apply --dry-run=server`, or declare the "
        "Namespace among `cluster.manifests`",
    ),
)

#: Refusals of a policy or binding that cannot run as configured, whatever the object.
_UNRUNNABLE: Final = ("failed to configure policy", "failed to configure binding", "compilation")
#: The label the API server gives every Namespace (``NamespaceDefaultLabelName``).
NAMESPACE_NAME_LABEL: Final = "kubernetes.io/metadata.name"
#: A ``Warn`` failure as the plugin words it (``admission.Warn``'s text).
_WARNING: Final = re.compile(
    r"Validation failed for ValidatingAdmissionPolicy '(?P<policy>[^']*)' "
    r"with binding '(?P<binding>[^']*)': (?P<message>.*)",
    re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class _Seen:
    """One object on its way into the API server: what it is, who sends it, where it is
    written, and how a finding names it."""

    obj: JsonObject
    user: UserInfo
    written: JsonObject
    """The object as the inputs make it (before LimitRanger's defaults), to place findings
    on values that exist there."""
    name: str
    """The replicatedJob, for the Jobs and pods; "" for an applied object."""
    described: str
    origin: Callable[[FieldPath], Origin] | None = None
    """Where a value of the object is written, through the resolve trace."""
    old: JsonObject | None = None
    """The stored object an UPDATE replaces (``oldObject``); None for a CREATE."""


def judge_policies(found: AdmissionInput) -> Judged:
    """What the cluster's ValidatingAdmissionPolicies say of every object of one TrainJob,
    and the pods a ``Deny`` binding (or a failing configuration) refuses."""
    cluster = found.cluster.policies
    if not cluster.policies or not cluster.bindings:
        return Judged([])
    policies = {policy.name: policy for policy in cluster.policies}
    causes: dict[tuple[str, str, str | None, Origin], tuple[_Outcome, Origin, list[_Seen]]] = {}
    unevaluated: set[str] = set()
    refused: set[str] = set()
    for seen in _objects(found):
        request = request_for(seen.obj, seen.user, old=seen.old)
        origin_of = seen.origin
        if request is None or origin_of is None:
            continue
        prejudged = found.prejudged_for(seen.obj)
        verdict = prejudged.policies if prejudged is not None else admit(cluster, request)
        if verdict.denials and seen.obj.get("kind") == "Pod":
            refused.add(seen.name)
        for outcome in _outcomes(cluster, verdict, request, seen, policies, unevaluated):
            origin = origin_of(outcome.where)
            key = (outcome.code, outcome.cause, outcome.hint, origin)
            causes.setdefault(key, (outcome, origin, []))[2].append(seen)
    findings = [
        locate(
            origin,
            outcome.code,
            f"{_described(seen)}{outcome.said(len(seen), plural=_plural(seen))}",
            hint=outcome.hint,
        )
        for outcome, origin, seen in causes.values()
    ]
    return Judged(findings, frozenset(refused))


#: Places one finding about an object judged once per run: (path in the object, rule
#: code, message, hint) → the finding, on the line the value comes from.
Place = Callable[[FieldPath, str, str, str | None], Diagnostic]


@dataclass(frozen=True, slots=True)
class RunObject:
    """An object the cluster is sent once per run, not per TrainJob (a Namespace, the
    sweeper's CronJob and its Jobs): what it is, how a finding names it and who sends it
    (``the CronJob 'trainc-sweeper', applied by the GitOps tool``), and where a finding
    about a value of it goes."""

    obj: JsonObject
    named: str
    place: Place
    plural: bool = False
    """True when ``named`` are several objects alike (the pods of a Job)."""
    user: UserInfo | None = None
    """Who sends it; None: the GitOps tool."""
    verdict: Verdict | None = None
    """The plugin's verdict already given on it (:func:`policy_verdict`: the one that
    decided whether what it creates is judged), so the plugin judges it once."""


def check_run_objects(cluster: ClusterObjects, found: Iterable[RunObject]) -> list[Diagnostic]:
    """What the policies say of objects sent once per run, each by its sender; a policy
    that cannot be evaluated offline is reported once for them all."""
    policies_of = cluster.policies
    if not cluster.configured or not policies_of.policies or not policies_of.bindings:
        return []
    policies = {policy.name: policy for policy in policies_of.policies}
    unevaluated: set[str] = set()
    findings: list[Diagnostic] = []
    for item in found:
        obj = with_namespace_label(item.obj)
        seen = _Seen(obj, item.user or cluster.creators.gitops, item.obj, "", item.named)
        request = request_for(obj, seen.user)
        if request is None:
            continue
        verdict = item.verdict if item.verdict is not None else admit(policies_of, request)
        findings.extend(
            item.place(
                outcome.where,
                outcome.code,
                f"{seen.described}{outcome.said(1, plural=item.plural)}",
                outcome.hint,
            )
            for outcome in _outcomes(policies_of, verdict, request, seen, policies, unevaluated)
        )
    return findings


def with_namespace_label(obj: JsonObject) -> JsonObject:
    """A Namespace as admission sees it: the API server gives every Namespace the
    ``kubernetes.io/metadata.name`` label first. Any other object as it is."""
    if (obj.get("apiVersion"), obj.get("kind")) != ("v1", "Namespace"):
        return obj
    metadata = as_object(obj.get("metadata"))
    name = text(metadata.get("name")) or ""
    labels = {**as_object(metadata.get("labels")), NAMESPACE_NAME_LABEL: name}
    return {**obj, "metadata": {**metadata, "labels": labels}}


def check_namespace_objects(
    cluster: ClusterObjects, documents: Iterable[Document]
) -> list[Diagnostic]:
    """What the policies say of the Namespaces the GitOps tool applies from the
    repository's inputs (``documents``: the input documents the cluster's objects were
    read from), once per run, at the Namespace's own lines."""

    def placed(document: Document, at: FieldPath) -> Place:
        return lambda path, code, message, hint: document.finding(
            (*at, *path), code, message, hint=hint
        )

    return check_run_objects(
        cluster,
        (
            RunObject(data, _namespace_named(data), placed(document, at))
            for document, at, data in _namespaces(documents)
        ),
    )


def _namespace_named(namespace: JsonObject) -> str:
    name = text(as_object(namespace.get("metadata")).get("name")) or ""
    return f"the Namespace {name!r}, {GITOPS_TOOL}"


@dataclass(frozen=True, slots=True)
class _Outcome:
    """One thing the plugin says of one object: its rule, its cause (the same for every
    object it reaches), what happens to the object (``lead``, ``{are}`` and ``{them}``
    standing for the verb and pronoun), the cluster's words for the first object, the
    fix, and the path of the value at fault."""

    code: str
    cause: str
    lead: str
    text: str
    hint: str | None
    where: FieldPath
    named: bool = False
    """True when ``text`` names the object (several objects each have their own name)."""

    def said(self, objects: int, *, plural: bool) -> str:
        """What follows the objects' description in the message."""
        lead = self.lead
        if objects > 1 and self.named:
            lead = lead.replace(": ", ", each as the first: ", 1)
        are, them = ("are", "them") if plural else ("is", "it")
        return lead.replace("{are}", are).replace("{them}", them) + self.text


def _namespaces(documents: Iterable[Document]) -> Iterator[tuple[Document, FieldPath, JsonObject]]:
    """The Namespaces of ``documents`` (a ``List``'s items too), each with its place."""
    for document in documents:
        data = document.data
        if not isinstance(data, dict):
            continue
        kind = text(data.get("kind")) or ""
        found: list[tuple[FieldPath, JsonObject]] = [((), data)]
        if kind.endswith("List"):
            found = [(("items", index), item) for index, item in objects(data.get("items"))]
        for at, obj in found:
            if (obj.get("apiVersion"), obj.get("kind")) == ("v1", "Namespace"):
                yield document, at, obj


def _objects(found: AdmissionInput) -> Iterator[_Seen]:
    """Every object the cluster sees, in the order it sees them, with its creator."""
    creators = found.cluster.creators
    job = found.job
    if found.through_trainer:
        trainjob = job.trainjob
        yield _Seen(
            trainjob.data,
            creators.gitops,
            trainjob.data,
            "",
            _applied_described(trainjob.data, sent(GITOPS_TOOL, old := found.old(trainjob.data))),
            lambda path: Written(trainjob, path),
            old,
        )
    if found.trainjob_refused:
        return  # the Trainer controller never sees a TrainJob the API server refused
    for obj in found.applied or (job.stored_jobset(),):
        old = found.updated(obj)
        described = _applied_described(obj, sent(found.built_by, old))
        yield _Seen(obj, found.builder, obj, "", described, _applied_origin(job, obj), old)
    for child in found.child_jobs:
        yield _Seen(
            child.job,
            creators.jobset_controller,
            child.job,
            child.replicated_job,
            "",
            _child_origin(job, child),
        )
    for pod in found.pods:
        yield _pod_seen(found, pod)


def _pod_seen(found: AdmissionInput, pod: CreatedPod) -> _Seen:
    """A pod as the Job controller sends it, after the mutating plugins."""
    spec = mutated_spec(found, pod)
    written: JsonObject = {"metadata": pod.metadata, "spec": pod.spec}
    return _Seen(
        {"apiVersion": "v1", "kind": "Pod", "metadata": pod.metadata, "spec": spec},
        found.cluster.creators.job_controller,
        written,
        pod.replicated_job,
        "",
        pod.origin,
    )


def policy_verdict(
    objects: ClusterObjects, obj: JsonObject, user: UserInfo, old: JsonObject | None = None
) -> Verdict:
    """The plugin's verdict on ``obj`` sent by ``user`` (a Job the JobSet or the CronJob
    controller creates, the JobSet the GitOps tool applies: an UPDATE of ``old`` when it
    replaces a deployed one); empty without policies."""
    cluster = objects.policies
    if not cluster.policies or not cluster.bindings:
        return Verdict()
    request = request_for(obj, user, old=old)
    return admit(cluster, request) if request is not None else Verdict()


def _applied_origin(job: ResolvedJob, obj: JsonObject) -> Callable[[FieldPath], Origin]:
    """Where a value of an applied object is written: the JobSet's spec through the
    resolve trace, a claim's in its volumeClaimPolicies template, anything else on the
    TrainJob's metadata."""
    kind = (obj.get("apiVersion"), obj.get("kind"))
    is_jobset = kind == (JOBSET_API_VERSION, JOBSET_KIND)
    claim = _claim_template(job, obj) if kind == ("v1", "PersistentVolumeClaim") else None

    def origin(path: FieldPath) -> Origin:
        if claim is not None and path[:1] in (("spec",), ("metadata",)):
            return job.origin((*claim, *path))
        if is_jobset and path[:1] == ("spec",) and len(path) > 1:
            return job.origin(path[1:])
        if is_jobset and path[:1] == ("metadata",) and len(path) > 1:
            traced = job.trace.origin(job.jobset_metadata, path[1:])
            if traced is not None:
                return traced
            # The JobSet carries the TrainJob's own labels and annotations.
            if (
                path[1:2] in (("labels",), ("annotations",))
                and get_path(job.trainjob.data, path) is not None
            ):
                return Written(job.trainjob, path)
        return Written(job.trainjob, ("metadata",))

    return origin


def _claim_template(job: ResolvedJob, claim: JsonObject) -> FieldPath | None:
    """The path, in the JobSet spec, of the volumeClaimPolicies template a claim is built
    from (the claim is named ``<template>-<jobset>``)."""
    name = text(as_object(claim.get("metadata")).get("name"))
    for index, policy in objects(job.template.get(CLAIM_POLICIES)):
        for number, template in objects(policy.get("templates")):
            written = text(as_object(template.get("metadata")).get("name"))
            if written and claim_name(written, job.name) == name:
                return (CLAIM_POLICIES, index, "templates", number)
    return None


def _child_origin(job: ResolvedJob, child: ChildJob) -> Callable[[FieldPath], Origin]:
    return lambda path: child_origin(job, child, path)


def _applied_described(obj: JsonObject, sender: str) -> str:
    """``the JobSet 'x', applied by the GitOps tool`` (``sender``: who sends it)."""
    kind = text(obj.get("kind")) or "object"
    name = text(as_object(obj.get("metadata")).get("name")) or ""
    return f"the {kind} {name!r}, {sender}" if name else f"the {kind}, {sender}"


def _plural(seen: list[_Seen]) -> bool:
    """Whether the objects of one finding are several: pods, or Jobs of several
    replicatedJobs."""
    return seen[0].obj.get("kind") == "Pod" or len({item.name for item in seen}) > 1


def _described(seen: list[_Seen]) -> str:
    """The objects of one finding: an applied object, or the Jobs or pods of the
    replicatedJobs it reaches (``the pods of replicatedJobs 'a' and 'b', created by …``)."""
    first = seen[0]
    if first.described:
        return first.described
    names = (item.name for item in seen)
    if first.obj.get("kind") == "Pod":
        return created_from(("pods", "pods"), names, JOB_CONTROLLER)
    return created_from(("Job", "Jobs"), names, "the JobSet controller")


def _outcomes(
    cluster: Cluster,
    verdict: Verdict,
    request: Request,
    seen: _Seen,
    policies: dict[str, Policy],
    unevaluated: set[str],
) -> Iterator[_Outcome]:
    """Each thing the plugin says of one request."""

    def retry(obj: JsonObject) -> Verdict:
        again = request_for(obj, seen.user, old=seen.old)
        return admit(cluster, again) if again is not None else Verdict()

    resource = request.resource.group_resource
    # A pod's name is generated when it is created: only its shape is known.
    name = request.name or (POD_NAME if seen.obj.get("kind") == "Pod" else None)
    for denial in dict.fromkeys(verdict.denials):
        # A policy that cannot run refuses whatever the object holds: no value is at fault.
        where = (
            ()
            if denial.message.startswith(_UNRUNNABLE)
            else _place(
                seen,
                policies.get(denial.policy),
                denial.message,
                _fails(retry, VAP_DENIED.code, denial.policy),
            )
        )
        yield _Outcome(
            VAP_DENIED.code,
            denial.text,
            ", {are} refused: ",
            forbidden(resource, name, denial.text),
            (
                f"ValidatingAdmissionPolicy '{denial.policy}' cannot run as configured, so "
                "it refuses whatever the object holds: correct the policy or its binding "
                "(its parameters, paramKind or expressions), or give it failurePolicy: Ignore"
            )
            if denial.message.startswith(_UNRUNNABLE)
            else _hint(denial.policy, denial.binding, where),
            where,
            named=bool(request.name),
        )
    for warning in verdict.warnings:
        parts = _WARNING.fullmatch(warning)
        policy = parts["policy"] if parts else ""
        binding = parts["binding"] if parts else None
        where = _place(
            seen,
            policies.get(policy),
            parts["message"] if parts else "",
            _fails(retry, VAP_WARNED.code, policy),
        )
        yield _Outcome(
            VAP_WARNED.code,
            warning,
            ", {are} admitted with a warning: ",
            warning,
            _hint(policy, binding, where),
            where,
        )
    for policy, binding, message in _audit_failures(verdict):
        where = _place(
            seen,
            policies.get(policy),
            message,
            _fails(retry, VAP_AUDITED.code, policy),
        )
        said = (
            f"validation failure of ValidatingAdmissionPolicy '{policy}' with binding "
            f"'{binding}': {message}"
        )
        yield _Outcome(
            VAP_AUDITED.code,
            said,
            ", {are} admitted with an audit annotation: ",
            said,
            _hint(policy, binding, where),
            where,
        )
    for skipped in verdict.not_evaluated:
        if skipped.policy in unevaluated:
            continue
        unevaluated.add(skipped.policy)
        through = f" with binding '{skipped.binding}'" if skipped.binding else ""
        lead = (
            f": ValidatingAdmissionPolicy '{skipped.policy}'{through} cannot be evaluated "
            "offline on {them}: "
        )
        namespace = request.namespace
        if namespace and namespace not in cluster.namespaces and repr(namespace) in skipped.reason:
            hint = (
                f"declare the Namespace {namespace!r} among `cluster.manifests` (as "
                "`trainc cluster pull` writes it), so that the policy's selectors can be read"
            )
        else:
            hint = (
                "trainc does not count it as admitted: check it with "
                "`kubectl apply --dry-run=server`"
            )
        yield _Outcome(
            VAP_NOT_EVALUATED.code, lead + skipped.reason, lead, skipped.reason, hint, ()
        )


def _fails(
    retry: Callable[[JsonObject], Verdict], code: str, policy: str
) -> Callable[[JsonObject], bool]:
    """Whether ``policy`` still fails (as ``code`` reports) on a variant of the object."""

    def fails(obj: JsonObject) -> bool:
        verdict = retry(obj)
        if code == VAP_DENIED.code:
            return any(denial.policy == policy for denial in verdict.denials)
        if code == VAP_WARNED.code:
            return any(
                (parts := _WARNING.fullmatch(warning)) is not None and parts["policy"] == policy
                for warning in verdict.warnings
            )
        return any(name == policy for name, _, _ in _audit_failures(verdict))

    return fails


def _audit_failures(verdict: Verdict) -> Iterator[tuple[str, str, str]]:
    """(policy, binding, message) of each failure an ``Audit`` binding records."""
    recorded = verdict.annotations.get(VALIDATION_FAILURE)
    if not recorded:
        return
    value: JsonValue = json.loads(recorded)
    for entry in value if isinstance(value, list) else []:
        item = as_object(entry)
        yield (
            text(item.get("policy")) or "",
            text(item.get("binding")) or "",
            text(item.get("message")) or "",
        )


def _hint(policy: str, binding: str | None, where: FieldPath) -> str:
    field = _dotted(where)
    change = f"change {field} as the policy requires" if field else "change the object"
    exempt = f"binding '{binding}'" if binding else f"the bindings of policy '{policy}'"
    return f"{change}, or exempt these objects in the {exempt} (spec.matchResources)"


def _dotted(path: FieldPath) -> str:
    parts: list[str] = []
    for part in path:
        if isinstance(part, int):
            parts[-1:] = [f"{parts[-1]}[{part}]"] if parts else [f"[{part}]"]
        else:
            parts.append(part)
    return ".".join(parts)


def _place(
    seen: _Seen, policy: Policy | None, message: str, fails: Callable[[JsonObject], bool]
) -> FieldPath:
    """The path of the value the policy's failing validation reads of ``object``, as far
    as it exists where the object is written; () when that cannot be told. ``fails``
    tells whether the policy still fails on a variant of the object, to find the item of
    a list at fault."""
    if policy is None:
        return ()
    validations = [v for v in policy.validations if v.message and v.message == message]
    expressions = [v.expression for v in validations or policy.validations]
    read: Reads = {}
    for expression in expressions:
        read = union(read, reads(expression, "object"))
    for variable in policy.variables:
        if any(f"variables.{variable.name}" in expression for expression in expressions):
            read = union(read, reads(variable.expression, "object"))
    return _concrete(read, seen, fails)


def _concrete(read: Reads, seen: _Seen, fails: Callable[[JsonObject], bool]) -> FieldPath:
    """The one path ``read`` selects in the written object, down to where it branches or
    the value ends; of a list the policy reads item by item, the first item that fails
    alone (none: the list itself)."""
    path: list[str | int] = []
    value: JsonValue = seen.written
    while read:
        if ITEMS in read and isinstance(value, list) and len(read) == 1:
            index = next(
                (i for i in range(len(value)) if fails(_narrowed(seen.obj, tuple(path), i))),
                None,
            )
            if index is None:
                break
            path.append(index)
            value, read = value[index], read[ITEMS]
            continue
        present = [key for key in read if key != ITEMS and isinstance(value, dict) and key in value]
        if len(present) != 1 or not isinstance(value, dict):
            break
        key = present[0]
        path.append(key)
        value, read = value[key], read[key]
    return tuple(path)


def _narrowed(obj: JsonObject, path: FieldPath, index: int) -> JsonObject:
    """``obj`` with the list at ``path`` cut down to its item ``index``."""

    def cut(value: JsonValue, rest: FieldPath) -> JsonValue:
        if not rest:
            return [value[index]] if isinstance(value, list) and index < len(value) else value
        head = rest[0]
        if isinstance(head, str) and isinstance(value, dict) and head in value:
            return {**value, head: cut(value[head], rest[1:])}
        if isinstance(head, int) and isinstance(value, list) and head < len(value):
            return [*value[:head], cut(value[head], rest[1:]), *value[head + 1 :]]
        return value

    return as_object(cut(obj, path))
