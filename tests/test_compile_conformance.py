"""Compile conformance: upstream's runtimes build, and the output passes upstream's own CRDs.

Every HEAD runtime in ``../shared/upstream/trainer-examples`` is compiled with a
representative TrainJob (an upstream example that uses it, or a minimal one), and every
JobSet and PodGroup trainc emits is validated against the real upstream CRDs in
``../shared/upstream/crds``: their structural schema (strict about unknown fields) and
their create-time CEL rules. This is independent of the schemas trainc generates for its
own output check.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.support.compiled import Compiled, compile_collected
from tests.support.documents import make_object
from trainc.emit.yamlout import dump_yaml
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonValue
from trainc.model.schematree import KindSchema
from trainc.schema.cel.rules import check_rules
from trainc.schema.defaults import apply_defaults, drop_nulls
from trainc.schema.structural import check_schema

#: TrainJob examples upstream itself rejects: their runtimes get a minimal TrainJob.
REJECTED_TRAINJOBS = {"05-multi-step.yaml"}

#: TrainJob examples trainc refuses by design. The Kueue example is created suspended for
#: Kueue's TrainJob integration; compiled into a JobSet in git, that suspend fights Kueue
#: (kueue.suspend-in-git, docs/kueue.md).
REFUSED_TRAINJOBS = {"03-kueue-integration.yaml"}

#: Runtime files upstream itself rejects (stale docs: see tests/test_conformance.py).
REJECTED_UPSTREAM = {
    "docs_operator-guides_job-scheduling_kai_1.yaml",
    "docs_operator-guides_runtime_1.yaml",
    "docs_operator-guides_runtime_3.yaml",
    "docs_user-guides_local-execution_overview_1.yaml",
    "docs_user-guides_pytorch-rocm_1.yaml",
}

#: Runtime snippets from upstream docs that are not whole runtimes: the API server would
#: refuse the Jobs of any JobSet built from them, with the finding pinned here.
FRAGMENTS = {
    # Shows only the shared-memory volume of the Megatron guide: its node container has no
    # image, so every Job of it is refused.
    "docs_user-guides_megatron_1.yaml": ["pod.image"],
}

CONFIG = """\
compile:
  mpi: {sshAuthSecret: mpi-ssh}
  flux: {curveSecret: flux-curve}
