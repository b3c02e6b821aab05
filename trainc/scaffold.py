"""The starter repository ``trainc init`` writes: a config, a runtime, a job, a policy, hooks.

The files are text, not objects built as data: they are for people to read and edit, and
their comments are most of their worth. Each must validate and compile cleanly as written
(``tests/cli/test_init.py`` runs both), and ``trainc.yaml`` states every setting with its
default, which the same tests compare with :mod:`trainc.config.settings`, so the text cannot drift
from what trainc does.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from trainc import __version__
from trainc.checks.workload.version import KNOWN_RELEASES, NEWEST_RELEASE, release_text
from trainc.config.settings import (
    DEFAULT_KUBERNETES_VERSION,
    PLACEHOLDER_IMAGE_REPOSITORY,
    PLACEHOLDER_PROJECT_URL,
)

#: Placeholder for where users get trainc (its git repository and the sweeper's image):
#: a scaffold cannot know the fork or registry a team uses, so it says so in a comment,
#: and validation warns until they are replaced (``config.placeholder``).
PROJECT_URL: Final = PLACEHOLDER_PROJECT_URL
IMAGE: Final = f"{PLACEHOLDER_IMAGE_REPOSITORY}:{__version__}"
#: The release the commented-out ``kubernetesVersion`` suggests: the newest trainc knows.
NEWEST: Final = release_text(NEWEST_RELEASE)

_CONFIG = f"""\
# trainc configuration. Every key shows its default, except where a comment says the
# value was chosen for this repository; delete what you do not change. `trainc schemas`
# writes a JSON Schema of this file for editors.
apiVersion: trainc.dev/v1alpha1
kind: Config

