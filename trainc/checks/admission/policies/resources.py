"""Which resource each kind trainc emits or reads is, as the API server's REST mapping says.

A policy's ``resourceRules`` name plural resources (``jobs``, ``podgroups``) in API groups
and versions, while trainc holds objects by ``apiVersion`` and ``kind``. The API server
turns the one into the other with its REST mapper before admission runs; offline, this
table does it for the kinds a TrainJob makes the cluster see, plus the cluster objects
that policies take as parameters. A kind missing here cannot be matched: the caller is
told so rather than left to believe that no policy applies.

The resources and scopes are those of the built-in APIs
(https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.34/) and of the CRDs of
JobSet (https://github.com/kubernetes-sigs/jobset), the coscheduling plugin
(https://github.com/kubernetes-sigs/scheduler-plugins), Volcano
(https://github.com/volcano-sh/volcano), Kueue (https://github.com/kubernetes-sigs/kueue) and
Kubeflow Trainer (https://github.com/kubeflow/trainer).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Resource:
    """A kind's place in the API: group, version, plural resource and scope."""

    group: str
    version: str
    resource: str
    kind: str
    namespaced: bool

    @property
    def api_version(self) -> str:
        """``group/version``, or the bare version of the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> str:
        """``resource.group`` as ``GroupResource.String()`` prints it (``jobs.batch``)."""
        return f"{self.resource}.{self.group}" if self.group else self.resource


def _table(*rows: tuple[str, str, str, str, bool]) -> dict[tuple[str, str], Resource]:
    table: dict[tuple[str, str], Resource] = {}
    for api_version, kind, plural, _, namespaced in rows:
        group, _, version = api_version.rpartition("/")
        resource = Resource(group, version, plural, kind, namespaced)
        table[(api_version, kind)] = resource
    return table


_NAMESPACED = True
_CLUSTER = False

#: (apiVersion, kind) → resource. The fourth column is who creates such objects when a
#: TrainJob runs, for the reader; it is not used.
RESOURCES: dict[tuple[str, str], Resource] = _table(
    ("v1", "Pod", "pods", "Job controller", _NAMESPACED),
    ("v1", "PersistentVolumeClaim", "persistentvolumeclaims", "GitOps tool", _NAMESPACED),
    ("v1", "ConfigMap", "configmaps", "GitOps tool", _NAMESPACED),
    ("v1", "Secret", "secrets", "GitOps tool", _NAMESPACED),
    ("v1", "Service", "services", "JobSet controller", _NAMESPACED),
    ("v1", "ServiceAccount", "serviceaccounts", "GitOps tool", _NAMESPACED),
    ("v1", "Namespace", "namespaces", "GitOps tool", _CLUSTER),
    ("v1", "LimitRange", "limitranges", "cluster", _NAMESPACED),
    ("v1", "ResourceQuota", "resourcequotas", "cluster", _NAMESPACED),
    ("batch/v1", "Job", "jobs", "JobSet controller", _NAMESPACED),
    ("batch/v1", "CronJob", "cronjobs", "GitOps tool", _NAMESPACED),
    ("rbac.authorization.k8s.io/v1", "Role", "roles", "GitOps tool", _NAMESPACED),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", "rolebindings", "GitOps tool", _NAMESPACED),
    ("rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", "GitOps tool", _CLUSTER),
    (
        "rbac.authorization.k8s.io/v1",
        "ClusterRoleBinding",
        "clusterrolebindings",
        "GitOps tool",
        _CLUSTER,
    ),
    ("scheduling.k8s.io/v1", "PriorityClass", "priorityclasses", "cluster", _CLUSTER),
    ("jobset.x-k8s.io/v1alpha2", "JobSet", "jobsets", "Trainer controller", _NAMESPACED),
    ("scheduling.x-k8s.io/v1alpha1", "PodGroup", "podgroups", "Trainer controller", _NAMESPACED),
    ("scheduling.volcano.sh/v1beta1", "PodGroup", "podgroups", "Trainer controller", _NAMESPACED),
    ("trainer.kubeflow.org/v1alpha1", "TrainJob", "trainjobs", "GitOps tool", _NAMESPACED),
    (
        "trainer.kubeflow.org/v1alpha1",
        "TrainingRuntime",
        "trainingruntimes",
        "GitOps tool",
        _NAMESPACED,
    ),
    (
        "trainer.kubeflow.org/v1alpha1",
        "ClusterTrainingRuntime",
        "clustertrainingruntimes",
        "GitOps tool",
        _CLUSTER,
    ),
    ("kueue.x-k8s.io/v1beta1", "LocalQueue", "localqueues", "cluster", _NAMESPACED),
    ("kueue.x-k8s.io/v1beta1", "ClusterQueue", "clusterqueues", "cluster", _CLUSTER),
    ("kueue.x-k8s.io/v1beta1", "ResourceFlavor", "resourceflavors", "cluster", _CLUSTER),
    ("kueue.x-k8s.io/v1beta1", "Workload", "workloads", "Kueue", _NAMESPACED),
)


def resource_for(api_version: str, kind: str) -> Resource | None:
    """The resource of objects with this ``apiVersion`` and ``kind``; None when unknown."""
    return RESOURCES.get((api_version, kind))
