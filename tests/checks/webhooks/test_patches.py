import pytest

from tests.support.builders import located, make_runtime, make_trainjob, rjob
from trainc.checks.webhooks.patches import check_runtime_patches
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, JsonValue

PATCH = "spec.runtimePatches[0]"
JOB = f"{PATCH}.trainingRuntimeSpec.template.spec.replicatedJobs[0]"
POD = f"{JOB}.template.spec.template.spec"

RUNTIME = make_runtime(
    replicated_jobs=[
        rjob("node", ancestor="trainer", containers=["node", "sidecar"], init_containers=["setup"])
    ]
)


def _patch(
    pod_spec: JsonObject, *, job: str = "node", manager: str = "example.com/platform"
) -> DefaultedObject:
    rjob_patch: JsonObject = {"name": job, "template": {"spec": {"template": {"spec": pod_spec}}}}
    return make_trainjob(
        runtimePatches=[
            {
                "manager": manager,
                "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [rjob_patch]}}},
            }
        ]
    )


@pytest.mark.parametrize("manager", ["platform", "Example.com/team", "example.com/a b"])
def test_manager_must_be_a_domain_prefixed_path(manager):
    findings = check_runtime_patches(_patch({}, manager=manager), RUNTIME)

    assert located(findings) == [("xobj.patch-manager", f"{PATCH}.manager")]


def test_patched_job_must_exist():
    findings = check_runtime_patches(_patch({}, job="nodes"), RUNTIME)

    assert located(findings) == [("xobj.patch-unknown-job", f"{JOB}.name")]
    assert findings[0].message.startswith(
        "must not have replicated job that doesn't exist in the runtime job template"
    )
    assert findings[0].hint == "did you mean 'node'?"


def test_patched_container_must_exist_in_its_own_list():
    findings = check_runtime_patches(
        _patch({"containers": [{"name": "setup"}], "initContainers": [{"name": "side"}]}),
        RUNTIME,
    )

    assert located(findings) == [
        ("xobj.patch-unknown-container", f"{POD}.containers[0].name"),
        ("xobj.patch-unknown-container", f"{POD}.initContainers[0].name"),
    ]
    assert findings[0].message.startswith(
        "must not have container that doesn't exist in the runtime job node"
    )
    assert (
        findings[0].hint == "'setup' is listed under initContainers in the runtime; patch it there"
    )
    assert findings[1].message.startswith(
        "must not have initContainer that doesn't exist in the runtime job node"
    )


def test_env_on_the_node_container_is_forbidden():
    env: list[JsonValue] = [{"name": "LOG_LEVEL", "value": "debug"}]

    findings = check_runtime_patches(
        _patch({"containers": [{"name": "node", "env": env}]}), RUNTIME
    )

    assert located(findings) == [("xobj.patch-forbidden-env", f"{POD}.containers[0].env")]
    assert findings[0].message.startswith(
        "must not have envs for the dataset-initializer, model-initializer, node containers"
    )
    assert findings[0].hint == "set these variables in spec.trainer.env instead"


def test_valid_patch_passes():
    pod: JsonObject = {
        "nodeSelector": {"pool": "gpu"},
        "containers": [
            {"name": "node", "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
            {"name": "sidecar", "env": [{"name": "MODE", "value": "x"}]},
        ],
        "initContainers": [{"name": "setup", "env": [{"name": "A", "value": "b"}]}],
    }

    assert check_runtime_patches(_patch(pod), RUNTIME) == []
