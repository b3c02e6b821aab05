"""The sweeper's I/O layer through the real ``kubernetes`` client against the fake API server."""

from __future__ import annotations

import os
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from kubernetes.config import incluster_config

from tests.support.cluster import (
    NS,
    TEST_LIMITS,
    FakeClock,
    at,
    condition,
    live_companion,
    live_job,
    live_jobset,
    sweep_client,
)
from tests.support.fakeapi import (
    ALL_RESOURCES,
    CONFIGMAPS,
    COSCHEDULING_PODGROUPS,
    EVENTS,
    JOBS,
    JOBSETS,
    PVCS,
    VOLCANO_PODGROUPS,
    FakeApiServer,
)
from trainc.errors import UsageError
from trainc.sweep import client as client_module
from trainc.sweep.calls import ApiError, BudgetExhausted, Conflict, SweepLimits
from trainc.sweep.client import connect
from trainc.sweep.model import Condition

SELECTOR = "app.kubernetes.io/managed-by=trainc"
JOBSET_PATH = f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{NS}/jobsets"
JOB_PATH = f"/apis/batch/v1/namespaces/{NS}/jobs"


def paths(api: FakeApiServer, method: str = "GET") -> list[str]:
    return [r.path for r in api.requests if r.method == method]


# --------------------------------------------------------------------------- reads


def test_snapshot_parses_what_the_controllers_wrote(api: FakeApiServer, clock: FakeClock) -> None:
    api.put(
        live_jobset(
            "llama",
            created=10,
            annotations={"trainc.dev/ttl-seconds-after-finished": "60"},
            conditions=[condition("Completed", "True", 500, "AllJobsCompleted")],
        )
    )
    api.put(live_job("llama", started=20, deadline=300, ready=2))
    retain = {"argocd.argoproj.io/sync-options": "Replace=true, Prune=false"}
    api.put(live_companion(PVCS, "llama-data", "llama", created=5, annotations=retain))
    api.put(live_companion(CONFIGMAPS, "llama-hostfile", "llama", created=5))
    api.put(live_companion(VOLCANO_PODGROUPS, "llama", "llama", created=5))

    snapshot = sweep_client(api, clock=clock).snapshot((NS,))

    (jobset,) = snapshot.jobsets
    assert (jobset.ref.kind, jobset.ref.api_version, jobset.ref.name) == (
        "JobSet",
        "jobset.x-k8s.io/v1alpha2",
        "llama",
    )
    assert jobset.created == at(10)
    assert jobset.created.tzinfo is UTC
    assert jobset.annotations["trainc.dev/ttl-seconds-after-finished"] == "60"
    assert jobset.conditions == (Condition("Completed", "True", "AllJobsCompleted", at(500)),)
    assert jobset.ref.uid == api.get(JOBSETS, NS, "llama")["metadata"]["uid"]  # type: ignore[index]
    (job,) = snapshot.jobs
    assert (job.ref.kind, job.ref.api_version) == ("Job", "batch/v1")  # list items omit both
    assert (job.jobset, job.start_time, job.active_deadline, job.ready) == ("llama", at(20), 300, 2)
    assert not job.finished
    kinds = {(c.ref.kind, c.ref.api_version): c for c in snapshot.companions}
    assert set(kinds) == {
        ("PersistentVolumeClaim", "v1"),
        ("ConfigMap", "v1"),
        ("PodGroup", "scheduling.volcano.sh/v1beta1"),
    }
    assert kinds["PersistentVolumeClaim", "v1"].retained
    assert not kinds["ConfigMap", "v1"].retained
    assert all(c.trainjob == "llama" and c.created == at(5) for c in snapshot.companions)


def test_a_finished_job_is_read_as_finished(api: FakeApiServer, clock: FakeClock) -> None:
    api.put(live_job("a", conditions=[condition("Failed", "True", 9, "DeadlineExceeded")]))
    (job,) = sweep_client(api, clock=clock).snapshot((NS,)).jobs
    assert job.finished


