"""The JobSet spec (``jobset.x-k8s.io/v1alpha2``) that runtimes embed as their template.

Only the JobSet-specific fields are modelled here; each replicatedJob's template is a
core ``batch/v1`` JobTemplateSpec whose schema comes from the Kubernetes definitions.
The root :class:`JobSet` kind is what trainc emits and validates its own output against.
"""

from __future__ import annotations

from typing import Annotated, Literal

from trainc.model.k8s import JobTemplateSpec, ObjectMeta, PersistentVolumeClaim
from trainc.model.markers import (
    ATOMIC,
    Default,
    Json,
    MaxItems,
    Minimum,
    PatchMerge,
    Rule,
    immutable,
    list_map,
    schema,
)
from trainc.model.scalars import Int32
from trainc.records import dataclass

_JOBSET_IMMUTABLE = "Value is immutable"


@dataclass(frozen=True, slots=True, kw_only=True)
class DependsOn:
    """A replicatedJob that must reach a status before this one is created."""

    name: str
    """Name of an earlier replicatedJob."""

    status: Literal["Ready", "Complete"]
    """Status the named replicatedJob must reach: all pods Ready, or all Jobs Complete."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplicatedJob:
    """A group of identical Jobs that the JobSet creates from one template."""

    name: str
    """Name of the group; Jobs are named ``<jobset>-<name>-<index>``."""

    group_name: Annotated[str | None, Default("default")] = None
    """Group label shared by related replicatedJobs."""

    template: JobTemplateSpec
    """Template of every Job in the group."""

    replicas: Annotated[Int32 | None, Default(1), Minimum(0)] = None
    """Number of Jobs created from the template."""

    depends_on: Annotated[
        list[DependsOn] | None,
        list_map("name"),
        PatchMerge("name"),
        MaxItems(5),
        immutable("jobset.depends-on-immutable", _JOBSET_IMMUTABLE),
    ] = None
    """replicatedJobs this one waits for before its Jobs are created."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Network:
    """How pods of the JobSet find each other."""

    enable_dns_hostnames: Annotated[bool | None, Json("enableDNSHostnames")] = None
    """Give every pod a stable DNS hostname through a headless Service."""

    subdomain: str | None = None
    """Name of the headless Service; the JobSet name when unset."""

    publish_not_ready_addresses: bool | None = None
    """Publish pod addresses in DNS before the pods are Ready."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SuccessPolicy:
    """When the JobSet counts as complete."""

    operator: Literal["All", "Any"]
    """Whether all or any of the targeted Jobs must succeed."""

    target_replicated_jobs: Annotated[list[str] | None, ATOMIC] = None
    """replicatedJobs the operator applies to; all of them when empty."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FailurePolicyRule:
    """What to do when a Job fails for a matching reason; the first matching rule wins."""

    name: str
    """Unique name of the rule."""

    action: Literal[
        "FailJobSet",
        "RestartJobSet",
        "RestartJobSetAndIgnoreMaxRestarts",
        "RestartJob",
        "RestartJobAndIgnoreMaxRestarts",
    ]
    """Action taken when the rule matches."""

    on_job_failure_reasons: list[str] | None = None
    """Job failure reasons that match; any reason when empty."""

    on_job_failure_message_patterns: list[str] | None = None
    """Regular expressions matched against the Job failure message."""

    target_replicated_jobs: Annotated[list[str] | None, ATOMIC] = None
    """replicatedJobs the rule applies to; all of them when empty."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FailurePolicy:
    """How the JobSet reacts to failed Jobs."""

    max_restarts: Int32 | None = None
    """Restarts allowed before the JobSet fails."""

    restart_strategy: Annotated[
        Literal["Recreate", "BlockingRecreate", "InPlaceRestart"] | None, Default("Recreate")
    ] = None
    """How Jobs are recreated on a restart."""

    rules: list[FailurePolicyRule] | None = None
    """Ordered rules; a failure no rule matches restarts the JobSet."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StartupPolicy:
    """Order in which replicatedJobs start (superseded by dependsOn)."""

    startup_policy_order: Literal["AnyOrder", "InOrder"]
    """InOrder starts each replicatedJob once the previous one is Ready."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Coordinator:
    """The pod whose stable address is published to every pod as the coordinator."""

    replicated_job: str
    """replicatedJob holding the coordinator pod."""

    job_index: int | None = None
    """Index of the Job within the replicatedJob."""

    pod_index: int | None = None
    """Completion index of the pod within the Job."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VolumeRetentionPolicy:
    """What happens to the generated claims when the JobSet is deleted."""

    when_deleted: Annotated[Literal["Delete", "Retain"] | None, Default("Delete")] = None
    """Delete the claims with the JobSet, or keep them."""


