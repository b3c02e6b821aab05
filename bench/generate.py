"""Synthetic GitOps repositories of N TrainJobs over R runtimes, deterministic for a seed.

The layout is what a platform team keeps in git::

    trainc.yaml                          compile.output, the MPI SSH Secret, a sweeper, policies
    policies/team-label.yaml             one repository policy (CEL)
    runtimes/<namespace|cluster>/*.yaml  R runtimes (see bench.runtimes)
    jobs/<namespace>/<project>/*.yaml    N TrainJobs, one object per file, about 1-3 KB each

Every TrainJob carries what people write by hand: a comment, labels and annotations, a
deadline, a trainer with image, command, arguments, environment and per-node resources,
initializers for the LLM runtimes, and runtimePatches (node selectors, tolerations) on
about a third of them. The repository validates and compiles without errors and without
warnings under trainc; ``tests/bench/test_generate.py`` keeps it so.

Usage: ``python -m bench.generate DIR --jobs 1000 [--runtimes 10] [--namespaces 4] [--seed 0]``.
"""

from __future__ import annotations

import argparse
import random  # noqa: TID251 -- seeded: the same seed gives the same repository, byte for byte
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.runtimes import API_VERSION, Runtime, make_runtime
from bench.yamltext import Node, render

NAMESPACES = ("team-vision", "team-nlp", "team-research", "team-speech", "team-recsys")
PROJECTS = ("baseline", "ablation", "sweep", "prod", "eval")
MODELS = {
    "torch-gang": ("resnet50", "vit-large", "convnext", "efficientnet"),
    "deepspeed-mpi": ("bert-large", "gpt-neox", "t5-xl"),
    "llm-finetune": ("llama", "mistral", "qwen"),
    "torch-volcano": ("swin", "dino", "mae"),
    "torch-single": ("eval", "probe", "distill"),
}
HF_MODELS = {
    "llama": "meta-llama/Llama-3.2-1B-Instruct",
    "mistral": "mistralai/Mistral-7B-v0.3",
    "qwen": "Qwen/Qwen2.5-7B",
}
DATASETS = ("tatsu-lab/alpaca", "databricks/databricks-dolly-15k", "openai/gsm8k")
# Shares of TrainJobs with owner annotations, runtimePatches, a short flow-style argument
# list, and an environment variable from a Secret.
OWNER_SHARE = 0.5
PATCHED_SHARE = 0.35
FLOW_ARGS_SHARE = 0.5
SECRET_ENV_SHARE = 0.3
REGISTRIES = ("registry.example.com", "ghcr.io/kubeflow", "docker.io/pytorch")
#: Where runtimes live: single-file runs read only there (see ``inputs.runtimes``).
RUNTIME_GLOBS: list[Node] = ["runtimes/**"]
CONFIG: dict[str, Node] = {
    "apiVersion": "trainc.dev/v1alpha1",
    "kind": "Config",
    "inputs": {"runtimes": RUNTIME_GLOBS},
    "namespace": NAMESPACES[0],
    "kubernetesVersion": "1.33",
    "policies": {
        "paths": ["policies"],
        "enable": [
            "require-active-deadline",
            "max-gpus-per-job",
            "require-runtime-ttl",
            "allowed-image-registries",
        ],
        "params": {
            "max-gpus-per-job": {"maxGPUs": 64},
            "require-active-deadline": {"maxSeconds": 259200},
            "allowed-image-registries": {"registries": list(REGISTRIES)},
        },
    },
    "compile": {"output": "rendered", "mpi": {"sshAuthSecret": "mpi-ssh-keys"}},
    "sweeper": {
        "image": "registry.example.com/platform/trainc:0.1.0",
        "namespace": "trainc-system",
    },
}
#: The line :func:`edit_job` changes.
DEADLINE_KEY = "activeDeadlineSeconds: "
CONFIG_COMMENT = "trainc configuration of a synthetic benchmark repository (bench/generate.py)."
CONFIG_TEXT = render(CONFIG, comment=CONFIG_COMMENT)
POLICY_TEXT = render(
    {
        "apiVersion": "trainc.dev/v1alpha1",
        "kind": "ValidationPolicy",
        "metadata": {"name": "team-label"},
        "spec": {
            "validations": [
                {
                    "expression": "has(object.metadata.labels) && 'team' in object.metadata.labels",
                    "message": "TrainJobs must carry a `team` label naming the team that owns them",
                }
            ],
            "validationActions": ["Warn"],
        },
    },
    comment="Every TrainJob says which team pays for it.",
)