def test_only_objects_with_trainc_labels_are_considered(
    api: FakeApiServer, clock: FakeClock
) -> None:
    api.put(live_jobset("ours"))
    foreign = live_jobset("theirs")
    foreign["metadata"]["labels"] = {"app.kubernetes.io/managed-by": "kustomize"}
    api.put(foreign)
    stray_job = live_job("ours", "stray")
    del stray_job["metadata"]["labels"]["jobset.sigs.k8s.io/jobset-name"]  # not a child Job
    api.put(stray_job)
    sweeper_config = live_companion(CONFIGMAPS, "sweeper", "x")
    del sweeper_config["metadata"]["labels"]["trainer.kubeflow.org/trainjob-name"]
    api.put(sweeper_config)
    unlabelled = live_companion(PVCS, "claim", "x")
    unlabelled["metadata"]["labels"] = {}
    api.put(unlabelled)

    snapshot = sweep_client(api, clock=clock).snapshot((NS,))

    assert [j.ref.name for j in snapshot.jobsets] == ["ours"]
    assert snapshot.jobs == ()
    assert snapshot.companions == ()
    lists = [r for r in api.requests if r.method == "GET"]
    assert lists
    assert all(r.query["labelSelector"] == SELECTOR for r in lists)


def test_lists_are_paged_with_limit_and_continue(api: FakeApiServer, clock: FakeClock) -> None:
    for index in range(120):
        api.put(live_jobset(f"js-{index:03d}"))

    snapshot = sweep_client(api, clock=clock).snapshot((NS,))

    assert [j.ref.name for j in snapshot.jobsets] == [f"js-{i:03d}" for i in range(120)]
    pages = [r for r in api.requests if r.path == JOBSET_PATH]
    assert [r.query["limit"] for r in pages] == ["50", "50", "50"]
    assert "continue" not in pages[0].query
    assert all(page.query["continue"] for page in pages[1:])


def test_namespaces_are_listed_one_by_one_or_all_at_once(
    api: FakeApiServer, clock: FakeClock
) -> None:
    api.put(live_jobset("a", "team-a"))
    api.put(live_jobset("b", "team-b"))
    api.put(live_jobset("c", "team-c"))
    client = sweep_client(api, clock=clock)

    some = client.snapshot(("team-a", "team-b"))
    assert [(j.ref.namespace, j.ref.name) for j in some.jobsets] == [
        ("team-a", "a"),
        ("team-b", "b"),
    ]
    assert all("/namespaces/" in path for path in paths(api))
    api.clear_log()

    everything = client.snapshot(None)
    assert [j.ref.name for j in everything.jobsets] == ["a", "b", "c"]
    assert "/apis/jobset.x-k8s.io/v1alpha2/jobsets" in paths(api)
    assert "/api/v1/persistentvolumeclaims" in paths(api)
    assert not any("/namespaces/" in path for path in paths(api))


def test_a_podgroup_crd_that_is_not_installed_is_not_an_error(clock: FakeClock) -> None:
    installed = tuple(r for r in ALL_RESOURCES if r is not VOLCANO_PODGROUPS)
    with FakeApiServer(resources=installed) as api:
        api.put(live_companion(COSCHEDULING_PODGROUPS, "a", "a"))
        snapshot = sweep_client(api, clock=clock).snapshot(("team-a", "team-b"))
        assert [c.ref.api_version for c in snapshot.companions] == ["scheduling.x-k8s.io/v1alpha1"]
        volcano = [p for p in paths(api) if "volcano" in p]
        assert len(volcano) == 1  # the first 404 settles it for every namespace


def test_a_missing_jobset_crd_is_an_error(clock: FakeClock) -> None:
    installed = tuple(r for r in ALL_RESOURCES if r is not JOBSETS)
    with FakeApiServer(resources=installed) as api:
        with pytest.raises(ApiError, match="list jobsets") as caught:
            sweep_client(api, clock=clock).snapshot((NS,))
        assert caught.value.status == 404


