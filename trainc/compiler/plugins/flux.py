"""The Flux entrypoint ConfigMap ``<tj>-flux-entrypoint`` with ``entrypoint.sh`` and ``init.sh``.

The scripts (:mod:`trainc.compiler.fluxscripts`) start one Flux broker per ``node`` pod,
sized by the final pod count; the pods' wiring is resolution's
(:mod:`trainc.resolve.plugins.flux`, whose docstring lists the deviations from upstream).
"""

from __future__ import annotations

from trainc.compiler.fluxscripts import FluxCluster, entrypoint_script, hostlist, init_script
from trainc.compiler.objects import manifest
from trainc.model.json import JsonObject
from trainc.model.labels import NODE_JOB
from trainc.model.mlpolicy import FluxMLPolicySource
from trainc.resolve.endpoints import pod_hostnames, subdomain
from trainc.resolve.plugins.flux import config_map_name, flux_settings, policy_of
from trainc.resolve.resolved import ResolvedJob
from trainc.resolve.trainer import gpus_per_node, trainer_node


def build(job: ResolvedJob) -> list[JsonObject]:
    """The entrypoint ConfigMap; none unless the runtime is a Flux runtime."""
    policy = policy_of(job.runtime_spec)
    if policy is None:
        return []
    cluster = _cluster(job, policy)
    return [
        manifest(
            "v1",
            "ConfigMap",
            config_map_name(job.name),
            job.namespace,
            data={"entrypoint.sh": entrypoint_script(cluster), "init.sh": init_script(cluster)},
        )
    ]


def _cluster(job: ResolvedJob, policy: FluxMLPolicySource) -> FluxCluster:
    """The instance: one broker per ``node`` pod, sized by the final pod count."""
    node = next((pod_set for pod_set in job.pod_sets if pod_set.name == NODE_JOB), None)
    hostnames = pod_hostnames(job.name, node) if node is not None else []
    trainer = job.spec.trainer
    tasks = trainer.num_proc_per_node if trainer is not None else None
    settings = flux_settings(trainer_node(job.spec, job.pod_sets, job.jobset_spec))
    return FluxCluster(
        hosts=hostlist(hostnames),
        leader=hostnames[0] if hostnames else f"{job.name}-{NODE_JOB}-0-0",
        domain=f"{subdomain(job.name, job.jobset_spec)}.{job.namespace}.svc.cluster.local",
        network_device=settings["FLUX_NETWORK_DEVICE"],
        queue_policy=settings["FLUX_QUEUE_POLICY"],
        nodes=len(hostnames),
        tasks_per_node=tasks or policy.num_proc_per_node or 1,
        gpus_per_node=gpus_per_node(job.spec, job.template),
    )
