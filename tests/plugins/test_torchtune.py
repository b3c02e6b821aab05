""" """

from __future__ import annotations

from typing import Any

import pytest

from tests.support.builders import container, located, make_runtime, make_trainjob, resolved, rjob
from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonValue
from trainc.plugins.torchtune import (
    ENTRYPOINT,
    MODELS,
    MULTI_NODE_MODEL,
    RUNTIME_OWNED_ARGS,
    ProcsPerNode,
    TuneRun,
    check_torchtune,
    is_torchtune,
    model_of,
    tune_command,
)

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


@pytest.mark.parametrize(
    ("runtime", "model"),
    [
        ("torchtune-llama3.2-1b", "llama3_2/1B"),
        ("torchtune-llama3.2-3b", "llama3_2/3B"),
        ("torchtune-llama3.3-70b", "llama3_3/70B"),
        ("torchtune-qwen2.5-1.5b", "qwen2_5/1.5B"),
        ("torchtune", ""),
        ("torchtune-llama3.2", ""),
        ("torchtune-llama3.2-1b-extra", ""),
    ],
)
def test_model_of_the_runtime_name(runtime: str, model: str) -> None:
    assert model_of(runtime) == model
    run = TuneRun(runtime_name=runtime, num_nodes=1, procs_per_node=1, gpus=0, args=())
    assert run.model == model


def test_the_runtimes_trainer_ships_name_the_known_models() -> None:
    names = ("llama3.2-1b", "llama3.2-3b", "llama3.3-70b", "qwen2.5-1.5b")
    assert tuple(model_of(f"torchtune-{name}") for name in names) == MODELS
    assert MULTI_NODE_MODEL in MODELS
    assert ENTRYPOINT == ["tune", "run"]
    assert is_torchtune(ENTRYPOINT)


@pytest.mark.parametrize(
    ("procs", "gpus", "single"),
    [
        (1, 0, True),
        (1, 8, True),
        ("auto", 1, True),
        ("auto", 2, False),
        (2, 1, True),
        (2, 0, False),
    ],
)
def test_single_device(procs: ProcsPerNode, gpus: int, single: bool) -> None:
    run = TuneRun(
        runtime_name="torchtune-llama3.2-1b", num_nodes=1, procs_per_node=procs, gpus=gpus, args=()
    )
    assert run.single_device is single


def test_every_runtime_owned_key_is_kept() -> None:
    entries = tuple(f"{key}=/x" for key in RUNTIME_OWNED_ARGS)
    assert command(procs=1, runtime_commands=entries)[-len(entries) :] == list(entries)


TUNE: list[JsonValue] = ["tune", "run"]


def _runtime(name: str, gpus: int = 2) -> DefaultedObject:
    node = container("node", resources={"limits": {"nvidia.com/gpu": gpus}})
    return make_runtime(name, replicated_jobs=[rjob("node", ancestor="trainer", containers=[node])])


def _job(runtime: str, **trainer: JsonValue) -> DefaultedObject:
    return make_trainjob(runtime=runtime, trainer={"command": TUNE, **trainer})


def check(trainjob: DefaultedObject, runtime: DefaultedObject) -> list[Diagnostic]:
    return check_torchtune(resolved(trainjob, runtime))


@pytest.mark.parametrize(
    ("runtime", "model"),
    [
        ("torchtune-llama3.2-1b", "llama3_2/1B"),
        ("torchtune-qwen2.5-1.5b", "qwen2_5/1.5B"),
        ("torch-distributed", ""),
    ],
)
def test_model_comes_from_the_runtime_name(runtime, model):
    assert model_of(runtime) == model


def test_unknown_model_is_rejected_at_the_runtime_name():
    findings = check(_job("torchtune-gemma-2b"), _runtime("torchtune-gemma-2b"))

    assert located(findings) == [("xobj.torchtune", "spec.runtimeRef.name")]
    assert findings[0].message == (
        "must have a supported pretrained model, invalid model configured: gemma/2B"
    )


def test_only_70b_runs_on_several_nodes():
    findings = check(_job("torchtune-llama3.2-3b", numNodes=2), _runtime("torchtune-llama3.2-3b"))

    assert located(findings) == [("xobj.torchtune", "spec.trainer.numNodes")]
    assert findings[0].message == "must be 1 for llama3_2/3B model"


def test_lora_runs_on_a_single_node():
    args: list[JsonValue] = ["model.lora_attn_modules=[q_proj,v_proj]"]

    findings = check(
        _job("torchtune-llama3.3-70b", numNodes=2, args=args), _runtime("torchtune-llama3.3-70b")
    )

    assert located(findings) == [("xobj.torchtune", "spec.trainer.numNodes")]


def test_qlora_is_not_for_qwen():
    args: list[JsonValue] = ["model.quantize_base=True"]

    findings = check(_job("torchtune-qwen2.5-1.5b", args=args), _runtime("torchtune-qwen2.5-1.5b"))

    assert located(findings) == [("xobj.torchtune", "spec.runtimeRef.name")]
    assert findings[0].message == "QLoRA is not supported for qwen2_5/1.5B model"


def test_qlora_for_small_llama_needs_a_single_device():
    args: list[JsonValue] = ["model.quantize_base=true"]
    runtime = _runtime("torchtune-llama3.2-1b", gpus=2)

    findings = check(_job("torchtune-llama3.2-1b", args=args), runtime)

    assert located(findings) == [("xobj.torchtune", "spec.trainer.numProcPerNode")]
    assert check(_job("torchtune-llama3.2-1b", args=args, numProcPerNode=1), runtime) == []
    dora: list[JsonValue] = [*args, "model.use_dora=True"]
    assert check(_job("torchtune-llama3.2-1b", args=dora), runtime) == []


def test_args_must_not_override_runtime_paths():
    args: list[JsonValue] = ["epochs=2", "output_dir=/tmp/out"]

    findings = check(_job("torchtune-llama3.2-1b", args=args), _runtime("torchtune-llama3.2-1b"))

    assert located(findings) == [("xobj.torchtune", "spec.trainer.args[1]")]


def test_supported_job_and_plain_torch_jobs_pass():
    runtime = _runtime("torchtune-llama3.2-1b")

    assert check(_job("torchtune-llama3.2-1b", args=["epochs=2"]), runtime) == []
    plain = make_trainjob(runtime="torchtune-gemma-2b", trainer={"command": ["python"]})
    assert check(plain, _runtime("torchtune-gemma-2b")) == []
