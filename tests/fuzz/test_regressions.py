"""The inputs fuzzing found trainc failing on, shrunk, each at the layer that failed."""

from __future__ import annotations

from pathlib import Path

from tests.fuzz.harness import assert_located
from tests.load.files import write
from tests.support.compiled import compile_collected
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml
from trainc.app import validate_paths
from trainc.config.limits import InputLimits
from trainc.load.source import SourceFile
from trainc.load.template import render_template
from trainc.load.yamlsrc import parse_documents
from trainc.model.schematree import load_kind_schema
from trainc.schema.structural import check_schema

#: The one runtime whose replicated job is named by a mapping, as the fuzzer wrote it.
RUNTIME_WITH_MAPPING_NAME = TORCH_RUNTIME.replace("- name: node", "- name: {a: {}}", 1)
TRAINJOB = trainjob_yaml()


def test_a_mapping_as_list_map_key_is_a_type_error_not_a_crash() -> None:
    """replicatedJobs items are keyed by name; a name that is a mapping identifies nothing."""
    data = parse_documents(
        SourceFile(path="runtime.yaml", text=RUNTIME_WITH_MAPPING_NAME), InputLimits()
    ).documents[0]
    findings = check_schema(data.data, load_kind_schema("ClusterTrainingRuntime"))
    assert [(f.code, f.path) for f in findings] == [
        ("schema.type", ("spec", "template", "spec", "replicatedJobs", 0, "name"))
    ]


def test_a_value_printed_like_a_line_marker_points_at_no_line_beyond_the_template() -> None:
    """The renderer marks template lines with NUL-delimited numbers; a template can print one."""
    template = "kind: TrainJob\n{{ '\\x0099999\\x00spec' }}: [\n{{ '\\x000\\x00x' }}\n"
    rendered = render_template("job.yaml.j2", template, {}, InputLimits())
    assert isinstance(rendered, SourceFile)
    assert rendered.line_map is not None
    assert set(rendered.line_map) <= {1, 2, 3, 4}


def test_surrogate_escapes_are_a_syntax_error_at_their_line(tmp_path: Path) -> None:
    """ruamel decodes ``"\\ud800"`` to a surrogate, which the schema validator cannot encode."""
    text = (
        "apiVersion: trainer.kubeflow.org/v1alpha1\n"
        "kind: TrainJob\n"
        "metadata:\n"
        "  name: job\n"
        "spec:\n"
        "  runtimeRef: {name: torch}\n"
        '  trainer: {args: ["\\ud83d\\ude00"], "\\udc00": 1}\n'
    )
    parsed = parse_documents(SourceFile(path="job.yaml", text=text), InputLimits())
    assert [(d.code, d.line) for d in parsed.diagnostics] == [
        ("load.syntax", 7),
        ("load.syntax", 7),
    ]
    assert parsed.documents[0].data["spec"]["trainer"] == {  # type: ignore[index, call-overload]
        "args": ["\ufffd\ufffd"],
        "\ufffd": 1,
    }
    write(tmp_path, "job.yaml", text)
    (tmp_path / ".git").mkdir()
    report = validate_paths([], cwd=tmp_path)
    assert_located(report.diagnostics, {"job.yaml": text})
    assert {d.code for d in report.diagnostics if d.is_error} >= {"load.syntax"}


def test_a_replicated_job_without_containers_is_a_compile_error_not_a_compiler_bug(
    tmp_path: Path,
) -> None:
    """The JobSet webhook's defaults give it a pod spec, which needs containers."""
    jobs = TORCH_RUNTIME[: TORCH_RUNTIME.index("        - name:")]
    write(tmp_path, "runtime.yaml", jobs + "        - name: node\n          template: {}\n")
    write(tmp_path, "job.yaml", TRAINJOB)
    (tmp_path / ".git").mkdir()
    report = compile_collected([], cwd=tmp_path)
    assert [(d.code, d.file, d.line) for d in report.diagnostics] == [
        ("compile.no-containers", "runtime.yaml", 14)
    ]
    assert report.jobs == ()


def test_a_named_trainjob_whose_runtime_name_is_no_string_gets_findings(
    tmp_path: Path,
) -> None:
    """Validating named files looks up the runtimes their TrainJobs name, by that name."""
    job = TRAINJOB.replace("name: torch", "name: {a: b}")
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "job.yaml", job)
    (tmp_path / ".git").mkdir()
    report = validate_paths([tmp_path / "job.yaml"], cwd=tmp_path)
    assert [(d.code, d.file, d.line, d.field_path) for d in report.diagnostics] == [
        ("xobj.runtime-not-found", "job.yaml", 6, "spec.runtimeRef"),
        ("schema.type", "job.yaml", 7, "spec.runtimeRef.name"),
    ]


def test_a_trainjob_on_a_runtime_with_an_unnamed_claim_template_is_a_finding(
    tmp_path: Path,
) -> None:
    """Found by the 20,000-input run after validation began resolving every TrainJob
    (its policies read the result), also one whose runtime has a cross-object error, and
    resolving took the unnamed template for a trainc bug."""
    claims = (
        "      volumeClaimPolicies:\n"
        "        - templates:\n"
        "            - spec: {accessModes: [ReadWriteMany]}\n"
    )
    runtime = TORCH_RUNTIME.replace(
        "      replicatedJobs:\n", claims + "      replicatedJobs:\n", 1
    )
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", runtime)
    write(tmp_path, "job.yaml", TRAINJOB)

    report = compile_collected([], cwd=tmp_path)

    assert "xobj.volume-claim-name" in {d.code for d in report.diagnostics}
    assert report.jobs == ()