def test_a_malformed_object_is_an_api_error(api: FakeApiServer, clock: FakeClock) -> None:
    api.put(live_jobset("a"))
    api.update(JOBSETS, NS, "a", lambda o: o["metadata"].update(creationTimestamp="yesterday"))
    with pytest.raises(ApiError, match="malformed JobSet 'a'"):
        sweep_client(api, clock=clock).snapshot((NS,))


def test_fresh_reads_return_none_for_gone_or_foreign_objects(
    api: FakeApiServer, clock: FakeClock
) -> None:
    api.put(live_jobset("a"))
    api.put(live_job("a"))
    api.put(live_job("b"))
    client = sweep_client(api, clock=clock)
    snapshot = client.snapshot((NS,))

    assert client.read_jobset(NS, "a") == snapshot.jobsets[0]
    assert client.read_jobset(NS, "gone") is None
    assert [j.ref.name for j in client.list_jobs(NS, "a")] == ["a-node-0"]
    assert api.requests[-1].query["labelSelector"] == f"{SELECTOR},jobset.sigs.k8s.io/jobset-name=a"
    api.update(JOBSETS, NS, "a", lambda o: o["metadata"]["labels"].clear())
    assert client.read_jobset(NS, "a") is None


# --------------------------------------------------------------------------- writes


def test_patch_is_a_merge_patch_with_the_resource_version(
    api: FakeApiServer, clock: FakeClock
) -> None:
    api.put(live_job("a", deadline=3600))
    client = sweep_client(api, clock=clock)
    (job,) = client.snapshot((NS,)).jobs

    assert client.set_active_deadline(job.ref, 42)

    live = api.get(JOBS, NS, job.ref.name)
    assert live is not None
    assert live["spec"]["activeDeadlineSeconds"] == 42
    patch = api.requests[-1]
    assert (patch.method, patch.content_type) == ("PATCH", "application/merge-patch+json")
    assert patch.body == {
        "metadata": {"resourceVersion": job.ref.resource_version},
        "spec": {"activeDeadlineSeconds": 42},
    }
    with pytest.raises(Conflict):  # the resourceVersion is stale now
        client.set_active_deadline(job.ref, 41)
    assert api.get(JOBS, NS, job.ref.name)["spec"]["activeDeadlineSeconds"] == 42  # type: ignore[index]


def test_delete_is_background_with_uid_and_resource_version_preconditions(
    api: FakeApiServer, clock: FakeClock
) -> None:
    api.put(live_job("a"))
    client = sweep_client(api, clock=clock)
    (job,) = client.snapshot((NS,)).jobs

    assert client.delete(job.ref)

    assert api.get(JOBS, NS, job.ref.name) is None
    delete = api.requests[-1]
    assert delete.method == "DELETE"
    assert delete.body["propagationPolicy"] == "Background"
    assert delete.body["preconditions"] == {
        "uid": job.ref.uid,
        "resourceVersion": job.ref.resource_version,
    }


def test_a_recreated_object_of_the_same_name_is_never_deleted(
    api: FakeApiServer, clock: FakeClock
) -> None:
    api.put(live_companion(PVCS, "data", "a"))
    client = sweep_client(api, clock=clock)
    (old,) = client.snapshot((NS,)).companions
    api.remove(PVCS, NS, "data")
    api.put(live_companion(PVCS, "data", "a"))

    with pytest.raises(Conflict, match="Precondition failed: uid"):
        client.delete(old.ref)

    assert api.get(PVCS, NS, "data") is not None
    assert len(paths(api, "DELETE")) == 1  # a conflict is not retried blindly


def test_a_write_to_a_gone_object_is_already_done(api: FakeApiServer, clock: FakeClock) -> None:
    api.put(live_job("a"))
    client = sweep_client(api, clock=clock)
    (job,) = client.snapshot((NS,)).jobs
    api.remove(JOBS, NS, job.ref.name)

    assert client.delete(job.ref) is False
    assert client.set_active_deadline(job.ref, 5) is False
    assert len(paths(api, "DELETE")) == len(paths(api, "PATCH")) == 1
    assert clock.sleeps == []


