"""trainer.env entries an ML plugin sets itself, rejected by Torch, MPI and XGBoost alike."""

import pytest

from tests.support.builders import located, make_runtime, make_trainjob
from trainc.checks.webhooks.cross_object import check_trainjob
from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonValue


def check_reserved_env(trainjob: DefaultedObject, runtime: DefaultedObject) -> list[Diagnostic]:
    """The reserved-variable findings of every plugin's TrainJob checks."""
    return [d for d in check_trainjob(trainjob, runtime) if d.code == "xobj.reserved-env"]


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
