"""What the API server refuses when a deployed JobSet is updated to what its TrainJob resolves to.

Argo CD and Flux apply the compiled JobSet over the one already in the cluster, and one
refused field fails the whole apply: the sync breaks and nothing of the change, a
deadline included, reaches the cluster. The JobSet API refuses, on update:

- a change to ``failurePolicy``, ``network``, ``startupPolicy``, ``successPolicy``,
  ``volumeClaimPolicies`` or a replicatedJob's ``dependsOn``: transition rules of the JobSet
  CRD (``self == oldSelf``), run here from the generated schema by the CEL engine;
- any change to ``replicatedJobs``, except that while the JobSet is suspended (before or
  after the update) the pod template's labels, annotations, ``nodeSelector``,
  ``tolerations`` and ``schedulingGates`` may change, and any change to ``managedBy``: the
  JobSet webhook's update check, which compares decoded Go values (so an empty list equals
  an absent one, and ``1000m`` equals ``1``)
  (https://github.com/kubernetes-sigs/jobset/blob/main/pkg/webhooks/jobset_webhook.go).

Each refusal is reported on the input line behind the new value (its provenance), with
the change and the way out: a deployed JobSet never takes it, so the change must go to a
new object. Nothing else trainc emits for a job has immutable fields an edit can reach:
neither PodGroup CRD (scheduler-plugins, Volcano) has transition rules and Volcano's
PodGroup webhook judges creation only; the PersistentVolumeClaims come from
``volumeClaimPolicies``, whose change the JobSet rule above reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Final

from trainc.checks.shared.locate import locate
from trainc.checks.transitions.new_object_fix import new_object_fix
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.model.json import (
    FieldPath,
    JsonObject,
    JsonValue,
    as_list,
    copy_json,
    format_path,
    get_path,
    held_prefix,
)
from trainc.model.kinds import TRAINJOB
from trainc.model.labels import JOBSET_API_VERSION, JOBSET_KIND
from trainc.model.schemafiles import OUTPUT_SCHEMAS
from trainc.model.schematree import KindSchema, load_kind_schema
from trainc.plugins.kueue import queue_name
from trainc.resolve.edits import child_object
from trainc.resolve.provenance import Derived
from trainc.resolve.quantity import QuantityError, parse_quantity
from trainc.resolve.resolved import ResolvedJob
from trainc.schema.cel.changes import describe_change, difference_path
from trainc.schema.cel.transitions import check_transitions
from trainc.schema.defaults import apply_defaults

XOBJ_JOBSET_IMMUTABLE = Rule(
    "xobj.jobset-immutable",
    Severity.ERROR,
    "an edit changes replicatedJobs or managedBy of a deployed JobSet (--base)",
)


#: Pod template fields the webhook lets change while the JobSet is suspended (for Kueue).
_MUTABLE_WHILE_SUSPENDED: Final[tuple[tuple[str, str], ...]] = (
    ("metadata", "labels"),
    ("metadata", "annotations"),
    ("spec", "nodeSelector"),
    ("spec", "tolerations"),
    ("spec", "schedulingGates"),
)
#: Maps of resource quantities, and quantity fields, the webhook compares by amount.
_QUANTITY_MAPS: Final = frozenset({"limits", "requests", "overhead"})
_QUANTITY_FIELDS: Final = frozenset({"sizeLimit"})
_IMMUTABLE: Final = "field is immutable"


def check_jobset_update(old: ResolvedJob, new: ResolvedJob) -> list[Diagnostic]:
    """What the API server refuses when ``old``'s JobSet, deployed, is updated to ``new``'s.

    ``old`` is the same TrainJob resolved at the base revision (with the runtime it had
    there).
    """
    before = DeployedJobSet(old, deployed_jobset(old))
    after = DeployedJobSet(new, deployed_jobset(new), before.data)
    found = check_transitions(after, before, _jobset_schema())
    found += _replicated_jobs_change(before.data, after)
    found += _managed_by_change(before.data, after)
    return found


def deployed_jobset(job: ResolvedJob) -> JsonObject:
    """The JobSet as the API server holds it: CRD defaults applied (what rules compare)."""
    data: JsonObject = {
        "apiVersion": JOBSET_API_VERSION,
        "kind": JOBSET_KIND,
        "metadata": {"name": job.name, "namespace": job.namespace},
        "spec": job.jobset_spec,
    }
    defaulted = apply_defaults(data, _jobset_schema())
    return defaulted if isinstance(defaulted, dict) else data


@dataclass(frozen=True, slots=True)
class DeployedJobSet:
    """A resolved JobSet as the rules judge it, placing findings on the lines behind it.

    ``previous`` is the deployed JobSet's data when this one is its update: a finding is
    then placed where the two first differ, the line a user changed.
    """

    job: ResolvedJob
    data: JsonObject
    previous: JsonObject | None = None

    def finding(
        self,
        path: FieldPath,
        code: str,
        message: str,
        *,
        severity: Severity | None = None,
        hint: str | None = None,
    ) -> Diagnostic:
        """A refusal of the value at ``path``, on the input line that value came from."""
        where = path
        if self.previous is not None:
            changed = difference_path(get_path(self.previous, path), get_path(self.data, path))
            where = (*path, *(changed or ()))
        spec_path = held_prefix(self.job.jobset_spec, where[1:]) if where[:1] == ("spec",) else ()
        notes = [hint] if hint else []
        notes.append(_refused_update_fix(self.job, spec_path))
        return locate(
            self.job.origin(spec_path),
            code,
            f"{format_path(path)}: {message}",
            hint="; ".join(notes),
            severity=severity,
        )


def _jobset_schema() -> KindSchema:
    return load_kind_schema(OUTPUT_SCHEMAS[(JOBSET_API_VERSION, JOBSET_KIND)].name)


def _replicated_jobs_change(old: JsonObject, new: DeployedJobSet) -> list[Diagnostic]:
    """The webhook's check: replicatedJobs as decoded values, less what suspension frees."""
    suspended = any(get_path(data, ("spec", "suspend")) is True for data in (old, new.data))
    before = as_list(get_path(old, ("spec", "replicatedJobs")))
    after = as_list(get_path(new.data, ("spec", "replicatedJobs")))
    if suspended:
        after = _with_suspended_fields(after, before)
    changed = _semantic_difference(before, after, ("spec", "replicatedJobs"))
    if changed is None:
        return []
    notes = [describe_change(get_path(old, changed), get_path(new.data, changed), changed)]
    if not suspended and _freed_by_suspension(changed):
        notes.append(_while_suspended(new.job))
    return [
        new.finding(
            ("spec", "replicatedJobs"),
            XOBJ_JOBSET_IMMUTABLE.code,
            _IMMUTABLE,
            hint="; ".join(notes),
        )
    ]