def test_an_event_on_the_jobset(api: FakeApiServer, clock: FakeClock) -> None:
    api.put(live_jobset("llama"))
    client = sweep_client(api, clock=clock)
    (jobset,) = client.snapshot((NS,)).jobsets

    client.record_event(
        jobset.ref, reason="DeadlineExceeded", message="x" * 2000, warning=True, now=at(7.25)
    )

    (event,) = api.all(EVENTS)
    assert event["metadata"]["generateName"] == "llama."
    assert event["metadata"]["name"].startswith("llama.")
    assert event["metadata"]["namespace"] == NS
    assert event["involvedObject"] == {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "namespace": NS,
        "name": "llama",
        "uid": jobset.ref.uid,
        "resourceVersion": jobset.ref.resource_version,
    }
    assert (event["reason"], event["type"], event["count"]) == ("DeadlineExceeded", "Warning", 1)
    assert event["source"] == {"component": "trainc-sweeper"}
    assert len(event["message"]) == 1024
    assert event["firstTimestamp"] == event["lastTimestamp"]
    assert event["firstTimestamp"].startswith("2025-03-01T12:00:07")


# --------------------------------------------------------------------------- faults


def test_server_errors_are_retried_with_a_deterministic_backoff(
    api: FakeApiServer, clock: FakeClock
) -> None:
    api.put(live_jobset("a"))
    api.fail("GET", JOBSET_PATH, status=500, times=2)
    client = sweep_client(api, clock=clock)

    assert [j.ref.name for j in client.snapshot((NS,)).jobsets] == ["a"]

    assert paths(api).count(JOBSET_PATH) == 3
    assert clock.sleeps == [0.5, 1.0]


def test_a_server_error_that_persists_fails_after_bounded_attempts(
    api: FakeApiServer, clock: FakeClock
) -> None:
    api.put(live_job("a"))
    client = sweep_client(api, clock=clock)
    (job,) = client.snapshot((NS,)).jobs
    api.fail("PATCH", f"{JOB_PATH}/{job.ref.name}", status=503)
    calls = client.calls

    with pytest.raises(ApiError, match=r"HTTP 503.*after 4 attempts") as caught:
        client.set_active_deadline(job.ref, 5)

    assert caught.value.status == 503
    assert client.calls - calls == TEST_LIMITS.attempts == len(paths(api, "PATCH"))
    assert clock.sleeps == [0.5, 1.0, 2.0]


def test_a_slow_answer_times_out_and_is_retried(api: FakeApiServer, clock: FakeClock) -> None:
    api.put(live_jobset("a"))
    api.slow("GET", f"{JOBSET_PATH}/a", seconds=1.5, times=1)
    client = sweep_client(api, clock=clock)

    assert client.read_jobset(NS, "a") is not None

    assert paths(api).count(f"{JOBSET_PATH}/a") == 2
    assert clock.sleeps == [0.5]


def test_no_answer_at_all_is_an_api_error_without_status(clock: FakeClock) -> None:
    with FakeApiServer() as api:
        client = sweep_client(api, clock=clock)
    with pytest.raises(ApiError, match="no answer") as caught:
        client.snapshot((NS,))
    assert caught.value.status is None
    assert client.calls == TEST_LIMITS.attempts


def test_throttling_is_retried_but_client_errors_are_not(
    api: FakeApiServer, clock: FakeClock
) -> None:
    api.fail("GET", JOBSET_PATH, status=429, times=1)
    client = sweep_client(api, clock=clock)
    client.snapshot((NS,))
    api.fail("GET", JOBSET_PATH, status=403)
    with pytest.raises(ApiError, match="HTTP 403") as caught:
        client.snapshot((NS,))
    assert caught.value.status == 403
    assert clock.sleeps == [0.5]


