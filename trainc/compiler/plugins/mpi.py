"""The MPI hostfile ConfigMap ``<tj>-mpi-hostfile``: one ``<endpoint> slots=<n>`` per node pod.

Reproduces the ConfigMap Trainer's MPI plugin builds (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/mpi/mpi.go;
vectors T11, T12, T15 of ``docs/upstream.md``): every pod of ``node`` (and the launcher, when
it runs as a node)
in completion-index order, PodSets in runtime order, which makes it deterministic. The
pods' mounts and environment are resolution's (:mod:`trainc.resolve.plugins.mpi`).
"""

from __future__ import annotations

from trainc.compiler.objects import manifest
from trainc.model.json import JsonObject
from trainc.model.labels import LAUNCHER_JOB, NODE_JOB
from trainc.resolve.endpoints import endpoints
from trainc.resolve.plugins.mpi import HOSTFILE_KEY, hostfile_name, policy_of, slots
from trainc.resolve.resolved import ResolvedJob


def build(job: ResolvedJob) -> list[JsonObject]:
    """The hostfile ConfigMap; none unless the runtime is an MPI runtime."""
    policy = policy_of(job.runtime_spec)
    if policy is None:
        return []
    count = slots(job.spec, job.template, policy)
    launcher_is_node = policy.run_launcher_as_node is True
    lines = [
        f"{endpoint} slots={count}\n"
        for pod_set in job.pod_sets
        if pod_set.name == NODE_JOB or (launcher_is_node and pod_set.name == LAUNCHER_JOB)
        for endpoint in endpoints(job.name, job.jobset_spec, pod_set)
    ]
    return [
        manifest(
            "v1",
            "ConfigMap",
            hostfile_name(job.name),
            job.namespace,
            data={HOSTFILE_KEY: "".join(lines)},
        )
    ]
