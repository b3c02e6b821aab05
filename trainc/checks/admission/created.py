"""What the cluster's admission sees of one TrainJob: every object it will create, and who
creates it.

Admission judges objects as they arrive, and a TrainJob's objects arrive from three
creators: the GitOps tool applies what trainc builds (the JobSet, its PodGroup, claims and
ConfigMaps), the JobSet controller creates one Job per replicatedJob, and the Job
controller creates the pods. Each admission family (Pod Security, LimitRanger,
ResourceQuota, Kueue, ValidatingAdmissionPolicies) judges the objects it cares about from
one :class:`AdmissionInput`, and places its findings through :meth:`CreatedPod.origin`, on
the input line behind the value at fault.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final

from trainc.checks.admission.cluster import ClusterObjects, StoredKey, object_identity
from trainc.checks.admission.policies import UserInfo
from trainc.checks.admission.policies.admission import Verdict
from trainc.checks.admission.resource_quotas.admission import Refusal
from trainc.checks.created.childjobs import child_origin, resolved_child_jobs
from trainc.checks.shared.findings import created_from
from trainc.checks.workload.version import KubeVersion
from trainc.diagnostics import Diagnostic
from trainc.model.json import FieldPath, JsonObject, as_list, as_object, get_path
from trainc.resolve.childjobs import ChildJob
from trainc.resolve.provenance import Origin
from trainc.resolve.resolved import ResolvedJob

_TEMPLATE: Final = ("spec", "template")
JOB_CONTROLLER: Final = "the Job controller"
#: A pod's name in the API server's messages: the Job controller generates it, unknown
#: offline.
POD_NAME: Final = "…"
#: Who sends the objects trainc builds, as a finding names them.
GITOPS_TOOL: Final = "applied by the GitOps tool"
TRAINER_CONTROLLER: Final = "created by the Trainer controller"


def sent(sender: str, old: JsonObject | None) -> str:
    """How ``sender`` sends an object, as a finding says it: as it is (a CREATE), or as
    an update of the deployed one ``old`` (an UPDATE, with ``--base``)."""
    return sender if old is None else f"{sender} as an update of the deployed one"


@dataclass(frozen=True, slots=True)
class CreatedPod:
    """The pods of one child Job, as the Job controller creates them from its template.

    Every pod of a Job shares the template; what the Job controller adds to each (the
    completion index, hostname, ``job-name`` labels) decides no admission check, so one
    pod stands for all ``count`` of them (parallelism, defaulting to 1 as the Job API does:
    https://kubernetes.io/docs/concepts/workloads/controllers/job/#parallel-jobs).
    """

    job: ResolvedJob
    child: ChildJob

    @property
    def replicated_job(self) -> str:
        """The replicatedJob whose Jobs run these pods."""
        return self.child.replicated_job

    @property
    def metadata(self) -> JsonObject:
        """The pod's metadata: the template's, with the namespace the pods are created in."""
        written = as_object(get_path(self.child.job, (*_TEMPLATE, "metadata")))
        return {**written, "namespace": self.job.namespace}

    @property
    def spec(self) -> JsonObject:
        """The pod spec, as the Job's template holds it."""
        return as_object(get_path(self.child.job, (*_TEMPLATE, "spec")))

    @property
    def count(self) -> int:
        """How many pods of this template run at once in one Job."""
        value = get_path(self.child.job, ("spec", "parallelism"))
        return value if isinstance(value, int) and not isinstance(value, bool) else 1

    @property
    def jobs(self) -> int:
        """How many Jobs the replicatedJob makes (its ``replicas``)."""
        rjobs = as_list(self.job.jobset_spec.get("replicatedJobs"))
        replicas = as_object(rjobs[self.child.index]).get("replicas")
        return replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1

    def origin(self, path: FieldPath) -> Origin:
        """Where the value at ``path`` of the pod (``("spec", "containers", 0, ...)``)
        came from: the input line behind it, or the controller rule that added it."""
        return child_origin(self.job, self.child, (*_TEMPLATE, *path))

    def described(self) -> str:
        """The pods as a finding names them: ``the pods of replicatedJob 'node', created
        by the Job controller``."""
        return pods_created_from([self])


@dataclass(frozen=True, slots=True)
class ObjectVerdict:
    """What the policies and the quotas say of the TrainJob, the JobSet or a Job, asked
    once, when the judge decides whether what follows it is created at all: the families
    report from it rather than asking again."""

    policies: Verdict
    quota: Refusal | None

    @property
    def refused(self) -> bool:
        """Whether a ``Deny`` policy (or a failing configuration) or a quota refuses it."""
        return bool(self.policies.denials) or self.quota is not None


@dataclass(frozen=True)
class AdmissionInput:
    """One resolved TrainJob and the cluster that admits its objects.

    ``applied`` are the objects the cluster stores for it, as trainc builds them (empty
    when the run builds nothing); ``release`` is the Kubernetes release whose admission
    rules apply (trainc.yaml's ``kubernetesVersion``); ``children`` the child Jobs when
    the caller already built them for other checks (the job pass does); ``refused``
    names the replicatedJobs whose pods are never created or an earlier admission plugin
    refused, which the later ones never see; with ``jobset_refused`` the JobSet is
    refused and the JobSet controller creates no Job; with ``trainjob_refused`` the
    TrainJob the GitOps tool applies (``deploy: TrainJob``) is refused and the Trainer
    controller creates nothing: neither the ``applied`` objects nor their claims.
    ``through_trainer`` is set with trainc.yaml's ``deploy: TrainJob``: the GitOps tool
    applies the TrainJob itself and the Trainer controller creates the ``applied``
    objects (https://github.com/kubeflow/trainer/blob/master/pkg/controller/trainjob_controller.go);
    otherwise the GitOps tool applies them. Not slotted: the child Jobs and pods are
    computed once, on first use, by the families that need them.
    """

    job: ResolvedJob
    cluster: ClusterObjects
    release: KubeVersion
    applied: tuple[JsonObject, ...] = ()
    refused: frozenset[str] = frozenset()
    jobset_refused: bool = False
    trainjob_refused: bool = False
    children: tuple[ChildJob, ...] | None = None
    through_trainer: bool = False
    before: tuple[JsonObject, ...] = ()
    """What the GitOps tool applied for the TrainJob at the base revision (``--base``):
    an object applied again is an UPDATE of it."""
    prejudged: Mapping[StoredKey, ObjectVerdict] = field(default_factory=dict)
    """The verdicts already given on objects, by identity (:func:`object_identity`)."""

    def prejudged_for(self, obj: JsonObject) -> ObjectVerdict | None:
        """The verdict already given on ``obj`` (the TrainJob, the JobSet, a Job), if any."""
        return self.prejudged.get(object_identity(obj)) if self.prejudged else None

    @cached_property
    def replaced(self) -> dict[StoredKey, JsonObject]:
        """The objects of :attr:`before`, by identity."""
        return {object_identity(obj): obj for obj in self.before}

    def old(self, obj: JsonObject) -> JsonObject | None:
        """The object the GitOps tool's apply of ``obj`` replaces: ``oldObject`` of its
        UPDATE; None when ``obj`` is new (a CREATE)."""
        return self.replaced.get(object_identity(obj))

    def updated(self, obj: JsonObject) -> JsonObject | None:
        """The deployed object that ``obj``, one of the ``applied`` objects, replaces:
        None when it is new, or when the Trainer controller creates it (``deploy:
        TrainJob``: what a controller creates stays a CREATE)."""
        return None if self.through_trainer else self.old(obj)

    @property
    def built_by(self) -> str:
        """Who sends the ``applied`` objects, as a finding names them."""
        return TRAINER_CONTROLLER if self.through_trainer else GITOPS_TOOL

    @property
    def builder(self) -> UserInfo:
        """Who sends the ``applied`` objects, as ``request.userInfo`` shows it."""
        creators = self.cluster.creators
        return creators.trainer_controller if self.through_trainer else creators.gitops

    @cached_property
    def child_jobs(self) -> tuple[ChildJob, ...]:
        """The Jobs the JobSet controller creates, one per replicatedJob."""
        if self.jobset_refused:
            return ()
        if self.children is not None:
            return self.children
        return resolved_child_jobs(self.job)

    @cached_property
    def pods(self) -> tuple[CreatedPod, ...]:
        """The pods of each child Job still being admitted, in replicatedJob order."""
        return tuple(
            CreatedPod(self.job, child)
            for child in self.child_jobs
            if child.replicated_job not in self.refused
        )


def pods_created_from(pods: Iterable[CreatedPod]) -> str:
    """The pods of one finding: ``the pods of replicatedJobs 'a' and 'b', created by the
    Job controller``."""
    return created_from(("pods", "pods"), (pod.replicated_job for pod in pods), JOB_CONTROLLER)


@dataclass(frozen=True, slots=True)
class Judged:
    """What one admission plugin says of a TrainJob's pods, from one evaluation of each:
    its findings, and the replicatedJobs whose pods it refuses (which the plugins after
    it never see)."""

    findings: list[Diagnostic]
    refused: frozenset[str] = frozenset()


#: One validating admission plugin on one TrainJob's objects.
AdmissionCheck = Callable[[AdmissionInput], Judged]
