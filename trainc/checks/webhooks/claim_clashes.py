"""Two TrainJobs whose volume claims get one name, in one namespace.

The JobSet controller names the claim of template ``t`` of JobSet ``j`` ``t-j``
(KEP-572, https://github.com/kubernetes-sigs/jobset/blob/main/pkg/controllers/volume_claim_policy.go),
and so does trainc for the claims it emits (:mod:`trainc.plugins.volumes`); a
TrainJob's JobSet has the TrainJob's name. So template ``data`` of TrainJob ``x-y`` and
template ``data-x`` of TrainJob ``y`` both name ``data-x-y``: two jobs would write one
volume, or the second would be refused. Every other object a TrainJob becomes (its
JobSet, PodGroup, ConfigMaps) is named after the TrainJob alone, or with a suffix of its
kind, so those clash exactly when two TrainJobs share a name, which
:mod:`.duplicates` reports.

A clash is reported on each TrainJob the run checks that is not the original: the first
in document order, or, in a run on named files, a TrainJob of the rest of the repository,
whatever the order, since the named file is the one being changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.records import dataclass
from trainc.resolve.resolved import claim_name

XOBJ_VOLUME_CLAIM_CLASH = Rule(
    "xobj.volume-claim-clash",
    Severity.ERROR,
    "two TrainJobs' volume claims get the same PVC name",
)


CLAIM_CLASH = XOBJ_VOLUME_CLAIM_CLASH.code


@dataclass(frozen=True, slots=True)
class ClaimUser:
    """A TrainJob with claim templates: its effective namespace and name, where its name
    is declared (``path``, ``line``), its runtime's claim template names, and the object
    itself when the run checks it (None for a TrainJob of the rest of the repository)."""

    namespace: str
    name: str
    path: str
    line: int
    templates: tuple[str, ...]
    checked: DefaultedObject | None = None


def check_claim_clashes(users: Sequence[ClaimUser]) -> list[Diagnostic]:
    """One error per checked TrainJob whose claim another TrainJob's claim already names."""
    claimants: dict[tuple[str, str], list[tuple[ClaimUser, str]]] = {}
    for user in sorted(users, key=lambda user: (user.path, user.line)):
        for template in user.templates:
            key = (user.namespace, claim_name(template, user.name))
            claimants.setdefault(key, []).append((user, template))
    found: list[Diagnostic] = []
    for (_, claim), group in sorted(claimants.items()):
        if all(user.name == group[0][0].name for user, _ in group):
            continue
        original, original_template = next(
            ((user, template) for user, template in group if user.checked is None), group[0]
        )
        for user, template in group:
            if user.checked is None or user.name == original.name:
                continue
            found.append(
                user.checked.finding(
                    ("metadata", "name"),
                    CLAIM_CLASH,
                    f"the PersistentVolumeClaim {claim} of claim template {template!r} is also "
                    f"the claim of template {original_template!r} of TrainJob "
                    f"{original.namespace}/{original.name} at {original.path}:{original.line}: "
                    "both JobSets would use one volume",
                    hint="rename this TrainJob or the claim template, so that "
                    "'<template>-<TrainJob name>' names differ",
                )
            )
    return found
