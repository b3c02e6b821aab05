"""TorchTune TrainJobs: the model, node count, LoRA mode and arguments the runtime supports.

A TrainJob on a Torch runtime whose ``trainer.command`` is exactly ``["tune", "run"]`` is a
TorchTune job (``upstream-semantics.md`` §2.8): the model comes from the runtime name
(``torchtune-llama3.2-1b`` → ``llama3_2/1B``) and the recipe from the node count, processes
per node, GPUs and the LoRA arguments. The Torch plugin rejects combinations no recipe
config exists for (§1.7): unknown models, several nodes except for 70B, QLoRA for Qwen,
multi-device QLoRA for 1B/3B, LoRA on several nodes, and arguments that override the paths
the runtime wires to its initializers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trainc.diagnostics import Diagnostic
from trainc.model.json import FieldPath, JsonObject, as_list, as_object, get_path
from trainc.model.labels import NODE_CONTAINER
from trainc.resolve.objects import DefaultedObject
from trainc.validate.crossobject.findings import listing
from trainc.validate.crossobject.template import (
    containers,
    int_value,
    named,
    replicated_jobs,
    trainer_job,
)

ENTRYPOINT = ["tune", "run"]
MODELS = ("llama3_2/1B", "llama3_2/3B", "llama3_3/70B", "qwen2_5/1.5B")
MULTI_NODE_MODEL = "llama3_3/70B"
RUNTIME_OWNED_ARGS = (
    "output_dir",
    "tokenizer.path",
    "checkpointer.checkpoint_dir",
    "tokenizer.merges_file",
)
_TRAINER: FieldPath = ("spec", "trainer")


@dataclass(frozen=True, slots=True)
class _Job:
    """What the recipe choice depends on."""

    model: str
    num_nodes: int
    single_device: bool
    lora: bool
    qlora: bool


def model_of(runtime_name: str) -> str:
    """The model a TorchTune runtime name encodes, or ``""`` when it encodes none."""
    parts = runtime_name.split("-")
    if len(parts) != 3:  # noqa: PLR2004 - torchtune-<family>-<size>
        return ""
    return f"{parts[1].replace('.', '_')}/{parts[2].upper()}"


def check_torchtune(trainjob: DefaultedObject, runtime: DefaultedObject) -> list[Diagnostic]:
    """The TorchTune rules, for TrainJobs running ``tune run`` on a Torch runtime."""
    trainer = as_object(get_path(trainjob.data, _TRAINER))
    torch = get_path(runtime.data, ("spec", "mlPolicy", "torch"))
    if trainer.get("command") != ENTRYPOINT or not isinstance(torch, dict):
        return []
    job = _describe(trainjob, runtime, trainer)
    return [
        *_check_model(trainjob, job),
        *_check_nodes(trainjob, job),
        *_check_qlora(trainjob, job),
        *_check_args(trainjob, trainer),
    ]


def _describe(trainjob: DefaultedObject, runtime: DefaultedObject, trainer: JsonObject) -> _Job:
    args = [arg for arg in as_list(trainer.get("args")) if isinstance(arg, str)]
    num_nodes = int_value(trainer.get("numNodes"))
    if num_nodes is None:
        num_nodes = int_value(get_path(runtime.data, ("spec", "mlPolicy", "numNodes"))) or 1
    dora = any(re.search(r"model\.use_dora=true", arg, re.IGNORECASE) for arg in args)
    quantized = any(re.search(r"model\.quantize_base=true", arg, re.IGNORECASE) for arg in args)
    single = int_value(trainer.get("numProcPerNode")) == 1 or _gpus(runtime, trainer) == 1
    return _Job(
        model=model_of(str(get_path(trainjob.data, ("spec", "runtimeRef", "name")) or "")),
        num_nodes=num_nodes,
        single_device=num_nodes == 1 and single,
        lora=any("model.lora_attn_modules" in arg for arg in args),
        qlora=quantized and not dora,
    )


def _gpus(runtime: DefaultedObject, trainer: JsonObject) -> int:
    """GPUs per node: the first ``*gpu*`` request, else limit, of the node's resources (§2.8)."""
    resources = trainer.get("resourcesPerNode")
    if not isinstance(resources, dict):
        rjob = trainer_job(replicated_jobs(runtime.data))
        node = named(containers(rjob), NODE_CONTAINER) if rjob is not None else None
        resources = node.get("resources") if node is not None else None
    for kind in ("requests", "limits"):
        for name, value in as_object(as_object(resources).get(kind)).items():
            if "gpu" in name.lower() and (count := _quantity(value)):
                return count
    return 0


def _quantity(value: object) -> int:
    text = str(value)
    return int(text) if text.isdigit() else 0


def _check_model(trainjob: DefaultedObject, job: _Job) -> list[Diagnostic]:
    if job.model in MODELS:
        return []
    return [
        trainjob.finding(
            ("spec", "runtimeRef", "name"),
            "xobj.torchtune",
            f"must have a supported pretrained model, invalid model configured: {job.model}",
            hint=f"use a TorchTune runtime for one of {listing(MODELS)}",
        )
    ]


def _check_nodes(trainjob: DefaultedObject, job: _Job) -> list[Diagnostic]:
    path = (*_TRAINER, "numNodes")
    if job.num_nodes > 1 and job.model in MODELS and job.model != MULTI_NODE_MODEL:
        message = f"must be 1 for {job.model} model"
    elif job.num_nodes > 1 and (job.lora or job.qlora):
        message = f"LoRA fine-tuning runs on a single node; trainer.numNodes is {job.num_nodes}"
    else:
        return []
    return [trainjob.finding(path, "xobj.torchtune", message, hint="set trainer.numNodes: 1")]


def _check_qlora(trainjob: DefaultedObject, job: _Job) -> list[Diagnostic]:
    if not job.qlora or job.num_nodes != 1:
        return []
    if job.model == "qwen2_5/1.5B":
        return [
            trainjob.finding(
                ("spec", "runtimeRef", "name"),
                "xobj.torchtune",
                f"QLoRA is not supported for {job.model} model",
                hint="drop model.quantize_base from trainer.args, or use a Llama runtime",
            )
        ]
    if job.single_device or job.model not in ("llama3_2/1B", "llama3_2/3B"):
        return []
    return [
        trainjob.finding(
            (*_TRAINER, "numProcPerNode"),
            "xobj.torchtune",
            f"must be auto or 1 for {job.model} model when using QLoRA: QLoRA for this model "
            "needs a single device",
            hint="set trainer.numProcPerNode: 1, or request exactly one GPU in "
            "trainer.resourcesPerNode",
        )
    ]


def _check_args(trainjob: DefaultedObject, trainer: JsonObject) -> list[Diagnostic]:
    found = []
    for index, arg in enumerate(as_list(trainer.get("args"))):
        key = arg.split("=", 1)[0] if isinstance(arg, str) else ""
        if key in RUNTIME_OWNED_ARGS:
            found.append(
                trainjob.finding(
                    (*_TRAINER, "args", index),
                    "xobj.torchtune",
                    f"must not set {key}: the TorchTune runtime points it at the volume its "
                    "initializers fill",
                    hint=f"delete {arg!r} from trainer.args",
                )
            )
    return found
