"""The objects a TrainJob makes the cluster admit: its child Jobs' pods, placed on inputs."""

from __future__ import annotations

from tests.support.builders import make_runtime, make_trainjob, resolved
from trainc.checks.admission.cluster import ClusterObjects
from trainc.checks.admission.created import AdmissionInput
from trainc.checks.workload.version import parse_version
from trainc.resolve.provenance import Written


def test_each_replicated_job_gives_its_pods_with_counts_and_the_trainjobs_namespace() -> None:
    runtime = make_runtime()
    job = resolved(make_trainjob(trainer={"numNodes": 3}), runtime)
    found = AdmissionInput(job, ClusterObjects(), parse_version("1.33"))
    pods = found.pods
    assert [pod.replicated_job for pod in pods] == [
        child.replicated_job for child in found.child_jobs
    ]
    node = next(pod for pod in pods if pod.replicated_job == "node")
    assert node.metadata["namespace"] == job.namespace
    assert node.spec["containers"]
    assert node.count * node.jobs == 3
    assert node.described() == "the pods of replicatedJob 'node', created by the Job controller"


def test_a_pod_value_is_traced_to_the_input_line_that_wrote_it() -> None:
    job = resolved(make_trainjob(), make_runtime())
    pod = AdmissionInput(job, ClusterObjects(), parse_version("1.33")).pods[0]
    origin = pod.origin(("spec", "containers", 0, "image"))
    assert isinstance(origin, Written)
    assert origin.path[-1] == "image"