def _while_suspended(job: ResolvedJob) -> str:
    """When the JobSet API takes a pod scheduling change: while suspended, which a queued
    job is only until Kueue admits it (suspend is Kueue's to set then, docs/kueue.md)."""
    allowed = "the JobSet API allows it only while the JobSet is suspended"
    if queue_name(job.jobset_metadata):
        return f"{allowed}, which a job queued in Kueue is only until Kueue admits it"
    return f"{allowed} (spec.suspend: true on the TrainJob)"


def _freed_by_suspension(path: FieldPath) -> bool:
    """Whether ``path`` (in the JobSet) is in a field a suspended JobSet lets change."""
    in_template = path[3:6] == ("template", "spec", "template")
    return in_template and tuple(path[6:8]) in _MUTABLE_WHILE_SUSPENDED


def _managed_by_change(old: JsonObject, new: DeployedJobSet) -> list[Diagnostic]:
    path = ("spec", "managedBy")
    before, after = get_path(old, path), get_path(new.data, path)
    if before == after:
        return []
    return [
        new.finding(
            path, XOBJ_JOBSET_IMMUTABLE.code, _IMMUTABLE, hint=describe_change(before, after, path)
        )
    ]


def _with_suspended_fields(new: list[JsonValue], old: list[JsonValue]) -> list[JsonValue]:
    """``new``'s replicatedJobs with the fields a suspended JobSet may change taken from
    the old replicatedJob of the same name, so that only the rest is compared."""
    old_by_name = {get_path(job, ("name",)): job for job in old if isinstance(job, dict)}
    munged: list[JsonValue] = []
    for job in new:
        previous = old_by_name.get(get_path(job, ("name",)))
        if not isinstance(job, dict) or previous is None:
            munged.append(job)
            continue
        copy = copy_json(job)
        template = child_object(child_object(child_object(copy, "template"), "spec"), "template")
        for section, key in _MUTABLE_WHILE_SUSPENDED:
            value = get_path(previous, ("template", "spec", "template", section, key))
            if value is None:
                child_object(template, section).pop(key, None)
            else:
                child_object(template, section)[key] = value
        munged.append(copy)
    return munged


def _semantic_difference(old: JsonValue, new: JsonValue, path: FieldPath) -> FieldPath | None:
    """Where ``new`` first differs from ``old`` as Go's semantic equality sees them.

    An empty list or mapping equals an absent one, and quantities compare by amount;
    everything else compares as written.
    """
    if (_empty(old) and _empty(new)) or _same_amount(old, new, path):
        return None
    members = _members(old, new)
    if members is None:
        return None if old == new else path
    for key, before, after in members:
        changed = _semantic_difference(before, after, (*path, key))
        if changed is not None:
            return changed
    return None


def _members(old: JsonValue, new: JsonValue) -> list[tuple[str | int, JsonValue, JsonValue]] | None:
    """The pairs to compare below two mappings, or two lists of one length; else None."""
    if isinstance(old, dict) and isinstance(new, dict):
        keys = [*old, *(key for key in new if key not in old)]
        return [(key, old.get(key), new.get(key)) for key in keys]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [(index, *pair) for index, pair in enumerate(zip(old, new, strict=True))]
    return None


def _empty(value: JsonValue) -> bool:
    return value is None or value in ([], {})


def _same_amount(old: JsonValue, new: JsonValue, path: FieldPath) -> bool:
    """Whether ``path`` holds a resource quantity (Go's ``resource.Quantity``) and the two
    values are one amount, however written."""
    quantity = bool(path) and (
        path[-1] in _QUANTITY_FIELDS or (len(path) > 1 and path[-2] in _QUANTITY_MAPS)
    )
    return quantity and _amount(old) is not None and _amount(old) == _amount(new)


def _amount(value: JsonValue) -> Decimal | None:
    try:
        return parse_quantity(value)
    except QuantityError:
        return None


def _refused_update_fix(job: ResolvedJob, spec_path: FieldPath) -> str:
    """How to get a change the deployed JobSet refuses into the cluster."""
    origin = job.origin(spec_path)
    written = origin.cause if isinstance(origin, Derived) else origin
    fix = new_object_fix(written.source.kind)
    if written.source.kind == TRAINJOB.kind:
        return f"{fix}, or delete the deployed JobSet first"
    return f"every deployed JobSet of {written.source.kind} {written.source.name} refuses it: {fix}"
