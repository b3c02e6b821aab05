"""Reading the files of ``cluster.manifests``, and the cluster's objects among the inputs."""

from __future__ import annotations

from pathlib import Path

from tests.support.manifests import TORCH_RUNTIME, write
from trainc.config.limits import InputLimits
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.load.cluster_files import (
    ClusterFiles,
    cluster_documents,
    find_cluster_files,
    may_hold_cluster_object,
    param_kinds,
    read_cluster_file,
)
from trainc.load.inputs import load_inputs
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents

LIMITS = InputLimits()
NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ml\n"
POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
"""
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: limits, namespace: ml}\n"


def test_globs_select_files_and_name_the_globs_that_select_none(tmp_path: Path) -> None:
    write(tmp_path, "platform/ns.yaml", NAMESPACE)
    write(tmp_path, "platform/team/quota.yaml", NAMESPACE)
    write(tmp_path, "jobs/a.yaml", NAMESPACE)
    found = find_cluster_files(tmp_path, ("platform/**/*.yaml", "platfrom/*.yaml"))
    assert found.paths == ("platform/ns.yaml", "platform/team/quota.yaml")
    assert found.unmatched == ("platfrom/*.yaml",)


def test_without_globs_nothing_is_walked(tmp_path: Path) -> None:
    assert find_cluster_files(tmp_path / "absent", ()) == ClusterFiles((), ())


def test_a_file_that_is_also_an_input_is_read_once(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "namespaces.yaml", NAMESPACE)
    write(tmp_path, "platform/policy.yaml", POLICY)
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "params.yaml", CONFIG_MAP)
    config = RepoConfig(root=tmp_path, exclude=("platform/**",))
    inputs = load_inputs([tmp_path], config=config)
    assert "namespaces.yaml" in inputs.sources
    read: list[str] = []

    def reader(path: str) -> SourceFile | Diagnostic:
        read.append(path)
        return read_cluster_file(tmp_path, path, LIMITS)

    files = find_cluster_files(tmp_path, ("platform/*.yaml", "namespaces.yaml"))
    documents = cluster_documents(files, inputs=inputs.sources, read=reader, limits=LIMITS)
    # Only the manifest that is no input is read; the input's source is reused.
    assert read == ["platform/policy.yaml"]
    assert list(documents.sources) == ["platform/policy.yaml"]
    assert [d.source.path for d in documents.manifests] == [
        "namespaces.yaml",
        "platform/policy.yaml",
    ]
    # Among the other inputs: the policy's parameter kind, not the runtime.
    assert [d.source.path for d in documents.inputs] == ["params.yaml"]
    assert documents.diagnostics == ()


def test_the_parameters_of_a_policy_among_the_inputs_are_found_among_them(
    tmp_path: Path,
) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "policies/policy.yaml", POLICY)
    write(tmp_path, "params.yaml", CONFIG_MAP)
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    inputs = load_inputs([tmp_path], config=RepoConfig(root=tmp_path))

    def unread(path: str) -> SourceFile | Diagnostic:
        raise AssertionError(path)

    documents = cluster_documents(
        ClusterFiles((), ()), inputs=inputs.sources, read=unread, limits=LIMITS
    )
    # The policy is a cluster kind; its ConfigMap is found although no manifest names it.
    assert [d.source.path for d in documents.inputs] == ["params.yaml", "policies/policy.yaml"]


def test_templates_are_rendered_and_unreadable_or_broken_files_are_findings(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        "platform/ns.yaml.j2",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {{ team }}\n",
    )
    write(tmp_path, "platform/broken.yaml", "kind: Namespace\nmetadata: [\n")
    files = find_cluster_files(tmp_path, ("platform/*",))
    documents = cluster_documents(
        files,
        inputs={},
        read=lambda path: read_cluster_file(tmp_path, path, LIMITS, {"team": "vision"}),
        limits=LIMITS,
    )
    (rendered,) = documents.manifests
    assert rendered.data == {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "vision"},
    }
    assert [d.file for d in documents.diagnostics] == ["platform/broken.yaml"]
    assert all(d.is_error for d in documents.diagnostics)
    missing = read_cluster_file(tmp_path, "platform/gone.yaml", LIMITS)
    assert isinstance(missing, Diagnostic)


def test_only_files_naming_a_cluster_kind_are_parsed_again() -> None:
    assert may_hold_cluster_object(NAMESPACE)
    assert may_hold_cluster_object('{"kind": "LocalQueue"}')
    assert not may_hold_cluster_object(TORCH_RUNTIME)
    assert not may_hold_cluster_object(CONFIG_MAP)
    assert may_hold_cluster_object(CONFIG_MAP, ["ConfigMap"])
    assert not may_hold_cluster_object("kind: NamespaceList2\n")


def test_param_kinds_come_from_the_policies() -> None:
    source = SourceFile(path="p.yaml", text=POLICY)
    assert param_kinds(parse_documents(source, LIMITS).documents) == ("ConfigMap",)
