"""The rest of the repository, as a run on named files sees it: what its objects can clash with.

A run on named files checks those files only, but their objects share namespaces with
every object of the repository: a TrainJob name, and so its JobSet, PodGroup and
ConfigMap names (:mod:`.duplicates`), a runtime name, a volume claim name
(:mod:`.claim_clashes`). The other runtimes come from the run's context load, the other
TrainJobs as :class:`~trainc.load.declared.Declared` names; neither is checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field

from trainc.checks.webhooks.claim_clashes import ClaimUser
from trainc.checks.webhooks.duplicates import Identity
from trainc.load.declared import Declared
from trainc.load.defaulted import DefaultedObject, effective_namespace
from trainc.load.documents import LoadedObject
from trainc.model.json import JsonObject
from trainc.model.kinds import CLUSTER_TRAINING_RUNTIME, RUNTIME_KINDS, TRAINJOB
from trainc.plugins.volumes import claim_template_names
from trainc.records import dataclass
from trainc.resolve.index import RuntimeAddress, runtime_address
from trainc.resolve.resolved import claim_name


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """Objects of the repository a run does not check: the ``file:line`` of each, by
    identity (the first declaration of each), and the TrainJobs among them whose
    runtimes have claim templates."""

    declared: Mapping[Identity, str] = field(default_factory=dict)
    claim_users: tuple[ClaimUser, ...] = ()


def rest_of_repository(
    runtimes: Sequence[LoadedObject],
    trainjobs: Sequence[Declared],
    checked: Sequence[DefaultedObject],
    default_namespace: str,
) -> Elsewhere:
    """What ``runtimes`` and ``trainjobs``, found outside the run's targets, can clash with.

    ``checked`` are the run's objects: a runtime among them is not elsewhere, and its
    claim templates are the ones the TrainJobs on it get.
    """
    checked_runtimes = {id(obj.loaded) for obj in checked if obj.kind in RUNTIME_KINDS}
    templates: dict[RuntimeAddress, tuple[str, ...]] = {}
    for runtime in runtimes:
        address = (runtime.kind, effective_namespace(runtime, default_namespace), runtime.name)
        templates.setdefault(address, _templates(runtime.data))
    for obj in checked:
        if obj.kind in RUNTIME_KINDS:
            templates[(obj.kind, obj.namespace, obj.name)] = _templates(obj.data)
    declared: dict[Identity, str] = {}
    for runtime in runtimes:
        if id(runtime) not in checked_runtimes:
            namespace = effective_namespace(runtime, default_namespace)
            position = runtime.document.locate(("metadata", "name"))
            declared.setdefault(
                (runtime.kind, namespace, runtime.name), f"{runtime.path}:{position.line}"
            )
    users: list[ClaimUser] = []
    for trainjob in trainjobs:
        namespace = trainjob.namespace or default_namespace
        declared.setdefault((TRAINJOB.kind, namespace, trainjob.name), trainjob.where)
        if trainjob.runtime_name is None:
            continue
        # An unset runtimeRef.kind is the CRD's default, a ClusterTrainingRuntime.
        kind = trainjob.runtime_kind or CLUSTER_TRAINING_RUNTIME.kind
        found = templates.get(runtime_address(kind, trainjob.runtime_name, namespace), ())
        if found:
            users.append(ClaimUser(namespace, trainjob.name, trainjob.path, trainjob.line, found))
    return Elsewhere(declared, tuple(users))


def clash_needles(targets: Sequence[LoadedObject], runtimes: Iterable[LoadedObject]) -> set[str]:
    """The names a TrainJob of another file must hold to clash with a TrainJob of
    ``targets`` (see :func:`~trainc.load.declared.declared_trainjobs`): each target's
    name, and each part after a ``-`` of the claim names a target gets with any claim
    template of ``runtimes``, since template ``t`` of job ``j`` clashes with template
    ``u`` of job ``k`` when ``t-j`` is ``u-k``."""
    names = {obj.name for obj in targets if obj.kind == TRAINJOB.kind and obj.name}
    templates = {name for runtime in runtimes for name in claim_template_names(runtime.data)}
    needles = set(names)
    for name in names:
        for template in templates:
            claim = claim_name(template, name)
            needles.update(claim[at + 1 :] for at, char in enumerate(claim) if char == "-")
    return needles


def claim_user(trainjob: DefaultedObject, runtime: DefaultedObject) -> ClaimUser | None:
    """``trainjob`` on ``runtime``, checked by the run, when the runtime has claim
    templates."""
    found = _templates(runtime.data)
    if not found:
        return None
    line = trainjob.loaded.document.locate(("metadata", "name")).line
    return ClaimUser(
        trainjob.namespace or "",
        trainjob.name,
        trainjob.loaded.path,
        line,
        found,
        trainjob,
    )


def _templates(runtime: JsonObject) -> tuple[str, ...]:
    return tuple(sorted(claim_template_names(runtime)))
