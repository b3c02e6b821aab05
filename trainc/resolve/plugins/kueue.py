"""The Kueue plugin: what Kueue reads from a JobSet, carried over from the TrainJob.

With trainc no TrainJob reaches the cluster, so Kueue's TrainJob integration never sees
one: Kueue queues the JobSet, through its JobSet integration, and reads everything from
the JobSet's own labels (``QueueNameForObject`` and the label lookups in
https://github.com/kubernetes-sigs/kueue/blob/main/pkg/controller/jobframework/utils.go).
Upstream Trainer copies none of a TrainJob's labels to its JobSet (Kueue reads them off the
TrainJob there). trainc carries them all (:mod:`.metadata`); this plugin settles the two
things where Kueue's keys differ from any other:

- the labels ``kueue.x-k8s.io/queue-name``, ``priority-class`` and
  ``max-exec-time-seconds`` of the TrainJob become the JobSet's labels, over any value the
  runtime template gives (a runtime may name a default queue; the job chooses), where
  any other key keeps the runtime's value;
- ``spec.managedBy: kueue.x-k8s.io/multikueue`` on the TrainJob becomes the JobSet's
  ``spec.managedBy``, so the management cluster's JobSet controller leaves the JobSet
  alone and MultiKueue dispatches it to a worker cluster (the adapter in
  https://github.com/kubernetes-sigs/kueue/blob/main/pkg/controller/jobs/jobset/jobset_multikueue_adapter.go);
- a ``spec.managedBy`` equal to the JobSet controller's own value is dropped: it means
  the same as no value, and Kueue's webhook rewrites exactly that value (or none) to
  MultiKueue's on create when the queue dispatches to workers
  (https://github.com/kubernetes-sigs/kueue/blob/main/pkg/controller/jobs/jobset/jobset_webhook.go),
  after which git would hold a value the cluster refuses to take back (the field is
  immutable).

Whether these values are valid, and whether the JobSet fights Kueue, is judged on the
resolved JobSet (:mod:`trainc.checks.created.kueue`).
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.model.json import as_object, get_path
from trainc.model.labels import (
    JOBSET_CONTROLLER_MANAGED_BY,
    KUEUE_LABELS,
    MULTIKUEUE_MANAGED_BY,
)
from trainc.resolve.context import Resolution
from trainc.resolve.edits import set_labels
from trainc.resolve.provenance import Origin


@dataclass(frozen=True, slots=True)
class KueuePlugin:
    """Carries Kueue's labels and MultiKueue's ``managedBy`` from the TrainJob to the JobSet."""

    @property
    def name(self) -> str:
        """Kueue's concern: there is no upstream Trainer plugin for it."""
        return "kueue"

    def settle(self, context: Resolution) -> None:
        """Kueue's labels onto the JobSet's metadata, and the JobSet's ``managedBy``."""
        set_labels(context.trace, context.jobset_metadata, _carried(context))
        _settle_managed_by(context)


def _carried(context: Resolution) -> dict[str, tuple[str, Origin]]:
    """The TrainJob's Kueue labels, each with the line that wrote it."""
    values = as_object(get_path(context.job.trainjob.data, ("metadata", "labels")))
    return {
        name: (value, context.trainjob_at("metadata", "labels", name))
        for name in KUEUE_LABELS
        if isinstance(value := values.get(name), str)
    }


def _settle_managed_by(context: Resolution) -> None:
    """MultiKueue's value from the TrainJob; never the JobSet controller's own value."""
    spec = context.jobset_spec
    if context.job.spec.managed_by == MULTIKUEUE_MANAGED_BY:
        origin = context.trainjob_at("spec", "managedBy")
        context.trace.put(spec, "managedBy", MULTIKUEUE_MANAGED_BY, origin)
    elif spec.get("managedBy") == JOBSET_CONTROLLER_MANAGED_BY:
        del spec["managedBy"]
