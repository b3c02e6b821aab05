"""The TrainJob's own labels and annotations, carried to the JobSet that stands for it.

With trainc no TrainJob reaches the cluster: the JobSet is the object ``kubectl get``,
cost reports, GitOps tools and Kueue see. Upstream Trainer keeps a TrainJob's metadata on
the TrainJob object and copies none of it to its JobSet (the JobSet's metadata is the
runtime template's and the runtime patches', ``newRuntimeInfo`` in
https://github.com/kubeflow/trainer/blob/master/pkg/runtime/core/trainingruntime.go), so a
``team: vision`` label would be on no object at all. This plugin copies every label and
annotation of the TrainJob onto the JobSet, a deliberate difference from upstream
(``docs/upstream.md``, "Trainer: building the JobSet"), except the keys of prefixes that
belong to a component rather than to the user:

- ``trainc.dev/``: trainc's own; trainc reads the ones it defines where it means them (a
  progress deadline) and writes the JobSet's itself (source, deadlines, TTL);
- ``trainer.kubeflow.org/``: Trainer's, meaningful on a TrainJob to the Trainer controller,
  and trainc sets ``trainer.kubeflow.org/trainjob-name`` on the JobSet;
- ``kubernetes.io/`` and ``k8s.io/`` and their subdomains, which Kubernetes reserves for
  its core components (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set),
  e.g. ``kubectl.kubernetes.io/last-applied-configuration`` or JobSet's
  ``jobset.sigs.k8s.io/``; except ``app.kubernetes.io/``, the recommended labels meant for
  applications (https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/),
  which are carried.

Kueue's keys (``kueue.x-k8s.io/``), Argo CD's and Flux's annotations are carried like any
other: on the JobSet they act as they would on the TrainJob. The plugin settles last, so
it sees the JobSet's metadata as everything else left it; a key the JobSet already has with
another value (the runtime template's, a runtime patch's, trainc's
``app.kubernetes.io/managed-by``) keeps that value and the clash is reported on the
TrainJob's line (``compile.metadata-clash``). Kueue's three labels never clash: the Kueue
plugin has already given the JobSet the TrainJob's value.

The JobSet controller does not copy a JobSet's own labels to the Jobs and pods it creates
(``constructJob`` in
https://github.com/kubernetes-sigs/jobset/blob/main/pkg/controllers/jobset_controller.go
takes the replicatedJob template's), so neither does trainc: a label meant for pods
belongs in the runtime's pod template or a runtime patch.
"""

from __future__ import annotations

from typing import Final

from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.model.json import JsonObject, as_object, get_path
from trainc.records import dataclass
from trainc.resolve.context import Resolution
from trainc.resolve.edits import child_object
from trainc.resolve.provenance import Written, describe

COMPILE_METADATA_CLASH = Rule(
    "compile.metadata-clash",
    Severity.WARNING,
    "a TrainJob label or annotation does not reach the JobSet, which sets another value",
    compiled=True,
)


#: Prefixes whose keys stay on the TrainJob: trainc's own and upstream Trainer's.
_RESERVED_PREFIXES: Final = ("trainc.dev/", "trainer.kubeflow.org/")
#: Domains Kubernetes reserves for its core components, subdomains included.
_KUBERNETES_DOMAINS: Final = ("kubernetes.io", "k8s.io")
#: The recommended application labels, which live under a reserved domain yet are the user's.
_APPLICATION_PREFIX: Final = "app.kubernetes.io/"
_FIELDS: Final = ("labels", "annotations")


def carried_to_jobset(key: str) -> bool:
    """Whether the TrainJob's label or annotation ``key`` is copied to its JobSet."""
    if key.startswith(_APPLICATION_PREFIX):
        return True
    if key.startswith(_RESERVED_PREFIXES):
        return False
    prefix, slash, _ = key.partition("/")
    if not slash:
        return True
    return not any(
        prefix == domain or prefix.endswith("." + domain) for domain in _KUBERNETES_DOMAINS
    )


@dataclass(frozen=True, slots=True)
class TrainJobMetadataPlugin:
    """Copies the TrainJob's labels and annotations to the JobSet, reporting clashes."""

    @property
    def name(self) -> str:
        """trainc's own concern: upstream keeps the metadata on the TrainJob."""
        return "trainjob-metadata"

    def settle(self, context: Resolution) -> None:
        """Each carried key onto the JobSet's metadata, unless the JobSet says otherwise."""
        trainjob = context.job.trainjob
        for field in _FIELDS:
            values = as_object(get_path(trainjob.data, ("metadata", field)))
            carried = {key: value for key, value in values.items() if carried_to_jobset(key)}
            if not carried:
                continue
            current = child_object(context.jobset_metadata, field)
            for key, value in sorted(carried.items()):
                if not isinstance(value, str):
                    continue  # schema-valid metadata holds strings only
                if key not in current:
                    origin = context.trainjob_at("metadata", field, key)
                    context.trace.put(current, key, value, origin)
                elif current[key] != value:
                    context.findings.append(_clash(context, field, key, value, current))


def _clash(
    context: Resolution, field: str, key: str, value: str, current: JsonObject
) -> Diagnostic:
    """The finding that the TrainJob's ``key`` lost to the JobSet's own value, saying whose."""
    kept = current[key]
    origin = context.trace.origin(context.jobset_metadata, (field, key))
    if origin is None:
        where = "written in the runtime's JobSet template"
    elif (
        isinstance(origin, Written) and origin.source is context.job.trainjob and not origin.manager
    ):
        where = "trainc's own, on everything it builds, for the sweeper"
    else:
        where = describe(origin)
    noun = field.removesuffix("s")
    return context.job.trainjob.finding(
        ("metadata", field, key),
        COMPILE_METADATA_CLASH.code,
        f"the {noun} {key}: {value!r} does not reach the JobSet, which keeps {kept!r} ({where})",
        hint=f"remove the {noun} from the TrainJob or give it the JobSet's value {kept!r}",
    )
