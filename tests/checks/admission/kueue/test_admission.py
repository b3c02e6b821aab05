"""Kueue's verdict on a whole JobSet, from the cluster's manifests."""

from __future__ import annotations

import pytest

from trainc.checks.admission.kueue import admit, cluster_from_objects
from trainc.model.json import JsonObject, JsonValue

GPU = "nvidia.com/gpu"


def jobset(
    queue: str | None = "user-queue", nodes: int = 4, resources: JsonObject | None = None
) -> JsonObject:
    """A TrainJob's JobSet: one replicatedJob of ``nodes`` pods asking for GPUs by limit."""
    labels: JsonObject = {} if queue is None else {"kueue.x-k8s.io/queue-name": queue}
    container: JsonObject = {
        "name": "node",
        "resources": resources
        if resources is not None
        else {"requests": {"cpu": "4", "memory": "16Gi"}, "limits": {GPU: 4}},
    }
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "train", "namespace": "ml", "labels": labels},
        "spec": {
            "replicatedJobs": [
                {
                    "name": "node",
                    "replicas": 1,
                    "template": {
                        "spec": {
                            "parallelism": nodes,
                            "completions": nodes,
                            "template": {"spec": {"containers": [container]}},
                        }
                    },
                }
            ]
        },
    }


def objects(version: str, gpus: str = "8", **queue_spec: JsonValue) -> list[JsonObject]:
    """A namespace, a LocalQueue, a ClusterQueue with one GPU flavor, the flavor."""
    api = f"kueue.x-k8s.io/{version}"
    return [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "ml", "labels": {"team": "ml"}},
        },
        {"apiVersion": api, "kind": "ResourceFlavor", "metadata": {"name": "a100"}, "spec": {}},
        {
            "apiVersion": api,
            "kind": "LocalQueue",
            "metadata": {"name": "user-queue", "namespace": "ml"},
            "spec": {"clusterQueue": "gpu"},
        },
        {
            "apiVersion": api,
            "kind": "ClusterQueue",
            "metadata": {"name": "gpu"},
            "spec": {
                "namespaceSelector": {"matchLabels": {"team": "ml"}},
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu", "memory", GPU],
                        "flavors": [
                            {
                                "name": "a100",
                                "resources": [
                                    {"name": "cpu", "nominalQuota": 256},
                                    {"name": "memory", "nominalQuota": "2Ti"},
                                    {"name": GPU, "nominalQuota": gpus},
                                ],
                            }
                        ],
                    }
                ],
                **queue_spec,
            },
        },
    ]


def test_no_queue_label_is_not_kueues() -> None:
    assert admit(jobset(queue=None), cluster_from_objects(objects("v1beta2"))) is None


@pytest.mark.parametrize("version", ["v1beta1", "v1beta2"])
def test_a_gpu_job_larger_than_the_quota(version: str) -> None:
    verdict = admit(jobset(), cluster_from_objects(objects(version)))
    assert verdict is not None
    assert not verdict.admissible
    assert verdict.message == (
        "couldn't assign flavors to pod set node: insufficient quota for nvidia.com/gpu in "
        "flavor a100, previously considered podsets requests (0) + current podset request "
        "(16) > maximum capacity (8)"
    )
    assert not verdict.blocks_queue


def test_a_job_that_fits() -> None:
    verdict = admit(jobset(nodes=2), cluster_from_objects(objects("v1beta2")))
    assert verdict is not None
    assert verdict.admissible
    assert verdict.message == ""


def test_strict_fifo_holds_up_the_queue() -> None:
    cluster = cluster_from_objects(objects("v1beta2", queueingStrategy="StrictFIFO"))
    verdict = admit(jobset(), cluster)
    assert verdict is not None
    assert verdict.blocks_queue


def test_a_missing_local_queue() -> None:
    verdict = admit(jobset(queue="nobody"), cluster_from_objects(objects("v1beta2")))
    assert verdict is not None
    assert verdict.message == "LocalQueue nobody doesn't exist"


def test_limit_range_defaults_count() -> None:
    """A LimitRange's default GPU limit becomes the request Kueue counts."""
    job = jobset(nodes=2, resources={"requests": {"cpu": "4"}})
    limit_range: JsonObject = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "defaults", "namespace": "ml"},
        "spec": {"limits": [{"type": "Container", "default": {GPU: 8}}]},
    }
    verdict = admit(job, cluster_from_objects([*objects("v1beta2"), limit_range]))
    assert verdict is not None
    assert "current podset request (16) > maximum capacity (8)" in verdict.message
