from collections.abc import Sequence

import pytest

from tests.support.builders import located, make_runtime, make_trainjob, rjob
from trainc.checks.webhooks.mpi import check_mpi_implementation, check_mpi_launcher_node
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonValue


def _mpi(
    *, as_node: bool = True, jobs: Sequence[str] = ("launcher", "node"), **mpi: JsonValue
) -> DefaultedObject:
    return make_runtime(
        ml_policy={"numNodes": 1, "mpi": {"runLauncherAsNode": as_node, **mpi}},
        replicated_jobs=[
            rjob(name, ancestor="trainer" if name == "launcher" else None) for name in jobs
        ],
    )


def test_launcher_as_node_needs_launcher_and_node_jobs():
    findings = check_mpi_launcher_node(
        make_trainjob(trainer={"numNodes": 2}), _mpi(jobs=("launcher", "worker"))
    )

    assert located(findings) == [("xobj.mpi-launcher-node", "spec.trainer.numNodes")]
    assert findings[0].message.startswith(
        "must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have "
        "either launcher and node"
    )
    assert "without 'node'" in findings[0].message


@pytest.mark.parametrize(
    ("runtime", "trainer"),
    [
        (_mpi(jobs=("launcher",)), {"numNodes": 1}),
        (_mpi(jobs=("launcher",)), {"image": "example.com/x:1"}),
        (_mpi(jobs=("launcher",), as_node=False), {"numNodes": 4}),
        (_mpi(), {"numNodes": 4}),
    ],
)
def test_launcher_node_rule_holds(runtime, trainer):
    assert check_mpi_launcher_node(make_trainjob(trainer=trainer), runtime) == []


def test_only_openmpi_is_implemented():
    findings = check_mpi_implementation(_mpi(mpiImplementation=""))

    assert located(findings) == [("xobj.mpi-implementation", "spec.mlPolicy.mpi.mpiImplementation")]
    assert findings[0].message.startswith("MPI implementation for '' doesn't supported")


def test_openmpi_passes():
    assert check_mpi_implementation(_mpi()) == []
