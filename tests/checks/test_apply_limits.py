"""The sizes the apply path refuses: annotations with kubectl's copy, etcd's request, ConfigMaps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.builders import make_runtime, make_trainjob, resolved
from tests.support.compiled import compile_collected
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.app import validate_paths
from trainc.checks.apply_limits import (
    CONFIG_MAP_MAX_BYTES,
    LAST_APPLIED,
    OBJECT_MAX_BYTES,
    check_apply_limits,
    last_applied,
)
from trainc.model.json import JsonObject
from trainc.schema.metadata import ANNOTATIONS_MAX_BYTES

#: The runtime's container gets ``command: [python, -c, <script>]`` on these lines.
SCRIPT_LINE = TORCH_RUNTIME.count("\n") + 4


def _with_script(size: int) -> str:
    """The torch runtime whose container runs an inline script of ``size`` bytes."""
    script = "x" * size
    return TORCH_RUNTIME + (
        "                      command:\n"
        "                        - python\n"
        "                        - -c\n"
        f"                        - {script}\n"
    )


def _repo(tmp_path: Path, script: int, *, server_side: bool = False) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", _with_script(script))
    write(tmp_path, "job.yaml", trainjob_yaml("llm"))
    if server_side:
        write(
            tmp_path,
            "trainc.yaml",
            "apiVersion: trainc.dev/v1alpha1\nkind: Config\ncompile:\n  apply: ServerSide\n",
        )
    return tmp_path


# --------------------------------------------------------------------------- kubectl's copy


def test_the_copy_is_gos_json_of_the_object_with_an_empty_annotation_map() -> None:
    config_map: JsonObject = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "x", "namespace": "y"},
        "data": {"b": "<&>", "a": "é\u2028"},
    }

    assert last_applied(config_map) == (
        '{"apiVersion":"v1","data":{"a":"é\\u2028","b":"\\u003c\\u0026\\u003e"},'
        '"kind":"ConfigMap","metadata":{"annotations":{},"name":"x","namespace":"y"}}\n'
    )


def test_the_copy_leaves_out_a_previous_copy() -> None:
    obj: JsonObject = {"kind": "ConfigMap", "metadata": {"annotations": {LAST_APPLIED: "{}"}}}

    assert json.loads(last_applied(obj))["metadata"] == {"annotations": {}}


# --------------------------------------------------------------------------- validate and compile


def test_a_jobset_over_the_annotation_limit_with_its_copy_is_an_error(tmp_path: Path) -> None:
    root = _repo(tmp_path, ANNOTATIONS_MAX_BYTES)

    report = validate_paths([], cwd=root)

    (finding,) = report.diagnostics
    assert (finding.code, finding.file, finding.line) == (
        "apply.last-applied-too-large",
        "runtime.yaml",
        SCRIPT_LINE,
    )
    assert finding.message.startswith(
        "the JobSet default/llm trainc compiles: with client-side apply its annotations "
        "would total "
    )
    assert finding.message.endswith(
        "metadata.annotations: Too long: the API server accepts at most 262,144"
    )
    assert finding.hint is not None
    assert "ServerSideApply=true" in finding.hint
    assert "spec.replicatedJobs[0].template.spec.template.spec.containers[0].command[2]" in (
        finding.hint
    )


def test_compile_gives_the_same_verdict_and_writes_nothing(tmp_path: Path) -> None:
    root = _repo(tmp_path, ANNOTATIONS_MAX_BYTES)

    compiled = compile_collected([], cwd=root)

    assert [d.code for d in compiled.diagnostics] == ["apply.last-applied-too-large"]
    assert compiled.exit_code == 1
    assert compiled.jobs == ()


def test_near_the_limit_is_a_warning_and_compile_still_writes(tmp_path: Path) -> None:
    root = _repo(tmp_path, int(ANNOTATIONS_MAX_BYTES * 0.93))

    compiled = compile_collected([], cwd=root)

    assert [(d.code, d.severity.value) for d in compiled.diagnostics] == [
        ("apply.last-applied-near-limit", "warning")
    ]
    assert compiled.exit_code == 0
    assert len(compiled.jobs) == 1


def test_server_side_apply_keeps_no_copy(tmp_path: Path) -> None:
    root = _repo(tmp_path, ANNOTATIONS_MAX_BYTES, server_side=True)

    assert validate_paths([], cwd=root).diagnostics == ()


def test_server_side_an_object_over_etcds_limit_is_an_error(tmp_path: Path) -> None:
    root = _repo(tmp_path, OBJECT_MAX_BYTES, server_side=True)

    (finding,) = validate_paths([], cwd=root).diagnostics

    assert (finding.code, finding.line) == ("apply.object-too-large", SCRIPT_LINE)
    assert "etcd accepts requests of at most 1,572,864 bytes" in finding.message


def test_server_side_near_etcds_limit_is_a_warning(tmp_path: Path) -> None:
    root = _repo(tmp_path, int(OBJECT_MAX_BYTES * 0.95), server_side=True)

    assert [d.code for d in validate_paths([], cwd=root).diagnostics] == ["apply.object-near-limit"]


def test_a_small_job_is_far_from_every_limit(tmp_path: Path) -> None:
    assert validate_paths([], cwd=_repo(tmp_path, 1000)).diagnostics == ()


# --------------------------------------------------------------------------- every object


def _config_map(size: int, annotations: JsonObject | None = None) -> JsonObject:
    metadata: JsonObject = {"name": "job-mpi-hostfile", "namespace": "default"}
    if annotations is not None:
        metadata["annotations"] = annotations
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata,
        "data": {"f": "h" * size},
    }


def test_a_config_map_over_one_mebibyte_is_an_error_at_the_trainjob() -> None:
    job = resolved(make_trainjob(), make_runtime())

    findings = check_apply_limits(job, [_config_map(CONFIG_MAP_MAX_BYTES + 1)], server_side=True)

    assert [(f.code, f.file, f.field_path) for f in findings] == [
        ("apply.config-map-too-large", "trainjob.yaml", "metadata.name")
    ]
    assert findings[0].message == (
        "the ConfigMap default/job-mpi-hostfile trainc compiles: its data totals 1,048,577 "
        "bytes: Too long: the API server accepts at most 1,048,576"
    )


@pytest.mark.parametrize("server_side", [True, False])
def test_own_annotations_over_the_limit_are_the_metadata_rule(server_side: bool) -> None:
    job = resolved(make_trainjob(), make_runtime())
    big = _config_map(10, {"example.com/notes": "n" * ANNOTATIONS_MAX_BYTES})

    codes = [f.code for f in check_apply_limits(job, [big], server_side=server_side)]

    assert codes == ["meta.annotations-too-large"]