"""

UPSTREAM_CRDS = {
    ("jobset.x-k8s.io/v1alpha2", "JobSet"): "jobset.x-k8s.io_jobsets.yaml",
    ("scheduling.x-k8s.io/v1alpha1", "PodGroup"): "scheduling.x-k8s.io_podgroups.yaml",
    ("scheduling.volcano.sh/v1beta1", "PodGroup"): "scheduling.volcano.sh_podgroups.yaml",
}

_YAML = YAML(typ="safe", pure=False)


def _documents(path: Path) -> list[Any]:
    return [d for d in _YAML.load_all(path.read_text(encoding="utf-8")) if isinstance(d, dict)]


def _strict(node: JsonValue) -> JsonValue:
    """A CRD schema as a strict JSON Schema: unknown fields are errors, as with
    ``kubectl --validate=strict``, instead of being pruned."""
    if isinstance(node, dict):
        result = {key: _strict(value) for key, value in node.items()}
        if "properties" in result and "additionalProperties" not in result:
            result["additionalProperties"] = False
        return result
    if isinstance(node, list):
        return [_strict(item) for item in node]
    return node


@pytest.fixture(scope="module")
def upstream_schemas(shared_dir: Path) -> dict[tuple[str, str], KindSchema]:
    schemas = {}
    for (api_version, kind), name in UPSTREAM_CRDS.items():
        (crd,) = _documents(shared_dir / "upstream" / "crds" / name)
        version = crd["spec"]["versions"][0]
        root = _strict(copy.deepcopy(version["schema"]["openAPIV3Schema"]))
        assert isinstance(root, dict)
        schemas[api_version, kind] = KindSchema(kind=kind, document=root)
    return schemas


def _runtime_files(shared_dir: Path) -> list[Path]:
    examples = shared_dir / "upstream" / "trainer-examples"
    return sorted(
        path
        for path in examples.glob("*.yaml")
        if "v2.1.0_" not in path.name
        and path.name not in REJECTED_UPSTREAM
        and any(d.get("kind", "").endswith("TrainingRuntime") for d in _documents(path))
    )


def _trainjobs_for(runtime: Any, examples: Path) -> list[Any]:
    """Upstream TrainJobs that use ``runtime`` (none from files upstream rejects)."""
    found = []
    for path in sorted(examples.glob("*.yaml")):
        if "v2.1.0_" in path.name or path.name in REJECTED_TRAINJOBS | REFUSED_TRAINJOBS:
            continue
        for document in _documents(path):
            if document.get("kind") != "TrainJob":
                continue
            if (
                document.get("spec", {}).get("runtimeRef", {}).get("name")
                == runtime["metadata"]["name"]
            ):
                found.append(document)
    return found


def _minimal_trainjob(runtime: Any) -> Any:
    metadata: dict[str, str] = {"name": "representative"}
    if runtime["metadata"].get("namespace"):
        metadata["namespace"] = runtime["metadata"]["namespace"]
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": metadata,
        "spec": {
            "runtimeRef": {"kind": runtime["kind"], "name": runtime["metadata"]["name"]},
            "trainer": {"numNodes": 2},
        },
    }


def _compile(repo: Path, runtime_file: Path, examples: Path) -> Compiled:
    """A repository with the runtimes of ``runtime_file`` and TrainJobs that use them."""
    (repo / ".git").mkdir(parents=True)
    (repo / "trainc.yaml").write_text(CONFIG, encoding="utf-8")
    runtimes = [
        d for d in _documents(runtime_file) if d.get("kind", "").endswith("TrainingRuntime")
    ]
    (repo / "runtimes.yaml").write_text(dump_yaml(runtimes), encoding="utf-8")
    jobs: list[Any] = []
    for runtime in runtimes:
        jobs += _trainjobs_for(runtime, examples) or [_minimal_trainjob(runtime)]
    # Upstream examples reuse names (two `my-trainjob`s): keep one object per name.
    unique = {(j["metadata"].get("namespace"), j["metadata"]["name"]): j for j in jobs}
    (repo / "jobs.yaml").write_text(dump_yaml(list(unique.values())), encoding="utf-8")
    return compile_collected([], cwd=repo)


def _upstream_findings(obj: Any, schema: KindSchema) -> list[str]:
    cleaned = drop_nulls(obj)
    findings = [f"{f.code} {f.path}: {f.message}" for f in check_schema(cleaned, schema)]
    defaulted = apply_defaults(cleaned, schema)
    assert isinstance(defaulted, dict)
    wrapped = DefaultedObject(
        loaded=make_object(defaulted, "output.yaml"),
        data=defaulted,
        namespace=obj["metadata"].get("namespace"),
        schema_valid=not findings,
    )
    findings += [f"{d.code} {d.field_path}: {d.message}" for d in check_rules(wrapped, schema)]
    return findings


def test_every_upstream_runtime_compiles_into_objects_upstream_crds_accept(
    shared_dir: Path, tmp_path: Path, upstream_schemas: dict[tuple[str, str], KindSchema]
) -> None:
    examples = shared_dir / "upstream" / "trainer-examples"
    failures: dict[str, list[str]] = {}
    kinds_seen: set[tuple[str, str]] = set()
    for index, runtime_file in enumerate(_runtime_files(shared_dir)):
        report = _compile(tmp_path / str(index), runtime_file, examples)
        if runtime_file.name in FRAGMENTS:
            codes = [d.code for d in report.diagnostics if d.is_error]
            assert codes == FRAGMENTS[runtime_file.name], runtime_file.name
            continue
        errors = [
            f"{d.code} {d.file}:{d.line} {d.message}" for d in report.diagnostics if d.is_error
        ]
        if errors or not report.stream:
            failures[runtime_file.name] = errors or ["nothing was compiled"]
            continue
        for obj in (d for d in _YAML.load_all(report.stream) if isinstance(d, dict)):
            key = (obj["apiVersion"], obj["kind"])
            if key in upstream_schemas:
                kinds_seen.add(key)
                problems = _upstream_findings(obj, upstream_schemas[key])
                if problems:
                    failures[f"{runtime_file.name}: {obj['kind']}"] = problems
    assert failures == {}
    # The examples exercise the JobSet and, through Volcano, a PodGroup.
    assert ("jobset.x-k8s.io/v1alpha2", "JobSet") in kinds_seen
    assert ("scheduling.volcano.sh/v1beta1", "PodGroup") in kinds_seen


def test_the_coscheduling_podgroup_passes_the_upstream_crd(
    upstream_schemas: dict[tuple[str, str], KindSchema], tmp_path: Path
) -> None:
    runtime = tmp_path / "runtime.yaml"
    runtime.write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\n"
        "metadata: {name: gang}\nspec:\n  mlPolicy: {numNodes: 2, torch: {}}\n"
        "  podGroupPolicy: {coscheduling: {scheduleTimeoutSeconds: 30}}\n"
        "  template:\n    spec:\n      replicatedJobs:\n        - name: node\n"
        "          template:\n            metadata:\n              labels:\n"
        "                trainer.kubeflow.org/trainjob-ancestor-step: trainer\n"
        "            spec:\n              template:\n                spec:\n"
        "                  schedulerName: scheduler-plugins-scheduler\n"
        "                  containers:\n                    - name: node\n"
        "                      image: pytorch/pytorch:2.13.0\n"
        "                      resources: {requests: {cpu: 500m, memory: 1Gi}}\n",
        encoding="utf-8",
    )
    report = _compile(tmp_path / "repo", runtime, tmp_path)
    podgroups = [d for d in _YAML.load_all(report.stream) if d["kind"] == "PodGroup"]
    assert len(podgroups) == 1
    key = ("scheduling.x-k8s.io/v1alpha1", "PodGroup")
    assert _upstream_findings(podgroups[0], upstream_schemas[key]) == []
