"""The Jobs the JobSet controller creates from a JobSet, as trainc constructs them."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from trainc.resolve.childjobs import (
    COORDINATOR_LABEL,
    EXCLUSIVE_KEY,
    JOB_GLOBAL_INDEX_LABEL,
    JOB_INDEX_LABEL,
    JOB_KEY_LABEL,
    NAMESPACED_JOB_KEY,
    NODE_SELECTOR_STRATEGY_KEY,
    ChildJob,
    child_jobs,
)


def _rjob(name: str, replicas: int = 1, **pod: Any) -> dict[str, Any]:
    return {
        "name": name,
        "replicas": replicas,
        "template": {
            "metadata": {"labels": {"team": "vision"}},
            "spec": {
                "completions": 2,
                "template": {"spec": {"containers": [{"name": "c", "image": "i"}], **pod}},
            },
        },
    }


def _tree(job: ChildJob) -> Any:
    """The Job as plain data, indexed freely."""
    return job.job


def _spec(*rjobs: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"replicatedJobs": list(rjobs), "network": {"enableDNSHostnames": True}, **fields}


def test_each_replicated_job_gives_its_last_job_with_the_controllers_labels() -> None:
    spec = _spec(_rjob("launcher"), _rjob("workers", replicas=3))

    launcher, workers = child_jobs("train", "ml", {}, spec)

    assert (launcher.name, workers.name) == ("train-launcher-0", "train-workers-2")
    labels = _tree(workers)["metadata"]["labels"]
    assert labels["team"] == "vision"
    assert labels["jobset.sigs.k8s.io/jobset-name"] == "train"
    assert labels["jobset.sigs.k8s.io/replicatedjob-name"] == "workers"
    assert labels["jobset.sigs.k8s.io/global-replicas"] == "4"
    assert (labels[JOB_INDEX_LABEL], labels[JOB_GLOBAL_INDEX_LABEL]) == ("2", "3")
    assert labels[JOB_KEY_LABEL] == hashlib.sha1(b"ml/train-workers-2").hexdigest()  # noqa: S324
    assert _tree(workers)["metadata"]["annotations"][JOB_INDEX_LABEL] == "2"
    pod = _tree(workers)["spec"]["template"]
    assert pod["metadata"]["labels"]["jobset.sigs.k8s.io/jobset-name"] == "train"
    assert pod["spec"]["subdomain"] == "train"
    assert _tree(workers)["spec"]["suspend"] is False
    assert _tree(workers)["spec"]["completions"] == 2


@pytest.mark.parametrize(("fields", "suspend"), [({}, False), ({"suspend": True}, True)])
def test_the_jobs_take_the_jobsets_suspend_absent_meaning_false(
    fields: dict[str, Any], suspend: bool
) -> None:
    # trainc writes spec.suspend only when true (docs/kueue.md).
    (job,) = child_jobs("train", "ml", {}, _spec(_rjob("node"), **fields))
    assert _tree(job)["spec"]["suspend"] is suspend
    assert job.added_by(("spec", "suspend")) == "suspend as the JobSet's"


def test_construction_leaves_the_jobset_spec_alone() -> None:
    spec = _spec(_rjob("node"))
    before = repr(spec)

    (job,) = child_jobs("train", "ml", {}, spec)
    _tree(job)["spec"]["template"]["spec"]["nodeSelector"] = {"x": "y"}

    assert repr(spec) == before


def test_paths_map_back_to_the_template_unless_construction_added_the_value() -> None:
    (job,) = child_jobs(
        "train",
        "ml",
        {},
        _spec(_rjob("a"), network={"enableDNSHostnames": True, "subdomain": "svc"}),
    )

    assert job.template_path(("spec", "template", "spec", "containers", 0, "image")) == (
        "replicatedJobs",
        0,
        "template",
        "spec",
        "template",
        "spec",
        "containers",
        0,
        "image",
    )
    assert job.template_path(("metadata", "labels", "team")) == (
        "replicatedJobs",
        0,
        "template",
        "metadata",
        "labels",
        "team",
    )
    assert job.template_path(("metadata", "labels", JOB_KEY_LABEL)) is None
    assert job.added_by(("spec", "template", "spec", "subdomain")) == (
        "the JobSet's headless Service as the pods' subdomain"
    )
    assert _tree(job)["spec"]["template"]["spec"]["subdomain"] == "svc"


def test_no_subdomain_without_dns_hostnames() -> None:
    spec: Any = {"replicatedJobs": [_rjob("a")], "network": {"enableDNSHostnames": False}}

    (job,) = child_jobs("train", "ml", {}, spec)

    assert "subdomain" not in _tree(job)["spec"]["template"]["spec"]


def test_a_coordinator_is_labelled_with_its_address() -> None:
    spec = _spec(_rjob("node"), coordinator={"replicatedJob": "node", "podIndex": 1})

    (job,) = child_jobs("train", "ml", {}, spec)

    assert _tree(job)["metadata"]["labels"][COORDINATOR_LABEL] == "train-node-0-1.train"


def test_exclusive_placement_by_node_selector_pins_the_job_and_tolerates_its_taint() -> None:
    metadata: Any = {"annotations": {EXCLUSIVE_KEY: "zone", NODE_SELECTOR_STRATEGY_KEY: "true"}}
    rjob = _rjob("node", tolerations=[{"key": "gpu", "operator": "Exists"}])

    (job,) = child_jobs("train", "ml", metadata, _spec(rjob))

    pod = _tree(job)["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {NAMESPACED_JOB_KEY: "ml_train-node-0"}
    assert pod["tolerations"][1]["key"] == "alpha.jobset.sigs.k8s.io/no-schedule"
    assert job.added_by(("spec", "template", "spec", "tolerations", 1, "key")) == (
        "exclusive placement's toleration"
    )
    assert job.added_by(("spec", "template", "spec", "tolerations", 0)) is None


def _claims(*names: str) -> list[dict[str, Any]]:
    """One volumeClaimPolicies entry with a template per name."""
    return [{"templates": [{"metadata": {"name": n}, "spec": {}} for n in names]}]


def _mounting(name: str, volume: str, *, key: str = "containers") -> dict[str, Any]:
    """A replicatedJob whose container (or init container) mounts ``volume``."""
    mounted = {"name": "c", "image": "i", "volumeMounts": [{"name": volume, "mountPath": "/w"}]}
    rjob = _rjob(name)
    pod = rjob["template"]["spec"]["template"]["spec"]
    pod[key] = [mounted]
    if key != "containers":
        pod["containers"] = [{"name": "main", "image": "i"}]
    return rjob


def test_a_job_mounting_a_claim_template_gets_its_claim_as_a_volume() -> None:
    # JobSet v0.12 constructJob -> addVolumes: volume named after the template, claim
    # <template>-<jobset>, only in the Jobs whose containers or init containers mount it.
    spec = _spec(
        _mounting("dataset-initializer", "initializer", key="initContainers"),
        _rjob("model-initializer"),
        _mounting("node", "initializer"),
        volumeClaimPolicies=_claims("initializer", "unused"),
    )

    dataset, model, node = child_jobs("tune", "research", {}, spec)

    volume = {"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer-tune"}}
    assert _tree(dataset)["spec"]["template"]["spec"]["volumes"] == [volume]
    assert _tree(node)["spec"]["template"]["spec"]["volumes"] == [volume]
    assert "volumes" not in _tree(model)["spec"]["template"]["spec"]
    assert node.added_by(("spec", "template", "spec", "volumes", 0, "name")) == (
        "the JobSet controller's volume for claim template 'initializer'"
    )
    assert node.template_path(("spec", "template", "spec", "volumes", 0)) is None


def test_claim_volumes_come_after_the_pods_own_volumes() -> None:
    rjob = _mounting("node", "initializer")
    rjob["template"]["spec"]["template"]["spec"]["volumes"] = [{"name": "tmp", "emptyDir": {}}]

    (job,) = child_jobs(
        "tune", "research", {}, _spec(rjob, volumeClaimPolicies=_claims("initializer"))
    )

    volumes = _tree(job)["spec"]["template"]["spec"]["volumes"]
    assert [v["name"] for v in volumes] == ["tmp", "initializer"]
    assert job.template_path(("spec", "template", "spec", "volumes", 0, "emptyDir")) is not None
    assert job.added_by(("spec", "template", "spec", "volumes", 1)) is not None


def test_a_pod_volume_named_like_a_template_is_not_doubled() -> None:
    # The webhook refuses this JobSet (xobj.volume-claim-volume-conflict): reported there once.
    rjob = _mounting("node", "initializer")
    own = {"name": "initializer", "emptyDir": {}}
    rjob["template"]["spec"]["template"]["spec"]["volumes"] = [own]

    (job,) = child_jobs(
        "tune", "research", {}, _spec(rjob, volumeClaimPolicies=_claims("initializer"))
    )

    assert _tree(job)["spec"]["template"]["spec"]["volumes"] == [own]