# Which files are inputs: globs relative to this directory, `**` spans directories.
inputs:
  include: ["**/*.yaml", "**/*.yml", "**/*.json", "**/*.yaml.j2", "**/*.yml.j2"]
  # Chosen here: tool configuration is YAML too, but not trainc's. Policy files and
  # the compile output are left out by themselves.
  exclude: [.pre-commit-config.yaml, .github/**, .gitlab-ci.yml]

# Namespace of namespaced objects that set none (as `kubectl apply -n` would). Unset:
# under Argo CD the Application's destination namespace, else `default`. Set it only to
# place jobs elsewhere than the destination on purpose.
# namespace: ml-team

# The namespaces TrainJobs may name; another one (a typo such as `reserch`) is then a
# compile.unknown-namespace warning. Unset: not checked.
# namespaces: [ml-team]

# Kubernetes minor version of the target cluster ({KNOWN_RELEASES}): Jobs and Pods are
# judged by that release's rules. Unset: under Argo CD the destination cluster's
# (KUBE_VERSION), else {DEFAULT_KUBERNETES_VERSION}. Set, it wins over Argo CD's: set it only
# when every cluster the repository deploys to runs that release.
# kubernetesVersion: "{NEWEST}"

# Values for *.j2 templates, and per-environment overrides chosen with `--env NAME`.
values: {{}}
environments: {{}}
#   prod:
#     values: {{registry: registry.example.com/prod}}

policies:
  # Directories holding this repository's own policies (always on).
  paths: [policies]
  # Built-in policies to switch on: require-active-deadline, require-runtime-ttl,
  # max-gpus-per-job, allowed-image-registries (all off by default).
  enable: []
  # Repository policies to switch off, by name.
  disable: []
  # Parameters per policy, e.g. `max-gpus-per-job: {{maxGPUs: 16}}`.
  params: {{}}

# Severity of trainc's own judgements: error, warning or "off" (quoted), per rule code.
# A literal credential in an env var (compile.plaintext-credential) is an error, since
# pre-commit hides the warnings of a hook that passes.
rules: {{}}
#   compile.plaintext-credential: warning

# Bounds on reading input, against hostile or runaway files.
limits:
  maxFileBytes: 4194304   # 4 MiB
  maxYamlNodes: 1000000
  maxDepth: 100
  maxDocuments: 10000

compile:
  # Chosen here (no default): where `trainc compile` writes without -o.
  output: rendered
  # Emit: KEP-572 volume claims become PersistentVolumeClaim manifests; Native: they
  # stay in the JobSet for JobSet >= 0.11 to create.
  volumeClaimPolicies: Emit
  # Omit: the namespaces the output uses must exist; Emit: write a Namespace object for
  # each (never pruned by Argo CD or Flux).
  namespaces: Omit
  # No defaults: the Secrets MPI and Flux jobs mount (trainc never writes key material).
  # mpi:
  #   sshAuthSecret: mpi-ssh-keys
  # flux:
  #   curveSecret: flux-curve

# The in-cluster sweeper that enforces deadlines and TTLs once jobs are compiled: a
# CronJob `trainc compile` emits under rendered/_shared/. Without this section there is
# none, and compile warns about every deadline and TTL that nothing would enforce.
sweeper:
  # Chosen here (required): an image with trainc, built from its Dockerfile and pushed
  # to your registry. Replace this placeholder before deploying.
  image: {IMAGE}
  namespace: trainc-system    # must exist
  schedule: "*/5 * * * *"
  scope: Namespaced           # or Cluster
  serviceAccountName: trainc-sweeper
  graceSeconds: 600
  resources:
    requests: {{cpu: 50m, memory: 64Mi}}
    limits: {{memory: 256Mi}}
  imagePullSecrets: []
"""

_RUNTIME = """\
# A PyTorch runtime for TrainJobs: `torchrun` on every node, one node unless the job
# asks for more. Written by a platform admin; jobs refer to it by name.
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
  labels:
    trainer.kubeflow.org/framework: torch
spec:
  # Finished TrainJobs on this runtime are cleaned up after a day (KEP-2899).
  ttlSecondsAfterFinished: 86400
  mlPolicy:
    numNodes: 1
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime
"""

_JOB = """\
# A training job: two nodes of the torch-distributed runtime, stopped after two hours.
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: example
  labels:
    team: my-team
spec:
  activeDeadlineSeconds: 7200
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    image: pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime
    command: [torchrun, train.py]
    resourcesPerNode:
      limits:
        nvidia.com/gpu: 1
"""

_POLICY = """\
# An organisation policy: CEL, shaped like a Kubernetes ValidatingAdmissionPolicy.
# Findings are reported as policy.team-label.
apiVersion: trainc.dev/v1alpha1
kind: ValidationPolicy
metadata:
  name: team-label
spec:
  matchConstraints:
    resourceRules:
      - resources: [trainjobs]
  validations:
    - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
      message: "TrainJobs must carry a `team` label naming the team that owns them"
  validationActions: [Deny]   # Deny reports an error, Warn a warning
"""

_PRE_COMMIT = f"""\
# pre-commit hooks: `pip install pre-commit && pre-commit install`.
repos:
  - repo: {PROJECT_URL}   # where you get trainc
    rev: v{__version__}
    hooks:
      # The changed TrainJobs and runtimes, checked as the API server would.
      - id: trainc-validate
      # rendered/ is what `trainc compile` writes (use trainc-compile to rewrite it).
      - id: trainc-compile-check
"""

_README = """\
# Training jobs

TrainJobs for Kubeflow Trainer, checked and compiled by trainc.

| path | what |
|---|---|
| `trainc.yaml` | trainc's configuration, every setting with its default |
| `runtimes/` | training runtimes, written by the platform team |
| `jobs/` | TrainJobs, one file each |
| `policies/` | this organisation's rules for jobs |
| `rendered/` | what `trainc compile` writes, for Argo CD or Flux; never edited |

```sh
trainc validate          # check every job and runtime
trainc compile           # write rendered/ (commit it with your change)
pre-commit install       # run both before every commit
```

Before deploying, replace the placeholders `trainc init` wrote: the sweeper's image in
`trainc.yaml` and the repository in `.pre-commit-config.yaml` (`trainc validate` warns
about both, `config.placeholder`). Without `namespace` in `trainc.yaml`, jobs that set
none go to the Argo CD Application's destination namespace, else `default`.
"""

#: The starter repository as relative POSIX path → text, sorted by path.
FILES: Final[Mapping[str, str]] = MappingProxyType(
    {
        ".pre-commit-config.yaml": _PRE_COMMIT,
        "README.md": _README,
        "jobs/example.yaml": _JOB,
        "policies/team-label.yaml": _POLICY,
        "runtimes/torch-distributed.yaml": _RUNTIME,
        "trainc.yaml": _CONFIG,
    }
)
