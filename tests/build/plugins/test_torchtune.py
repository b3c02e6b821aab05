from __future__ import annotations

from typing import Any

import pytest

from trainc.build.plugins.torchtune import ProcsPerNode, TuneRun, is_torchtune, tune_command

ENDPOINT = "tj-node-0-0.tj:29500"
LORA = "model.lora_attn_modules=[q_proj,v_proj]"
QLORA = "model.quantize_base=True"


def command(
    *,
    num_nodes: int = 1,
    procs: ProcsPerNode = "auto",
    gpus: int = 0,
    args: tuple[str, ...] = (),
    runtime: str = "torchtune-llama3.2-1b",
    runtime_commands: tuple[str, ...] = (),
) -> list[str]:
    run = TuneRun(
        runtime_name=runtime, num_nodes=num_nodes, procs_per_node=procs, gpus=gpus, args=args
    )
    return tune_command(run, endpoint=ENDPOINT, runtime_commands=runtime_commands)


@pytest.mark.parametrize(
    ("command_", "expected"),
    [(["tune", "run"], True), (["tune", "run", "x"], False), (["tune"], False), (None, False)],
)
def test_is_torchtune(command_: list[str] | None, expected: bool) -> None:
    assert is_torchtune(command_) is expected


@pytest.mark.parametrize(
    ("kwargs", "recipe", "config"),
    [
        # One node, one device (numProcPerNode 1, or a single GPU with auto).
        (
            {"procs": 1, "args": (QLORA, LORA)},
            "lora_finetune_single_device",
            "_qlora_single_device",
        ),
        ({"gpus": 1, "args": (LORA,)}, "lora_finetune_single_device", "_lora_single_device"),
        ({"procs": 1}, "full_finetune_single_device", "_full_single_device"),
        # One node, several devices.
        ({"gpus": 2, "args": (LORA, QLORA)}, "lora_finetune_distributed", "_qlora"),
        ({"gpus": 2, "args": (LORA,)}, "lora_finetune_distributed", "_lora"),
        ({"procs": 4}, "full_finetune_distributed", "_full"),
        # Several nodes: always full fine-tuning.
        (
            {"num_nodes": 3, "procs": 1, "args": (LORA,)},
            "full_finetune_distributed",
            "_full_multinode",
        ),
    ],
)
def test_recipe_table(kwargs: dict[str, Any], recipe: str, config: str) -> None:
    line = command(**kwargs)
    assert line[line.index("--config") - 1] == recipe
    assert line[line.index("--config") + 1] == f"llama3_2/1B{config}"


@pytest.mark.parametrize(
    ("args", "config"),
    [
        (("model.QUANTIZE_BASE=true",), "_qlora_single_device"),
        (("model.quantize_base=False",), "_full_single_device"),
        ((QLORA, "model.use_dora=True"), "_full_single_device"),
        ((QLORA, LORA, "model.use_dora=true"), "_lora_single_device"),
    ],
)
def test_qlora_needs_a_quantized_base_and_no_dora(args: tuple[str, ...], config: str) -> None:
    assert command(procs=1, args=args)[-1] == f"llama3_2/1B{config}"


@pytest.mark.parametrize(
    ("kwargs", "rendezvous"),
    [
        ({"num_nodes": 2, "procs": 1}, True),
        ({"procs": 2}, True),
        ({"procs": 1, "gpus": 8}, False),
        ({"gpus": 2}, True),
        ({"gpus": 1}, False),
        ({}, False),
    ],
)
def test_rendezvous_only_with_several_processes(kwargs: dict[str, Any], rendezvous: bool) -> None:
    line = command(**kwargs)
    assert (f"--rdzv_endpoint={ENDPOINT}" in line) is rendezvous
    assert line[:2] == ["tune", "run"]


def test_runtime_paths_are_kept_in_order_and_other_entries_dropped() -> None:
    line = command(
        runtime="torchtune-qwen2.5-1.5b",
        runtime_commands=(
            "tune",
            "run",
            "tokenizer.merges_file=/m",
            "--config",
            "output_dir=/out",
            "tokenizer.path=/t",
            "dtype=bf16",
            "checkpointer.checkpoint_dir=/c",
        ),
    )
    assert line == [
        "tune",
        "run",
        "full_finetune_distributed",
        "--config",
        "qwen2_5/1.5B_full",
        "tokenizer.merges_file=/m",
        "output_dir=/out",
        "tokenizer.path=/t",
        "checkpointer.checkpoint_dir=/c",
    ]


def test_a_runtime_name_without_three_parts_gives_no_model() -> None:
    assert command(runtime="torchtune", procs=1)[-1] == "_full_single_device"
