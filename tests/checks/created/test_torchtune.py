import pytest

from tests.support.builders import container, located, make_runtime, make_trainjob, resolved, rjob
from trainc.checks.created.torchtune import check_torchtune
from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonValue
from trainc.resolve.plugins.torchtune import model_of

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
