"""The whole cross-object layer: upstream's examples as conformance data, and hostile input."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.builders import (
    cross_object,
    defaulted,
    located,
    make_runtime,
    make_trainjob,
    objects_from_file,
    rjob,
)
from tests.support.documents import make_object
from trainc.load.defaulted import DefaultedObject
from trainc.model.kinds import RUNTIME_KINDS, TRAINJOB
from trainc.model.labels import API_VERSION

#: The file defining the runtime each HEAD example TrainJob references (None: its own file).
TRAINJOB_RUNTIMES = {
    "01-multi-node.yaml": "torch_distributed.yaml",
    "02-runtime-patches.yaml": "torch_distributed.yaml",
    "03-kueue-integration.yaml": "torch_distributed.yaml",
    "04-volcano-integration.yaml": None,
    "05-multi-step.yaml": None,
    "docs_operator-guides_job-scheduling_kai_2.yaml": (
        "docs_operator-guides_job-scheduling_kai_1.yaml"
    ),
    "docs_operator-guides_migration_1.yaml": "torch_distributed.yaml",
    "docs_operator-guides_runtime-patches_1.yaml": None,
    "docs_operator-guides_runtime_2.yaml": "docs_operator-guides_runtime_1.yaml",
    "docs_operator-guides_runtime_4.yaml": "docs_operator-guides_runtime_3.yaml",
    "docs_user-guides_megatron_2.yaml": "docs_user-guides_megatron_1.yaml",
    "docs_user-guides_trainjob-lifecycle_1.yaml": "torch_distributed.yaml",
    "docs_user-guides_trainjob-lifecycle_2.yaml": "torch_distributed.yaml",
    "flux-interactive.yaml": "flux-runtime.yaml",
    "lammps-train-gpus.yaml": "flux-runtime.yaml",
    "lammps-train-job.yaml": "flux-runtime.yaml",
}
#: HEAD examples upstream itself rejects, with what trainc must say.
REJECTED = {
    "05-multi-step.yaml": [("xobj.initializer-volume-mount", "spec.initializer.dataset")],
    "docs_operator-guides_runtime-patches_1.yaml": [
        ("xobj.runtime-not-found", "spec.runtimeRef.name")
    ],
}


@pytest.fixture(scope="module")
def examples(shared_dir: Path) -> Path:
    return shared_dir / "upstream" / "trainer-examples"


def _head_files(examples: Path) -> list[Path]:
    return sorted(p for p in examples.glob("*.yaml") if not p.name.startswith("v2.1.0_"))


def _objects(*paths: Path) -> list[DefaultedObject]:
    return [defaulted(obj) for path in paths for obj in objects_from_file(path)]


def test_every_head_runtime_passes_the_runtime_checks(examples):
    runtimes = [
        obj for path in _head_files(examples) for obj in _objects(path) if obj.kind in RUNTIME_KINDS
    ]

    assert len(runtimes) >= 20
    for runtime in runtimes:
        assert cross_object([runtime]) == [], runtime.loaded.path


def test_every_head_trainjob_file_is_paired_with_its_runtime(examples):
    with_trainjobs = {
        path.name
        for path in _head_files(examples)
        if any(obj.kind == TRAINJOB.kind for obj in _objects(path))
    }

    assert with_trainjobs == set(TRAINJOB_RUNTIMES)


@pytest.mark.parametrize("name", sorted(TRAINJOB_RUNTIMES))
def test_head_trainjob_with_its_runtime(examples, name):
    runtime_file = TRAINJOB_RUNTIMES[name]
    paths = [examples / name] + ([examples / runtime_file] if runtime_file else [])

    findings = cross_object(_objects(*paths))

    assert located(findings) == REJECTED.get(name, [])


def test_multi_step_names_the_runtime_container(examples):
    [finding] = cross_object(_objects(examples / "05-multi-step.yaml"))

    assert finding.name == "multi-step-example"
    assert finding.message.startswith(
        "must have volumeMount with name - initializer in container dataset-initializer of the "
        "dataset-initializer job"
    )
    assert "TrainingRuntime default/torch-with-dataset-init" in finding.message


def test_findings_are_deduplicated_and_in_a_stable_order():
    runtime = make_runtime(ml_policy={"mpi": {"mpiImplementation": ""}})
    jobs = [make_trainjob(name) for name in ("b", "a")]

    first = cross_object([runtime, *jobs])
    again = cross_object([*reversed(jobs), runtime])

    assert located(first) == [("xobj.mpi-implementation", "spec.mlPolicy.mpi.mpiImplementation")]
    assert first == again


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "name",
                    "replicatedJobs",
                    "template",
                    "spec",
                    "containers",
                    "mlPolicy",
                    "torch",
                    "mpi",
                    "dependsOn",
                    "coordinator",
                    "volumeClaimPolicies",
                    "templates",
                    "metadata",
                    "runtimePatches",
                    "trainingRuntimeSpec",
                    "initializer",
                    "dataset",
                    "trainer",
                    "env",
                    "numNodes",
                    "labels",
                    "replicas",
                    "volumeMounts",
                    "failurePolicy",
                ]
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=30,
)


RUNTIME_SPEC = st.fixed_dictionaries(
    {},
    optional={
        "mlPolicy": JSON,
        "podGroupPolicy": JSON,
        "template": JSON,
        "ttlSecondsAfterFinished": JSON,
    },
)
TRAINJOB_SPEC = st.fixed_dictionaries(
    {"runtimeRef": st.just({"name": "rt"})},
    optional={"trainer": JSON, "initializer": JSON, "runtimePatches": JSON},
)


@given(runtime_spec=RUNTIME_SPEC, trainjob_spec=TRAINJOB_SPEC)
def test_malformed_objects_never_raise(runtime_spec, trainjob_spec):
    runtime = make_object(
        {
            "apiVersion": API_VERSION,
            "kind": "ClusterTrainingRuntime",
            "metadata": {"name": "rt"},
            "spec": runtime_spec,
        }
    )
    trainjob = make_object(
        {
            "apiVersion": API_VERSION,
            "kind": "TrainJob",
            "metadata": {"name": "tj"},
            "spec": trainjob_spec,
        }
    )

    cross_object([defaulted(runtime, schema_valid=False), defaulted(trainjob, schema_valid=False)])


FLUX_JOBS = [rjob("node", ancestor="trainer", init_containers=["flux-installer"])]


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
