"""Label and annotation keys, and the naming contract between runtimes and TrainJobs.

Values are byte-exact upstream constants
(https://github.com/kubeflow/trainer/blob/master/pkg/constants/constants.go,
https://github.com/kubernetes-sigs/jobset/blob/main/pkg/constants/constants.go); the
naming contract is described in ``docs/upstream.md``, "Trainer: building the JobSet".
"""

from __future__ import annotations

from typing import Final

GROUP: Final = "trainer.kubeflow.org"
VERSION: Final = "v1alpha1"
API_VERSION: Final = f"{GROUP}/{VERSION}"

#: Job-template label that tells Trainer which step a replicatedJob plays.
ANCESTOR_LABEL: Final = "trainer.kubeflow.org/trainjob-ancestor-step"
ANCESTOR_TRAINER: Final = "trainer"
ANCESTOR_DATASET_INITIALIZER: Final = "dataset-initializer"
ANCESTOR_MODEL_INITIALIZER: Final = "model-initializer"

#: Container that receives the trainer overrides in the trainer step.
NODE_CONTAINER: Final = "node"
#: replicatedJob names MPI and Flux look up by name.
NODE_JOB: Final = "node"
LAUNCHER_JOB: Final = "launcher"
#: Volume the initializers write to and the trainer reads from.
INITIALIZER_VOLUME: Final = "initializer"

#: Runtime metadata labels.
FRAMEWORK_LABEL: Final = "trainer.kubeflow.org/framework"
SUPPORT_LABEL: Final = "trainer.kubeflow.org/support"
SUPPORT_DEPRECATED: Final = "deprecated"
WEBHOOK_VALIDATION_LABEL: Final = "trainer.kubeflow.org/webhook-validation"
WEBHOOK_VALIDATION_DISABLED: Final = "disabled"

DEFAULT_MANAGED_BY: Final = "trainer.kubeflow.org/trainjob-controller"
MULTIKUEUE_MANAGED_BY: Final = "kueue.x-k8s.io/multikueue"
#: The JobSet controller's own ``spec.managedBy`` value, which it treats as unset.
JOBSET_CONTROLLER_MANAGED_BY: Final = "jobset.sigs.k8s.io/jobset-controller"

#: Kueue's labels on a job (a JobSet here): the LocalQueue it waits in, its
#: WorkloadPriorityClass, and the longest it may run once admitted.
KUEUE_QUEUE_NAME: Final = "kueue.x-k8s.io/queue-name"
KUEUE_PRIORITY_CLASS: Final = "kueue.x-k8s.io/priority-class"
KUEUE_MAX_EXEC_TIME: Final = "kueue.x-k8s.io/max-exec-time-seconds"
KUEUE_LABELS: Final = (KUEUE_QUEUE_NAME, KUEUE_PRIORITY_CLASS, KUEUE_MAX_EXEC_TIME)

#: JobSet-level annotation naming the Volcano queue.
VOLCANO_QUEUE_ANNOTATION: Final = "scheduling.volcano.sh/queue-name"

#: Label written on every object trainc emits, and its value.
MANAGED_BY_LABEL: Final = "app.kubernetes.io/managed-by"
MANAGED_BY_TRAINC: Final = "trainc"

#: On everything trainc emits: the TrainJob an object belongs to.
TRAINJOB_NAME_LABEL: Final = "trainer.kubeflow.org/trainjob-name"

#: JobSet's label naming the JobSet (on PVCs it creates, on child Jobs and pods).
JOBSET_NAME_LABEL: Final = "jobset.sigs.k8s.io/jobset-name"

#: Gang scheduling: the pod label (Coscheduling) and annotation (Volcano) naming the group.
COSCHEDULING_POD_GROUP_LABEL: Final = "scheduling.x-k8s.io/pod-group"
VOLCANO_GROUP_ANNOTATION: Final = "scheduling.k8s.io/group-name"

#: trainc's annotations on the JobSet: where it came from and what the sweeper enforces.
SOURCE_ANNOTATION: Final = "trainc.dev/source"
ACTIVE_DEADLINE_ANNOTATION: Final = "trainc.dev/active-deadline-seconds"
TTL_ANNOTATION: Final = "trainc.dev/ttl-seconds-after-finished"
PROGRESS_DEADLINE_ANNOTATION: Final = "trainc.dev/progress-deadline-seconds"

#: GitOps prune opt-outs for objects that must outlive their job (Retain claims).
ARGOCD_SYNC_OPTIONS_ANNOTATION: Final = "argocd.argoproj.io/sync-options"
ARGOCD_NO_PRUNE: Final = "Prune=false"
FLUX_PRUNE_ANNOTATION: Final = "kustomize.toolkit.fluxcd.io/prune"
FLUX_PRUNE_DISABLED: Final = "disabled"

#: The JobSet trainc builds for every TrainJob (``docs/upstream.md``, "JobSet").
JOBSET_API_VERSION: Final = "jobset.x-k8s.io/v1alpha2"
JOBSET_KIND: Final = "JobSet"

#: Runtime annotations naming Secrets provisioned out of band, which trainc references and
#: never generates (no key material in manifests): MPI's ``kubernetes.io/ssh-auth`` Secret
#: and Flux's CURVE certificate. On a runtime they win over trainc.yaml's ``compile`` settings.
MPI_SSH_AUTH_SECRET_ANNOTATION: Final = "trainc.dev/mpi-ssh-auth-secret"  # noqa: S105 - a key, not a secret
FLUX_CURVE_SECRET_ANNOTATION: Final = "trainc.dev/flux-curve-secret"  # noqa: S105 - a key, not a secret

#: The PodGroups trainc builds for gang scheduling (``docs/upstream.md``, "PodGroups").
POD_GROUP_KIND: Final = "PodGroup"
COSCHEDULING_API_VERSION: Final = "scheduling.x-k8s.io/v1alpha1"
VOLCANO_API_VERSION: Final = "scheduling.volcano.sh/v1beta1"

#: trainc's organisation policies (:mod:`trainc.model.policy`).
POLICY_API_VERSION: Final = "trainc.dev/v1alpha1"
POLICY_KIND: Final = "ValidationPolicy"

#: Flux: the init container's image, and the trainer env variable that overrides it.
FLUX_VIEW_IMAGE_ENV: Final = "FLUX_VIEW_IMAGE"
FLUX_INSTALLER_IMAGE: Final = "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy"

#: Recommended app labels on the sweeper's own objects (CronJob, ServiceAccount, RBAC),
#: beside trainc's managed-by label.
APP_NAME_LABEL: Final = "app.kubernetes.io/name"
APP_COMPONENT_LABEL: Final = "app.kubernetes.io/component"
APP_NAME_TRAINC: Final = "trainc"
SWEEPER_COMPONENT: Final = "sweeper"
