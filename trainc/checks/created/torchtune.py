"""TorchTune TrainJobs: the model, node count, LoRA mode and arguments the runtime supports.

A TrainJob on a Torch runtime whose ``trainer.command`` is exactly ``["tune", "run"]`` is a
TorchTune job (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/torch/torchtune.go):
the model comes from the runtime name
(``torchtune-llama3.2-1b`` → ``llama3_2/1B``) and the recipe from the node count, processes
per node, GPUs and the LoRA arguments. The Torch plugin rejects combinations no recipe
config exists for: unknown models, several nodes except for 70B, QLoRA for Qwen,
multi-device QLoRA for 1B/3B, LoRA on several nodes, and arguments that override the paths
the runtime wires to its initializers. The checks judge what the recipe choice was made
from (:class:`~trainc.resolve.plugins.torchtune.TuneRun`, recorded while resolving), so
the verdict and the compiled command can never disagree.
"""

from __future__ import annotations

from typing import Final

from trainc.checks.webhooks.findings import listing
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.model.json import FieldPath, as_list, get_path
from trainc.resolve.plugins.torchtune import MODELS, MULTI_NODE_MODEL, RUNTIME_OWNED_ARGS, TuneRun
from trainc.resolve.resolved import ResolvedJob

XOBJ_TORCHTUNE = Rule(
    "xobj.torchtune",
    Severity.ERROR,
    "a TorchTune TrainJob breaks the TorchTune runtime contract",
)


_TRAINER: Final[FieldPath] = ("spec", "trainer")
_QLORA_SINGLE_DEVICE_MODELS: Final = ("llama3_2/1B", "llama3_2/3B")
_NO_QLORA_MODEL: Final = "qwen2_5/1.5B"


def check_torchtune(job: ResolvedJob) -> list[Diagnostic]:
    """The TorchTune rules, for a TrainJob running ``tune run`` on a Torch runtime."""
    run = job.torchtune
    if run is None:
        return []
    return [
        *_check_model(job, run),
        *_check_nodes(job, run),
        *_check_qlora(job, run),
        *_check_args(job),
    ]


def _check_model(job: ResolvedJob, run: TuneRun) -> list[Diagnostic]:
    if run.model in MODELS:
        return []
    return [
        job.trainjob.finding(
            ("spec", "runtimeRef", "name"),
            XOBJ_TORCHTUNE.code,
            f"must have a supported pretrained model, invalid model configured: {run.model}",
            hint=f"use a TorchTune runtime for one of {listing(MODELS)}",
        )
    ]


def _check_nodes(job: ResolvedJob, run: TuneRun) -> list[Diagnostic]:
    if run.num_nodes > 1 and run.model in MODELS and run.model != MULTI_NODE_MODEL:
        message = f"must be 1 for {run.model} model"
    elif run.num_nodes > 1 and (run.lora or run.qlora):
        message = f"LoRA fine-tuning runs on a single node; trainer.numNodes is {run.num_nodes}"
    else:
        return []
    return [
        job.trainjob.finding(
            (*_TRAINER, "numNodes"), XOBJ_TORCHTUNE.code, message, hint="set trainer.numNodes: 1"
        )
    ]


def _check_qlora(job: ResolvedJob, run: TuneRun) -> list[Diagnostic]:
    if not run.qlora or run.num_nodes != 1:
        return []
    if run.model == _NO_QLORA_MODEL:
        return [
            job.trainjob.finding(
                ("spec", "runtimeRef", "name"),
                XOBJ_TORCHTUNE.code,
                f"QLoRA is not supported for {run.model} model",
                hint="drop model.quantize_base from trainer.args, or use a Llama runtime",
            )
        ]
    if run.single_device or run.model not in _QLORA_SINGLE_DEVICE_MODELS:
        return []
    return [
        job.trainjob.finding(
            (*_TRAINER, "numProcPerNode"),
            XOBJ_TORCHTUNE.code,
            f"must be auto or 1 for {run.model} model when using QLoRA: QLoRA for this model "
            "needs a single device",
            hint="set trainer.numProcPerNode: 1, or request exactly one GPU in "
            "trainer.resourcesPerNode",
        )
    ]


def _check_args(job: ResolvedJob) -> list[Diagnostic]:
    found = []
    for index, arg in enumerate(as_list(get_path(job.trainjob.data, (*_TRAINER, "args")))):
        key = arg.split("=", 1)[0] if isinstance(arg, str) else ""
        if key in RUNTIME_OWNED_ARGS:
            found.append(
                job.trainjob.finding(
                    (*_TRAINER, "args", index),
                    XOBJ_TORCHTUNE.code,
                    f"must not set {key}: the TorchTune runtime points it at the volume its "
                    "initializers fill",
                    hint=f"delete {arg!r} from trainer.args",
                )
            )
    return found
