"""``trainc cluster pull`` through the real ``kubernetes`` client against the stand-in API."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.cluster import write_kubeconfig
from tests.support.fakeapi import (
    ALL_RESOURCES,
    CLUSTER_OBJECTS,
    LIMIT_RANGES,
    POLICY_KINDS,
    FakeApiServer,
    Resource,
    kueue_resources,
)
from trainc.cli.main import main

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
EVERYTHING = (*ALL_RESOURCES, *CLUSTER_OBJECTS[:-1], *POLICY_KINDS, *kueue_resources("v1beta2"))


def namespace(name: str, **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name, **labels}},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def kueue(version: str) -> list[dict[str, Any]]:
    api_version = f"kueue.x-k8s.io/{version}"
    cohort_key = "cohortName" if version == "v1beta2" else "cohort"
    quota = {"name": "gpu", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 8}]}
    return [
        {"apiVersion": api_version, "kind": "ResourceFlavor", "metadata": {"name": "gpu"}},
        {
            "apiVersion": api_version,
            "kind": "ClusterQueue",
            "metadata": {"name": "research", "finalizers": ["kueue.x-k8s.io/resource-in-use"]},
            "spec": {
                cohort_key: "all",
                "namespaceSelector": {},
                "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [quota]}],
            },
            "status": {"admittedWorkloads": 3},
        },
        {
            "apiVersion": api_version,
            "kind": "LocalQueue",
            "metadata": {"name": "team", "namespace": "team-a"},
            "spec": {"clusterQueue": "research"},
        },
        {"apiVersion": api_version, "kind": "Cohort", "metadata": {"name": "all"}, "spec": {}},
        {
            "apiVersion": api_version,
            "kind": "WorkloadPriorityClass",
            "metadata": {"name": "urgent"},
            "value": 10000,
        },
    ]


POLICY = {
    "apiVersion": "admissionregistration.k8s.io/v1",
    "kind": "ValidatingAdmissionPolicy",
    "metadata": {"name": "registry"},
    "spec": {
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": [""],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE"],
                    "resources": ["pods"],
                }
            ]
        },
        "validations": [{"expression": "true"}],
    },
}


def binding(name: str, param_ref: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        "spec": {"policyName": "registry", "validationActions": ["Deny"], "paramRef": param_ref},
    }


def config_map(name: str, ns: str, **labels: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": ns, "labels": labels}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": name}}


def cluster_objects(kueue_version: str | None = "v1beta2") -> list[dict[str, Any]]:
    limit_range = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {
            "name": "limits",
            "namespace": "team-a",
            "annotations": {LAST_APPLIED: '{"kind":"LimitRange"}'},
            "managedFields": [{"manager": "kubectl", "operation": "Apply"}],
        },
        "spec": {"limits": [{"type": "Container", "max": {"cpu": "8"}}]},
    }
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "gpus", "namespace": "team-b"},
        "spec": {"hard": {"requests.nvidia.com/gpu": "4"}},
        "status": {"used": {"requests.nvidia.com/gpu": "2"}},
    }
    priority = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
    }
    return [
        namespace("team-a", **{"pod-security.kubernetes.io/enforce": "restricted"}),
        namespace("team-b"),
        namespace("platform"),
        limit_range,
        quota,
        priority,
        config_map("allowed-registries", "platform"),
        config_map("unrelated", "platform"),
        config_map("gpu-limits", "team-b", policy="registry"),
        config_map("defaults", "team-a"),
        config_map("defaults", "team-b"),
        *(kueue(kueue_version) if kueue_version else []),
    ]


def serve(resources: tuple[Resource, ...], objects: list[dict[str, Any]]) -> FakeApiServer:
    api = FakeApiServer(resources=resources)
    for obj in objects:
        api.put(obj)
    return api


@pytest.fixture
def api() -> Iterator[FakeApiServer]:
    objects = [
        *cluster_objects(),
        POLICY,
        binding("by-name", {"name": "allowed-registries", "namespace": "platform"}),
        binding("by-selector", {"selector": {"matchLabels": {"policy": "registry"}}}),
        # No namespace: the request's, so the name in every namespace pulled.
        binding("per-namespace", {"name": "defaults"}),
    ]
    with serve(EVERYTHING, objects) as server:
        yield server


def pull(
    tmp_path: Path, api_or_url: FakeApiServer | str, *args: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """``trainc cluster pull --kubeconfig FILE -o OUT ARGS``: exit code and stderr."""
    kubeconfig = tmp_path / "kubeconfig"
    if isinstance(api_or_url, str):
        kubeconfig.write_text(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
            f"clusters:\n- name: c\n  cluster: {{server: '{api_or_url}'}}\n"
            "users:\n- name: u\n  user: {}\n"
            "contexts:\n- name: c\n  context: {cluster: c, user: u}\n",
            encoding="utf-8",
        )
    else:
        write_kubeconfig(kubeconfig, api_or_url)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        main(
            ["cluster", "pull", "--kubeconfig", str(kubeconfig), "-o", str(tmp_path / "out"), *args]
        )
    code = exited.value.code
    return (code if isinstance(code, int) else 0), capsys.readouterr().err


def tree(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_a_full_pull(
    tmp_path: Path, api: FakeApiServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = pull(tmp_path, api, capsys=capsys)
    assert code == 0, err
    files = tree(tmp_path / "out")
    assert sorted(files) == [
        ".trainc-owned",
        "cluster/clusterqueues.kueue.x-k8s.io.yaml",
        "cluster/cohorts.kueue.x-k8s.io.yaml",
        "cluster/namespaces.yaml",
        "cluster/priorityclasses.scheduling.k8s.io.yaml",
        "cluster/resourceflavors.kueue.x-k8s.io.yaml",
        "cluster/validatingadmissionpolicies.admissionregistration.k8s.io.yaml",
        "cluster/validatingadmissionpolicybindings.admissionregistration.k8s.io.yaml",
        "cluster/workloadpriorityclasses.kueue.x-k8s.io.yaml",
        "namespaces/platform/configmaps.yaml",
        "namespaces/team-a/configmaps.yaml",
        "namespaces/team-a/limitranges.yaml",
        "namespaces/team-a/localqueues.kueue.x-k8s.io.yaml",
        "namespaces/team-b/configmaps.yaml",
        "namespaces/team-b/resourcequotas.yaml",
    ]
    assert files["namespaces/team-a/limitranges.yaml"] == (
        "apiVersion: v1\n"
        "kind: LimitRange\n"
        "metadata:\n"
        "  name: limits\n"
        "  namespace: team-a\n"
        "spec:\n"
        "  limits:\n"
        "  - max:\n"
        "      cpu: '8'\n"
        "    type: Container\n"
    )
    # The parameters the bindings name, by name and by selector; nothing else.
    assert "name: allowed-registries" in files["namespaces/platform/configmaps.yaml"]
    assert "unrelated" not in files["namespaces/platform/configmaps.yaml"]
    team_b = files["namespaces/team-b/configmaps.yaml"]
    assert "name: defaults" in team_b
    assert "name: gpu-limits" in team_b
    assert "name: defaults" in files["namespaces/team-a/configmaps.yaml"]
    queues = files["cluster/clusterqueues.kueue.x-k8s.io.yaml"]
    assert queues.startswith("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n")
    assert "finalizers" not in queues
    text = "".join(files.values())
    for server_set in ("uid:", "resourceVersion", "creationTimestamp", "managedFields", "status:"):
        assert server_set not in text
    assert LAST_APPLIED not in text
    assert "kubernetes.io/metadata.name: team-a" in files["cluster/namespaces.yaml"]
    assert {request.method for request in api.requests} == {"GET"}
    configmaps = [
        r for r in api.requests if r.path.endswith("/configmaps") or "/configmaps/" in r.path
    ]
    assert sorted(
        (r.path, r.query.get("fieldSelector", ""), r.query.get("labelSelector", ""))
        for r in configmaps
    ) == [
        ("/api/v1/configmaps", "", "policy=registry"),
        ("/api/v1/configmaps", "metadata.name=defaults", ""),
        ("/api/v1/namespaces/platform/configmaps/allowed-registries", "", ""),
    ]


def test_a_second_pull_writes_nothing(
    tmp_path: Path, api: FakeApiServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pull(tmp_path, api, capsys=capsys)[0] == 0
    out = tmp_path / "out"
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.rglob("*") if p.is_file()}
    inode = out.stat().st_ino
    code, err = pull(tmp_path, api, capsys=capsys)
    assert code == 0
    assert "is up to date" in err
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert out.stat().st_ino == inode


def test_check_exits_1_when_the_cluster_changed_and_writes_nothing(
    tmp_path: Path, api: FakeApiServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pull(tmp_path, api, capsys=capsys)[0] == 0
    assert pull(tmp_path, api, "--check", capsys=capsys)[0] == 0
    before = tree(tmp_path / "out")

    def raise_cpu(obj: dict[str, Any]) -> None:
        obj["spec"]["limits"][0]["max"]["cpu"] = "16"

    api.update(LIMIT_RANGES, "team-a", "limits", raise_cpu)
    api.remove(kueue_resources("v1beta2")[4], "", "urgent")
    code, err = pull(tmp_path, api, "--check", capsys=capsys)
    assert code == 1
    assert "stale namespaces/team-a/limitranges.yaml" in err
    assert "extra cluster/workloadpriorityclasses.kueue.x-k8s.io.yaml" in err
    assert tree(tmp_path / "out") == before
    assert pull(tmp_path, api, capsys=capsys)[0] == 0
    assert "cpu: '16'" in tree(tmp_path / "out")["namespaces/team-a/limitranges.yaml"]
    assert not (tmp_path / "out" / "cluster/workloadpriorityclasses.kueue.x-k8s.io.yaml").exists()


def test_a_forbidden_list_names_the_kind_and_verb_and_keeps_the_snapshot(
    tmp_path: Path, api: FakeApiServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert pull(tmp_path, api, capsys=capsys)[0] == 0
    before = tree(tmp_path / "out")
    api.fail("GET", "/api/v1/resourcequotas", status=403)
    code, err = pull(tmp_path, api, capsys=capsys)
    assert code == 1
    assert "list resourcequotas (ResourceQuota, v1) in all namespaces" in err
    assert 'needs the RBAC verb "list" on resource "resourcequotas"' in err
    assert tree(tmp_path / "out") == before


def test_an_unreachable_server_is_a_cluster_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    code, err = pull(tmp_path, f"http://127.0.0.1:{port}", capsys=capsys)
    assert code == 1
    assert "trainc: error: cannot discover the resources of admissionregistration.k8s.io/v1" in err
    assert "no answer" in err
    assert not (tmp_path / "out").exists()


def test_a_cluster_without_kueue_or_policies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    resources = (*ALL_RESOURCES, *CLUSTER_OBJECTS[:-1])
    with serve(resources, cluster_objects(kueue_version=None)) as api:
        code, err = pull(tmp_path, api, capsys=capsys)
    assert code == 0, err
    kueue_kinds = "ResourceFlavor, ClusterQueue, LocalQueue, Cohort, WorkloadPriorityClass"
    assert f"note: the cluster does not serve Kueue ({kueue_kinds}): skipped" in err
    assert "not serve ValidatingAdmissionPolicies (ValidatingAdmissionPolicy, " in err
    files = tree(tmp_path / "out")
    assert not [path for path in files if "kueue" in path or "admission" in path]
    assert "namespaces/platform/configmaps.yaml" not in files  # no binding names them


def test_a_kueue_serving_only_v1beta1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    resources = (*ALL_RESOURCES, *CLUSTER_OBJECTS[:-1], *kueue_resources("v1beta1"))
    with serve(resources, cluster_objects(kueue_version="v1beta1")) as api:
        code, err = pull(tmp_path, api, capsys=capsys)
    assert code == 0, err
    queues = tree(tmp_path / "out")["cluster/clusterqueues.kueue.x-k8s.io.yaml"]
    assert queues.startswith("apiVersion: kueue.x-k8s.io/v1beta1\n")
    assert "cohort: all" in queues


def test_namespaces_limit_what_is_read(
    tmp_path: Path, api: FakeApiServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = pull(tmp_path, api, "-n", "team-a", "--namespace", "platform", capsys=capsys)
    assert code == 0, err
    files = tree(tmp_path / "out")
    assert [p for p in files if p.startswith("namespaces/")] == [
        "namespaces/platform/configmaps.yaml",
        "namespaces/team-a/configmaps.yaml",
        "namespaces/team-a/limitranges.yaml",
        "namespaces/team-a/localqueues.kueue.x-k8s.io.yaml",
    ]
    assert "team-b" not in files["cluster/namespaces.yaml"]
    assert "name: platform" in files["cluster/namespaces.yaml"]
    paths = {request.path for request in api.requests}
    assert "/api/v1/namespaces/team-b/resourcequotas" not in paths
    assert "/api/v1/resourcequotas" not in paths


def test_parameters_in_a_named_namespace_are_read_outside_the_namespaces_pulled(
    tmp_path: Path, api: FakeApiServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = pull(tmp_path, api, "-n", "team-a", "-n", "gone", capsys=capsys)
    assert code == 0, err
    assert "note: the cluster has no namespace gone" in err
    files = tree(tmp_path / "out")
    assert "name: allowed-registries" in files["namespaces/platform/configmaps.yaml"]
    assert "unrelated" not in files["namespaces/platform/configmaps.yaml"]
    assert "namespaces/team-b/configmaps.yaml" not in files  # by selector: pulled namespaces


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["cluster", "pull", "--kubeconfig", str(tmp_path / "missing")])
    assert exited.value.code == 2
    with pytest.raises(SystemExit) as exited:
        main(["cluster", "pull", "--kubeconfig", str(tmp_path / "missing"), "-o", "out"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"--kubeconfig ({tmp_path / 'missing'}): the file does not exist" in err