@dataclass(frozen=True, slots=True)
class Repository:
    """What was generated: the root and the repository-relative POSIX paths written."""

    root: Path
    jobs: tuple[str, ...]
    runtimes: tuple[str, ...]


def generate(
    root: Path, *, jobs: int, runtimes: int = 10, namespaces: int = 4, seed: int = 0
) -> Repository:
    """Write a repository of ``jobs`` TrainJobs over ``runtimes`` runtimes under ``root``.

    ``root`` must be absent or empty: the bench measures exactly what was generated.
    With ``runtimes`` >= 5 every runtime family is present; ``namespaces`` is at most 5.
    """
    if not 1 <= namespaces <= len(NAMESPACES) or runtimes < 1 or jobs < 0:
        raise ValueError("need 1-5 namespaces, at least one runtime, and jobs >= 0")
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty")
    rng = random.Random(seed)  # noqa: S311 -- synthetic data, not secrets
    chosen = NAMESPACES[:namespaces]
    made = [make_runtime(index, chosen) for index in range(runtimes)]
    files = {"trainc.yaml": CONFIG_TEXT, "policies/team-label.yaml": POLICY_TEXT}
    files.update((runtime.path, runtime.text) for runtime in made)
    job_paths = []
    for index in range(jobs):
        runtime = made[rng.randrange(runtimes)]
        path, text = _job(index, runtime, runtime.namespace or rng.choice(chosen), rng)
        files[path] = text
        job_paths.append(path)
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode())
    return Repository(root, tuple(job_paths), tuple(runtime.path for runtime in made))


def edit_job(text: str, revision: int) -> str:
    """A TrainJob's ``text`` as a person changes it: its deadline ``revision`` seconds longer.

    A change of meaning, not of a comment alone: validation must judge the TrainJob again
    and compile must write a different file, so no cache can serve the edited job from an
    earlier run. Each ``revision`` gives other bytes; the deadline stays within the
    repository's ``require-active-deadline`` policy (at most 259,200 s; generated ones are at
    most 172,800 s).
    """
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        key, _, value = line.partition(DEADLINE_KEY)
        if not key.strip() and value.strip().isdigit():
            lines[index] = f"{key}{DEADLINE_KEY}{int(value) + revision}\n"
            return "".join(lines)
    raise ValueError("no activeDeadlineSeconds line: not a TrainJob of bench.generate")


def _job(index: int, runtime: Runtime, namespace: str, rng: random.Random) -> tuple[str, str]:
    """One TrainJob on ``runtime``: its path and its text."""
    team = namespace.removeprefix("team-")
    model = rng.choice(MODELS[runtime.family])
    project = rng.choice(PROJECTS)
    name = f"{model}-{project}-{index:05d}"
    metadata: dict[str, Node] = {
        "name": name,
        "namespace": namespace,
        "labels": {"team": team, "project": project, "app.kubernetes.io/part-of": model},
    }
    annotations: dict[str, Node] = {
        "example.com/description": f"{model} {project} run of the {team} team ({runtime.family})"
    }
    if rng.random() < OWNER_SHARE:
        annotations["example.com/owner"] = f"user{rng.randrange(40)}@example.com"
        annotations["example.com/ticket"] = f"ML-{rng.randrange(1000, 9999)}"
    metadata["annotations"] = annotations
    reference: dict[str, Node] = {"name": runtime.name}
    if runtime.namespace is not None:
        reference["kind"] = runtime.kind
    spec: dict[str, Node] = {
        "activeDeadlineSeconds": rng.choice((3600, 7200, 21600, 43200, 86400, 172800)),
        "runtimeRef": reference,
        "trainer": _trainer(runtime.family, team, model, name, rng),
    }
    if runtime.family == "llm-finetune":
        spec["initializer"] = _initializer(model, rng)
    if rng.random() < PATCHED_SHARE:
        spec["runtimePatches"] = [_scheduling_patch(rng)]
    document: dict[str, Node] = {
        "apiVersion": API_VERSION,
        "kind": "TrainJob",
        "metadata": metadata,
        "spec": spec,
    }
    comment = (
        f"{model} ({project}) for team {team}, on the {runtime.family} runtime {runtime.name}.\n"
        f"Owned by the {team} team; see the team's runbook before changing the resources.\n"
        "Deadline and GPU count are checked by the repository's policies (trainc.yaml)."
    )
    return f"jobs/{namespace}/{project}/{name}.yaml", render(document, comment=comment)


