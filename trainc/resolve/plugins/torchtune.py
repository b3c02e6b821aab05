"""TorchTune: the ``tune run`` command the Torch plugin writes for a TorchTune TrainJob.

A TrainJob whose ``trainer.command`` is exactly ``["tune", "run"]`` asks Trainer to pick
the recipe and config
(https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/torch/torchtune.go)
from the node count, processes per node, GPUs per node and the LoRA arguments, and to keep the
paths the runtime wires to its initializers. Which combinations are supported is the
validator's concern (:mod:`trainc.checks.created.torchtune`, which judges the
:class:`TuneRun` recorded here); here every input yields a command.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

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
_QUANTIZE = re.compile(r"model\.quantize_base=true", re.IGNORECASE)
_DORA = re.compile(r"model\.use_dora=true", re.IGNORECASE)


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
        return any(_QUANTIZE.search(arg) for arg in self.args) and not any(
            _DORA.search(arg) for arg in self.args
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