@schema(
    Rule(
        rule=(
            "self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)"
        ),
        message="namespace cannot be set for VolumeClaimPolicies templates",
        id="jobset.volume-claim-namespace",
    )
)
@dataclass(frozen=True, slots=True, kw_only=True)
class VolumeClaimPolicy:
    """Claims shared by the JobSet's pods, created as ``<claim>-<jobset>`` (KEP-572)."""

    templates: Annotated[list[PersistentVolumeClaim] | None, ATOMIC, MaxItems(50)] = None
    """One PersistentVolumeClaim per template; a container must mount each by name."""

    retention_policy: VolumeRetentionPolicy | None = None
    """Lifecycle of the generated claims."""


@schema(
    Rule(
        rule=(
            "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' "
            "&& self.replicatedJobs.exists(x, has(x.dependsOn)))"
        ),
        message="StartupPolicy and DependsOn APIs are mutually exclusive",
        id="jobset.startup-policy-depends-on",
        field_path=".startupPolicy",
    )
)
@dataclass(frozen=True, slots=True, kw_only=True)
class JobSetSpec:
    """The desired state of a JobSet."""

    replicated_jobs: Annotated[list[ReplicatedJob] | None, list_map("name"), PatchMerge("name")] = (
        None
    )
    """The groups of Jobs the JobSet runs."""

    network: Annotated[Network | None, immutable("jobset.network-immutable", _JOBSET_IMMUTABLE)] = (
        None
    )
    """Pod DNS settings."""

    success_policy: Annotated[
        SuccessPolicy | None, immutable("jobset.success-policy-immutable", _JOBSET_IMMUTABLE)
    ] = None
    """When the JobSet completes; all Jobs must succeed when unset."""

    failure_policy: Annotated[
        FailurePolicy | None, immutable("jobset.failure-policy-immutable", _JOBSET_IMMUTABLE)
    ] = None
    """Reaction to failed Jobs; any failure fails the JobSet when unset."""

    startup_policy: Annotated[
        StartupPolicy | None, immutable("jobset.startup-policy-immutable", _JOBSET_IMMUTABLE)
    ] = None
    """Start order of the replicatedJobs."""

    suspend: bool | None = None
    """Suspend the child Jobs; resuming restarts their deadlines."""

    coordinator: Coordinator | None = None
    """Pod whose address every pod receives as the coordinator."""

    managed_by: str | None = None
    """Controller in charge; the built-in JobSet controller when unset."""

    ttl_seconds_after_finished: Annotated[Int32 | None, Minimum(0)] = None
    """Seconds after finishing before the JobSet controller deletes the JobSet."""

    volume_claim_policies: Annotated[
        list[VolumeClaimPolicy] | None,
        ATOMIC,
        MaxItems(50),
        immutable("jobset.volume-claim-policies-immutable", _JOBSET_IMMUTABLE),
    ] = None
    """Shared PersistentVolumeClaims created for the JobSet (KEP-572)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class JobSet:
    """A group of Jobs run as one workload; what every TrainJob compiles to.

    https://github.com/kubernetes-sigs/jobset/blob/main/api/jobset/v1alpha2/jobset_types.go
    """

    api_version: Literal["jobset.x-k8s.io/v1alpha2"]
    """``jobset.x-k8s.io/v1alpha2``."""

    kind: Literal["JobSet"]
    """``JobSet``."""

    metadata: ObjectMeta
    """Name (the TrainJob's), namespace, labels and annotations."""

    spec: JobSetSpec | None = None
    """The desired state; status is the controller's and never emitted."""
