"""Label and annotation keys, and the naming contract between runtimes and TrainJobs.

Values are byte-exact upstream constants (``upstream-semantics.md`` §1.8, §2.3).
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

#: JobSet-level annotation naming the Volcano queue.
VOLCANO_QUEUE_ANNOTATION: Final = "scheduling.volcano.sh/queue-name"

#: Label written on every object trainc emits, and its value.
MANAGED_BY_LABEL: Final = "app.kubernetes.io/managed-by"
MANAGED_BY_TRAINC: Final = "trainc"
