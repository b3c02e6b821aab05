"""TorchTune, a part of the Torch plugin: the ``tune run`` command, and the TrainJobs it supports.

A TrainJob whose ``trainer.command`` is exactly ``["tune", "run"]`` asks Trainer to pick
the recipe and config
(https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/torch/torchtune.go)
from the node count, processes per node, GPUs per node and the LoRA arguments, and to keep the
paths the runtime wires to its initializers. Upstream keeps it in the Torch plugin's
package, and so does trainc: a module of its own that only :mod:`trainc.plugins.torch`
imports, not a plugin in the registry. Resolving, every input yields a command.

Which combinations are supported is judged on the resolved job: the model comes from the
runtime name
(``torchtune-llama3.2-1b`` → ``llama3_2/1B``) and the recipe from the node count, processes
per node, GPUs and the LoRA arguments. The Torch plugin rejects combinations no recipe
config exists for: unknown models, several nodes except for 70B, QLoRA for Qwen,
multi-device QLoRA for 1B/3B, LoRA on several nodes, and arguments that override the paths
the runtime wires to its initializers. The checks judge what the recipe choice was made
from (:class:`TuneRun`, kept in the resolved job while resolving), so the verdict and the
compiled command can never disagree.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import Final, Literal

from trainc.checks.shared.findings import listing
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.model.json import FieldPath, as_list, get_path
from trainc.records import dataclass
from trainc.resolve.resolved import ResolvedJob

XOBJ_TORCHTUNE = Rule(
    "xobj.torchtune",
    Severity.ERROR,
    "a TorchTune TrainJob breaks the TorchTune runtime contract",
)

#: ``trainer.command`` of a TorchTune TrainJob.
ENTRYPOINT: Final = ["tune", "run"]
#: The models TorchTune runtimes exist for, as :func:`model_of` names them.
MODELS: Final = ("llama3_2/1B", "llama3_2/3B", "llama3_3/70B", "qwen2_5/1.5B")
#: The one model whose recipes run on several nodes.
MULTI_NODE_MODEL: Final = "llama3_3/70B"
#: Command-line keys the runtime wires to its initializers' volume.
RUNTIME_OWNED_ARGS: Final = (
    "output_dir",
    "tokenizer.path",
    "checkpointer.checkpoint_dir",
    "tokenizer.merges_file",
)


#: ``PET_NPROC_PER_NODE`` when torchrun should start one process per GPU it finds.
AUTO: Final = "auto"
ProcsPerNode = int | Literal["auto"]

RDZV_ENDPOINT_FLAG: Final = "--rdzv_endpoint"
CONFIG_FLAG: Final = "--config"
FULL_DISTRIBUTED: Final = "full_finetune_distributed"
FULL_SINGLE_DEVICE: Final = "full_finetune_single_device"
LORA_DISTRIBUTED: Final = "lora_finetune_distributed"
LORA_SINGLE_DEVICE: Final = "lora_finetune_single_device"

_LORA_ARG: Final = "model.lora_attn_modules"


@functools.cache
def _quantize_and_dora() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The overrides that make a run QLoRA, and DoRA; compiled on first use: the first
    case-insensitive pattern costs Python milliseconds, and most runs (the pre-commit
    hook's) never ask."""
    return (
        re.compile(r"model\.quantize_base=true", re.IGNORECASE),
        re.compile(r"model\.use_dora=true", re.IGNORECASE),
    )


def model_of(runtime_name: str) -> str:
    """The model a TorchTune runtime name encodes (``torchtune-llama3.2-1b`` → ``llama3_2/1B``).

    ``""`` when the name encodes none.
    """
    parts = runtime_name.split("-")
    if len(parts) != 3:  # noqa: PLR2004 - torchtune-<family>-<size>
        return ""
    return f"{parts[1].replace('.', '_')}/{parts[2].upper()}"


@dataclass(frozen=True, slots=True, kw_only=True)
class TuneRun:
    """What the recipe choice depends on."""

    runtime_name: str
    num_nodes: int
    procs_per_node: ProcsPerNode
    gpus: int
    args: Sequence[str]

    @property
    def model(self) -> str:
        """The pretrained model, from the runtime's name (``""`` when it names none)."""
        return model_of(self.runtime_name)

    @property
    def single_device(self) -> bool:
        """One device per node: ``numProcPerNode`` 1, or a single GPU."""
        return self.procs_per_node == 1 or self.gpus == 1

    @property
    def lora(self) -> bool:
        """LoRA: some argument configures ``model.lora_attn_modules``."""
        return any(_LORA_ARG in arg for arg in self.args)

    @property
    def qlora(self) -> bool:
        """QLoRA: the base model is quantized, and DoRA is not asked for."""
        quantize, dora = _quantize_and_dora()
        return any(quantize.search(arg) for arg in self.args) and not any(
            dora.search(arg) for arg in self.args
        )


def is_torchtune(command: Sequence[str] | None) -> bool:
    """Whether ``trainer.command`` selects TorchTune (exactly ``tune run``)."""
    return command is not None and list(command) == ENTRYPOINT


def tune_command(run: TuneRun, *, endpoint: str, runtime_commands: Iterable[str]) -> list[str]:
    """``tune run [--rdzv_endpoint=<endpoint>] <recipe> --config <config> <runtime paths>``.

    The rendezvous is only needed with several nodes or several processes per node;
    ``runtime_commands`` are the runtime's ``node`` command entries, of which those
    setting a runtime-owned key (``output_dir``, ``tokenizer.path``, ...) are kept.
    """
    command = list(ENTRYPOINT)
    if _distributed(run):
        command.append(f"{RDZV_ENDPOINT_FLAG}={endpoint}")
    recipe, suffix = _recipe(run)
    command += [recipe, CONFIG_FLAG, f"{run.model}_{suffix}"]
    command += [entry for entry in runtime_commands if entry.split("=", 1)[0] in RUNTIME_OWNED_ARGS]
    return command


def _distributed(run: TuneRun) -> bool:
    if run.num_nodes > 1:
        return True
    if run.procs_per_node == AUTO:
        return run.gpus > 1
    return run.procs_per_node > 1


def _recipe(run: TuneRun) -> tuple[str, str]:
    """Recipe and config suffix: upstream's table, whose rows for one node come first.

    Several nodes always fine-tune fully; so does a node count of 0, by the table's
    "otherwise" row. On one node, one device (``numProcPerNode`` 1, or a single GPU)
    selects the single-device recipes, and QLoRA is tested before LoRA.
    """
    if run.num_nodes != 1:
        return FULL_DISTRIBUTED, "full_multinode" if run.num_nodes > 1 else "full"
    single = run.single_device
    lora_recipe = LORA_SINGLE_DEVICE if single else LORA_DISTRIBUTED
    suffix = "_single_device" if single else ""
    if run.qlora:
        return lora_recipe, f"qlora{suffix}"
    if run.lora:
        return lora_recipe, f"lora{suffix}"
    return (FULL_SINGLE_DEVICE if single else FULL_DISTRIBUTED), f"full{suffix}"


_TRAINER: Final[FieldPath] = ("spec", "trainer")
_QLORA_SINGLE_DEVICE_MODELS: Final = ("llama3_2/1B", "llama3_2/3B")
_NO_QLORA_MODEL: Final = "qwen2_5/1.5B"


def check_torchtune(job: ResolvedJob) -> list[Diagnostic]:
    """The TorchTune rules, for a TrainJob running ``tune run`` on a Torch runtime."""
    run = job.extension(TuneRun)
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