def _trainer(family: str, team: str, model: str, name: str, rng: random.Random) -> Node:
    """spec.trainer: total GPUs stay within the repository's max-gpus-per-job (64)."""
    gpus = 1 if family == "torch-single" else rng.choice((2, 4, 8))
    nodes = {"torch-single": 1, "deepspeed-mpi": rng.randint(2, 4)}.get(family, rng.randint(1, 8))
    trainer: dict[str, Node] = {"numNodes": nodes}
    if family == "deepspeed-mpi":
        trainer["numProcPerNode"] = gpus
        trainer["command"] = ("mpirun", "deepspeed", "pretrain.py")
    else:
        trainer["command"] = ("torchrun", "train.py")
    if family != "llm-finetune":
        version = f"{rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
        trainer["image"] = f"registry.example.com/{team}/{model}:{version}"
    args = [
        f"--epochs={rng.randint(1, 120)}",
        f"--batch-size={rng.choice((32, 64, 128, 256))}",
        f"--learning-rate={rng.choice(('3e-4', '1e-4', '5e-5'))}",
        f"--output-dir=/checkpoints/{team}/{name}",
        f"--seed={rng.randrange(10_000)}",
        f"--warmup-steps={rng.choice((0, 500, 1000, 2000))}",
        f"--save-every={rng.choice((500, 1000, 5000))}",
    ]
    # Short argument lists in flow style, long ones as block sequences, as people write.
    trainer["args"] = tuple(args[:2]) if rng.random() < FLOW_ARGS_SHARE else args
    trainer["env"] = _env(team, name, rng)
    trainer["resourcesPerNode"] = {
        "limits": {"nvidia.com/gpu": gpus, "memory": f"{32 * gpus}Gi"},
        "requests": {"cpu": str(4 * gpus), "memory": f"{32 * gpus}Gi"},
    }
    return trainer


def _env(team: str, name: str, rng: random.Random) -> list[Node]:
    pool: list[tuple[str, str]] = [
        ("NCCL_DEBUG", rng.choice(("WARN", "INFO"))),
        ("WANDB_PROJECT", f"{team}-{name}"),
        ("WANDB_MODE", "offline"),
        ("HF_HUB_OFFLINE", "1"),
        ("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"),
        ("DATA_ROOT", f"/data/{team}"),
        ("CHECKPOINT_URI", f"s3://ml-checkpoints/{team}/{name}"),
        ("LOG_LEVEL", rng.choice(("info", "debug"))),
        ("HF_DATASETS_CACHE", f"/cache/{team}/datasets"),
    ]
    chosen = sorted(rng.sample(pool, rng.randint(2, len(pool))))
    env: list[Node] = [{"name": key, "value": value} for key, value in chosen]
    if rng.random() < SECRET_ENV_SHARE:
        secret: dict[str, Node] = {"secretKeyRef": {"name": "wandb", "key": "api-key"}}
        env.append({"name": "WANDB_API_KEY", "valueFrom": secret})
    return env


def _initializer(model: str, rng: random.Random) -> Node:
    """Dataset and model from Hugging Face; the model's token comes from a Secret."""
    return {
        "dataset": {"storageUri": f"hf://{rng.choice(DATASETS)}"},
        "model": {"storageUri": f"hf://{HF_MODELS[model]}", "secretRef": {"name": "hf-token"}},
    }


def _scheduling_patch(rng: random.Random) -> Node:
    """A platform controller's patch: the trainer pods go to a GPU node pool."""
    pool = rng.choice(("p5.48xlarge", "p4d.24xlarge", "g6e.12xlarge"))
    pod: dict[str, Node] = {
        "nodeSelector": {"node.kubernetes.io/instance-type": pool},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    }
    node: dict[str, Node] = {"name": "node", "template": {"spec": {"template": {"spec": pod}}}}
    return {
        "manager": "platform.example.com/scheduling",
        "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [node]}}},
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: generate one repository and say what was written."""
    parser = argparse.ArgumentParser(prog="python -m bench.generate", description=__doc__)
    parser.add_argument("directory", type=Path, help="where to write (absent or empty)")
    parser.add_argument("--jobs", type=int, required=True, help="number of TrainJobs")
    parser.add_argument("--runtimes", type=int, default=10, help="number of runtimes")
    parser.add_argument("--namespaces", type=int, default=4, help="number of namespaces (1-5)")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    options = parser.parse_args(argv)
    repository = generate(
        options.directory,
        jobs=options.jobs,
        runtimes=options.runtimes,
        namespaces=options.namespaces,
        seed=options.seed,
    )
    sys.stdout.write(
        f"wrote {len(repository.jobs)} TrainJobs and {len(repository.runtimes)} runtimes "
        f"to {repository.root}\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