def test_the_call_budget_bounds_a_pass(api: FakeApiServer, clock: FakeClock) -> None:
    client = sweep_client(api, clock=clock, limits=SweepLimits(max_calls=3))
    with pytest.raises(BudgetExhausted, match="call budget of 3"):
        client.snapshot((NS,))  # six lists
    assert client.calls == 3 == len(api.requests)
    client.start_pass()
    with pytest.raises(BudgetExhausted):
        client.snapshot((NS,))
    assert len(api.requests) == 6


def test_the_time_budget_bounds_a_pass(api: FakeApiServer, clock: FakeClock) -> None:
    api.fail("GET", JOBSET_PATH, status=500)
    limits = SweepLimits(max_seconds=2.0, first_backoff=0.5, request_timeout=0.5)
    client = sweep_client(api, clock=clock, limits=limits)
    with pytest.raises(BudgetExhausted, match="time budget of 2s"):
        client.snapshot((NS,))
    assert clock.sleeps == [0.5, 1.0]  # the next wait (2s) would overrun the budget
    clock.now += 10
    with pytest.raises(BudgetExhausted):
        client.read_jobset(NS, "a")
    client.start_pass()
    assert client.read_jobset(NS, "a") is None


# --------------------------------------------------------------------------- configuration


@pytest.fixture
def no_cluster(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No $KUBECONFIG, an empty home and not a pod: every source kubectl reads is absent."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(home))
    for variable in ("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(incluster_config, "SERVICE_TOKEN_FILENAME", str(tmp_path / "no-token"))
    return home


@pytest.fixture
def in_a_pod(no_cluster: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The kubelet's service variables and a token file, as in the sweeper's pod."""
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    token = tmp_path / "token"
    token.write_text("sa-token", encoding="utf-8")
    monkeypatch.setattr(incluster_config, "SERVICE_TOKEN_FILENAME", str(token))
    monkeypatch.setattr(incluster_config, "SERVICE_CERT_FILENAME", str(tmp_path / "no-ca.crt"))
    return tmp_path


def test_without_a_cluster_configuration_it_is_a_usage_error(
    no_cluster: Path, tmp_path: Path
) -> None:
    with pytest.raises(UsageError, match=r"~/.kube/config \(.*\): no kubeconfig file exists"):
        connect(kubeconfig=None, context=None, limits=TEST_LIMITS)
    with pytest.raises(UsageError, match=r"--kubeconfig \(.*missing\): the file does not exist"):
        connect(kubeconfig=tmp_path / "missing", context=None, limits=TEST_LIMITS)
    broken = tmp_path / "broken"
    broken.write_text("clusters: [\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"broken\): while parsing"):
        connect(kubeconfig=broken, context=None, limits=TEST_LIMITS)
    with pytest.raises(UsageError, match="no kubeconfig file exists to select context 'prod'"):
        connect(kubeconfig=None, context="prod", limits=TEST_LIMITS)


def kubeconfig_file(path: Path, current: str | None, clusters: dict[str, str]) -> Path:
    """A kubeconfig with one context per cluster (named alike) and ``current`` selected."""
    text = "apiVersion: v1\nkind: Config\n"
    text += f"current-context: {current}\n" if current else ""
    text += "clusters:\n" + "".join(
        f"- name: {name}\n  cluster: {{server: '{url}'}}\n" for name, url in clusters.items()
    )
    text += "users:\n- name: me\n  user: {}\ncontexts:\n" + "".join(
        f"- name: {name}\n  context: {{cluster: {name}, user: me}}\n" for name in clusters
    )
    path.write_text(text, encoding="utf-8")
    return path


NOWHERE = "http://127.0.0.1:9"


def chosen(monkeypatch: pytest.MonkeyPatch, context: str | None = None) -> Any:
    """The client configuration :func:`connect` settles on, without building a client."""
    monkeypatch.setattr(client_module, "SweepClient", lambda configuration, limits: configuration)
    return connect(kubeconfig=None, context=context, limits=TEST_LIMITS)


def test_kubeconfig_variable_is_a_list_merged_as_kubectl_merges(
    api: FakeApiServer, no_cluster: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The first file to set current-context or define a cluster wins; missing files and
    # empty entries are skipped; ~/.kube/config is not read when $KUBECONFIG is set.
    first = kubeconfig_file(tmp_path / "team", "fake", {"fake": api.url})
    second = kubeconfig_file(tmp_path / "other", "other", {"fake": NOWHERE, "other": NOWHERE})
    (no_cluster / ".kube").mkdir()
    kubeconfig_file(no_cluster / ".kube" / "config", "other", {"other": NOWHERE})
    listed = os.pathsep.join([str(tmp_path / "missing"), "", str(first), str(second)])
    monkeypatch.setenv("KUBECONFIG", listed)
    api.put(live_jobset("a"))

    client = connect(kubeconfig=None, context=None, limits=TEST_LIMITS)

    assert [j.ref.name for j in client.snapshot((NS,)).jobsets] == ["a"]
    # A context only the second file defines is there too, as kubectl's merge has it.
    assert chosen(monkeypatch, context="other").host == NOWHERE
    with pytest.raises(UsageError, match="third"):
        connect(kubeconfig=None, context="third", limits=TEST_LIMITS)


def test_home_kubeconfig_is_read_without_the_variable(api: FakeApiServer, no_cluster: Path) -> None:
    (no_cluster / ".kube").mkdir()
    kubeconfig_file(no_cluster / ".kube" / "config", "fake", {"fake": api.url})
    api.put(live_jobset("a"))

    client = connect(kubeconfig=None, context=None, limits=TEST_LIMITS)

    assert [j.ref.name for j in client.snapshot((NS,)).jobsets] == ["a"]


def test_a_kubeconfig_file_wins_over_the_pods_service_account(
    api: FakeApiServer, in_a_pod: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "KUBECONFIG", str(kubeconfig_file(in_a_pod / "kc", "fake", {"fake": api.url}))
    )
    api.put(live_jobset("a"))

    client = connect(kubeconfig=None, context=None, limits=TEST_LIMITS)

    assert [j.ref.name for j in client.snapshot((NS,)).jobsets] == ["a"]


def test_in_a_pod_without_kubeconfig_the_service_account_is_used(
    in_a_pod: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No file: the in-cluster configuration is tried (here its CA file is missing, which
    # names the source); with the CA present, it is what the client is built from.
    with pytest.raises(UsageError, match=r"from the in-cluster configuration: .*cert"):
        connect(kubeconfig=None, context=None, limits=TEST_LIMITS)
    # A kubeconfig that selects no context falls back to the pod's account as well.
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig_file(in_a_pod / "kc", None, {"x": NOWHERE})))
    with pytest.raises(UsageError, match="from the in-cluster configuration"):
        connect(kubeconfig=None, context=None, limits=TEST_LIMITS)
    ca = in_a_pod / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\n", encoding="utf-8")
    monkeypatch.setattr(incluster_config, "SERVICE_CERT_FILENAME", str(ca))
    configuration = chosen(monkeypatch)
    assert configuration.host == "https://10.0.0.1:443"
    # The key's name differs between client releases; the token is the pod's.
    assert [key.split()[-1] for key in configuration.api_key.values()] == ["sa-token"]


def test_a_kubeconfig_and_context_select_the_cluster(api: FakeApiServer, tmp_path: Path) -> None:
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: other\n"
        f"clusters:\n- name: fake\n  cluster: {{server: '{api.url}'}}\n"
        "- name: nowhere\n  cluster: {server: 'http://127.0.0.1:9'}\n"
        "users:\n- name: me\n  user: {}\n"
        "contexts:\n- name: fake\n  context: {cluster: fake, user: me}\n"
        "- name: other\n  context: {cluster: nowhere, user: me}\n",
        encoding="utf-8",
    )
    api.put(live_jobset("a"))
    client = connect(kubeconfig=kubeconfig, context="fake", limits=TEST_LIMITS)
    assert [j.ref.name for j in client.snapshot((NS,)).jobsets] == ["a"]
    with pytest.raises(UsageError, match="no-such-context"):
        connect(kubeconfig=kubeconfig, context="no-such-context", limits=TEST_LIMITS)
