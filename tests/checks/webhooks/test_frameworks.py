import pytest

from tests.support.builders import cross_object, located, make_runtime, make_trainjob, rjob
from trainc.checks.webhooks.frameworks import (
    check_flux_init_containers,
    check_reserved_env,
    check_torch_env_injection,
)
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonValue


def _env(*names: str) -> DefaultedObject:
    env: list[JsonValue] = [{"name": "KEEP", "value": "1"}]
    env += [{"name": name, "value": "x"} for name in names]
    return make_trainjob(trainer={"env": env})


@pytest.mark.parametrize(
    ("policy", "name", "message"),
    [
        (
            {"torch": {}},
            "PET_NNODES",
            "must not have reserved envs, invalid envs configured: [PET_NNODES]",
        ),
        (
            {"mpi": {}},
            "OMPI_MCA_orte_default_hostfile",
            "must not have reserved envs, invalid envs configured: "
            "[OMPI_MCA_orte_default_hostfile]",
        ),
        (
            {"xgboost": {}},
            "DMLC_TRACKER_URI",
            "DMLC_TRACKER_URI is reserved for the XGBoost runtime",
        ),
    ],
)
def test_framework_reserves_its_variables(policy, name, message):
    findings = check_reserved_env(_env(name), make_runtime(ml_policy=policy))

    assert located(findings) == [("xobj.reserved-env", "spec.trainer.env[1].name")]
    assert findings[0].message.startswith(message)


def test_hint_names_the_field_that_controls_the_variable():
    [finding] = check_reserved_env(_env("PET_NNODES"), make_runtime())

    assert finding.hint == "delete it; set trainer.numNodes instead"


def test_variables_of_other_frameworks_are_free():
    trainjob = _env("PET_NNODES", "DMLC_TASK_ID", "OMPI_MCA_plm_rsh_args")

    assert check_reserved_env(trainjob, make_runtime(ml_policy={"jax": {}})) == []


def _injection(*targets: JsonValue) -> DefaultedObject:
    jobs = [
        rjob("node", ancestor="trainer"),
        rjob("eval", containers=["evaluator"], init_containers=["warmup"]),
    ]
    policy: JsonValue = {"torch": {"envInjection": {"targets": list(targets)}}}
    return make_runtime(ml_policy=policy, replicated_jobs=jobs)


def test_env_injection_targets_must_exist():
    runtime = _injection(
        {"jobName": "eval", "containerNames": ["warmup", "evaluater"]},
        {"jobName": "evals", "containerNames": ["evaluator"]},
    )

    findings = check_torch_env_injection(runtime)

    targets = "spec.mlPolicy.torch.envInjection.targets"
    assert located(findings) == [
        ("xobj.torch-env-injection", f"{targets}[0].containerNames[1]"),
        ("xobj.torch-env-injection", f"{targets}[1].jobName"),
    ]
    assert findings[0].message == (
        'envInjection target podSet "eval" container "evaluater" not found in runtime template'
    )


def test_env_injection_into_existing_containers_passes():
    runtime = _injection({"jobName": "eval", "containerNames": ["evaluator", "warmup"]})

    assert check_torch_env_injection(runtime) == []


FLUX_JOBS = [rjob("node", ancestor="trainer", init_containers=["flux-installer"])]


def test_flux_reserves_the_installer_init_container():
    runtime = make_runtime(ml_policy={"flux": {}}, replicated_jobs=FLUX_JOBS)

    findings = check_flux_init_containers(runtime)

    assert located(findings) == [
        (
            "xobj.flux-reserved-init-container",
            "spec.template.spec.replicatedJobs[0].template.spec.template.spec.initContainers[0].name",
        )
    ]
    assert findings[0].message.startswith("InitContainer 'flux-installer' is reserved")


def test_installer_name_is_free_without_flux():
    assert check_flux_init_containers(make_runtime(replicated_jobs=FLUX_JOBS)) == []


def test_runtime_defects_are_reported_once_and_only_for_used_runtimes():
    flux = make_runtime(
        "flux",
        ml_policy={"flux": {}},
        replicated_jobs=FLUX_JOBS,
        labels={"trainer.kubeflow.org/webhook-validation": "disabled"},
    )
    unused = make_runtime("unused", ml_policy={"flux": {}}, replicated_jobs=FLUX_JOBS)
    jobs = [make_trainjob(name, runtime="flux") for name in ("a", "b")]

    findings = cross_object([flux, unused, *jobs])

    assert [(d.code, d.name) for d in findings] == [("xobj.flux-reserved-init-container", "flux")]
