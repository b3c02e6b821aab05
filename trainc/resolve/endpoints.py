"""Stable DNS names of a JobSet's pods, as Trainer's JobSet plugin computes them.

Pod ``i`` of replicatedJob ``r`` is ``<tj>-<r>-0-<i>``, reachable as
``<tj>-<r>-0-<i>.<subdomain>`` through the JobSet's headless Service, whose name is
``spec.network.subdomain`` or else the JobSet's (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/jobset/jobset.go;
vector T15 of ``docs/upstream.md``). The Job index is always 0: Trainer runs one Job per
replicatedJob (``docs/upstream.md``, "Naming"). Names
follow the final pod counts of a resolved job.
"""

from __future__ import annotations

from trainc.model.json import JsonObject, get_path
from trainc.resolve.resolved import PodSet


def subdomain(name: str, jobset_spec: JsonObject) -> str:
    """The headless Service's name: the JobSet's ``network.subdomain``, else its name.

    This is the JobSet controller's ``GetSubdomain``, the pods' ``spec.subdomain``.
    """
    custom = get_path(jobset_spec, ("network", "subdomain"))
    return custom if isinstance(custom, str) and custom else name


def pod_hostnames(name: str, pod_set: PodSet) -> list[str]:
    """Hostnames of the PodSet's pods, in completion-index order."""
    return [f"{name}-{pod_set.name}-0-{index}" for index in range(pod_set.count)]


def endpoints(name: str, jobset_spec: JsonObject, pod_set: PodSet) -> list[str]:
    """Addresses of the PodSet's pods (``<hostname>.<subdomain>``), in completion-index order."""
    domain = subdomain(name, jobset_spec)
    return [f"{hostname}.{domain}" for hostname in pod_hostnames(name, pod_set)]
