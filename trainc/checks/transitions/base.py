"""The repository at a base revision, and what an edit since then does to deployed objects.

``validate --base REF`` reads every input file as it was at ``REF`` (the commit the
cluster was last synced from, typically the target branch). Two things are judged against
it:

- each object's transition rules: its CRD's rules that read ``oldSelf``, such as a
  TrainJob's immutable ``runtimeRef`` (:mod:`trainc.schema.cel.transitions`);
- each TrainJob's JobSet: the TrainJob is resolved at ``REF``, on the runtime it had
  there, and the JobSet that deployed is compared with the one it resolves to now
  (:mod:`trainc.checks.transitions.update`). An edit to a runtime reaches every deployed
  JobSet of that runtime, so the same refusal of many JobSets is one finding, on the
  runtime's line, that names them all.

A JobSet is compared only where both sides are sound: a TrainJob or runtime whose own
update the transition rules refuse is reported for that, once, and a TrainJob that did
not resolve cleanly at ``REF`` never deployed a JobSet to compare with. Both revisions are
resolved with the current configuration.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace

from trainc.checks.transitions.new_object_fix import new_object_fix
from trainc.checks.transitions.update import check_jobset_update
from trainc.checks.webhooks.cross_object import document_order
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.load.documents import LoadedObject
from trainc.model.kinds import TRAINJOB
from trainc.model.schematree import load_kind_schema
from trainc.plugins import registry
from trainc.resolve.index import RuntimeIndex
from trainc.resolve.job import RuntimeSpecs, resolve_job
from trainc.resolve.resolved import ResolvedJob
from trainc.schema.cel.transitions import check_transitions
from trainc.schema.layers import prepare_object

ObjectKey = tuple[str, str | None, str]

#: How many JobSets one finding names before it only counts the rest.
_NAMED: int = 5


def object_key(obj: DefaultedObject) -> ObjectKey:
    """An object's identity in the cluster: kind, effective namespace, name."""
    return (obj.kind, obj.namespace, obj.name)


class BaseRevision:
    """The objects at the base revision, and the findings of an edit against them."""

    def __init__(self, objects: Sequence[LoadedObject], config: RepoConfig) -> None:
        """Default the base objects (those of them the schema accepts)."""
        self._config = config
        self._previous: dict[ObjectKey, DefaultedObject] = {}
        for loaded in objects:
            _, defaulted, _ = prepare_object(loaded, config)
            if defaulted is not None and defaulted.schema_valid:
                self._previous.setdefault(object_key(defaulted), defaulted)
        self._index = RuntimeIndex(document_order(list(self._previous.values())))
        self._specs = RuntimeSpecs()
        self._refused: set[ObjectKey] = set()
        self._updates: dict[Diagnostic, list[str]] = {}
        self._refusals: dict[tuple[str, str], list[Diagnostic]] = {}
        self._reported: set[Diagnostic] = set()

    def check_transitions(self, current: Iterable[DefaultedObject]) -> list[Diagnostic]:
        """Transition rules of every object that also exists at the base revision."""
        found: list[Diagnostic] = []
        for obj in current:
            old = self._previous.get(object_key(obj))
            if old is None or not obj.schema_valid:
                continue
            refusals = check_transitions(
                obj, old, load_kind_schema(obj.kind), fix=new_object_fix(obj.kind)
            )
            errors = [refusal for refusal in refusals if refusal.is_error]
            if errors:
                self._refused.add(object_key(obj))
                if obj.kind == TRAINJOB.kind:
                    self._refusals[(obj.namespace or "", obj.name)] = errors
            found.extend(refusals)
        self._reported.update(found)
        return found

    def update_refusals(self, job: ResolvedJob, deployed: ResolvedJob | None) -> list[Diagnostic]:
        """What the API server refuses when ``job``'s JobSet replaces the one its
        TrainJob deployed (``deployed``: :meth:`deployed`, which the caller resolves once
        for every check of the update). Reads only what the revision held before the
        TrainJobs were judged, so a worker process may ask; :meth:`record_update` keeps
        the answer.
        """
        if {object_key(job.trainjob), object_key(job.runtime)} & self._refused:
            return []
        if deployed is None:
            return []
        return check_jobset_update(deployed, job)

    def record_update(self, trainjob: DefaultedObject, refusals: Sequence[Diagnostic]) -> None:
        """Keep ``trainjob``'s :meth:`update_refusals` until :meth:`update_findings`, so
        that one runtime edit refused by many JobSets is reported once."""
        namespace = trainjob.required_namespace()
        for refusal in refusals:
            self._updates.setdefault(refusal, []).append(f"{namespace}/{trainjob.name}")
        errors = [refusal for refusal in refusals if refusal.is_error]
        if errors:
            self._refusals.setdefault((namespace, trainjob.name), []).extend(errors)

    def refusals(self, namespace: str, name: str) -> tuple[Diagnostic, ...]:
        """Why the API server refuses to update this TrainJob or its deployed JobSet in
        place (none when it accepts the edit)."""
        return tuple(self._refusals.get((namespace, name), ()))

    def reported(self, diagnostic: Diagnostic) -> bool:
        """Whether ``diagnostic`` is one of this revision's: an update refused, which
        only exists against the deployed objects."""
        return diagnostic in self._reported

    def deployed_jobs(self) -> Iterator[ResolvedJob]:
        """Every TrainJob of the base revision that deployed, resolved there, in
        (namespace, name) order: what the cluster runs before the edit."""
        trainjobs = sorted(
            (obj for obj in self._previous.values() if obj.kind == TRAINJOB.kind),
            key=lambda obj: (obj.namespace or "", obj.name),
        )
        for trainjob in trainjobs:
            deployed = self.deployed(trainjob)
            if deployed is not None:
                yield deployed

    def update_findings(self) -> list[Diagnostic]:
        """Every refused JobSet update, each naming the JobSets it concerns."""
        found = [
            replace(refusal, message=f"{_jobsets(names)} this update: {refusal.message}")
            for refusal, names in self._updates.items()
        ]
        self._reported.update(found)
        return found

    def previous(self, obj: DefaultedObject) -> DefaultedObject | None:
        """``obj`` as the base revision holds it (defaulted), if it holds it."""
        return self._previous.get(object_key(obj))

    def deployed(self, trainjob: DefaultedObject) -> ResolvedJob | None:
        """The TrainJob as resolved at the base revision, if it resolved cleanly there:
        what it deployed."""
        old = self.previous(trainjob)
        if old is None or old.kind != TRAINJOB.kind:
            return None
        runtime = self._index.lookup(old)
        if not isinstance(runtime, DefaultedObject):
            return None
        resolved = resolve_job(
            old, runtime, self._config.compile, plugins=registry.PLUGINS, specs=self._specs
        )
        if any(finding.is_error for finding in resolved.findings):
            return None
        return resolved


def _jobsets(names: list[str]) -> str:
    """``the deployed JobSet a/b refuses`` or ``the 3 deployed JobSets a/b, a/c, a/d
    refuse``, naming at most :data:`_NAMED`."""
    if len(names) == 1:
        return f"the deployed JobSet {names[0]} refuses"
    shown = ", ".join(names[:_NAMED])
    more = f" and {len(names) - _NAMED} more" if len(names) > _NAMED else ""
    return f"the {len(names)} deployed JobSets {shown}{more} refuse"
