"""Stable DNS names of a JobSet's pods, as Trainer's JobSet plugin computes them.

Pod ``i`` of replicatedJob ``r`` is ``<tj>-<r>-0-<i>``, reachable as
``<tj>-<r>-0-<i>.<subdomain>`` through the JobSet's headless Service, whose name is
``spec.network.subdomain`` or else the JobSet's (``upstream-semantics.md`` §2.3, §4.8,
T15). The Job index is always 0: Trainer runs one Job per replicatedJob (§2.6). Names
follow the final pod counts, so callers read them in the build phase.
"""

from __future__ import annotations

from trainc.build.context import BuildContext, BuildPodSet
from trainc.model.json import get_path


def subdomain(context: BuildContext) -> str:
    """The headless Service's name: the JobSet's ``network.subdomain``, else the JobSet name."""
    custom = get_path(context.jobset_spec, ("network", "subdomain"))
    return custom if isinstance(custom, str) and custom else context.job.name


def pod_hostnames(context: BuildContext, pod_set: BuildPodSet) -> list[str]:
    """Hostnames of the PodSet's pods, in completion-index order."""
    return [f"{context.job.name}-{pod_set.name}-0-{index}" for index in range(pod_set.count)]


def endpoints(context: BuildContext, pod_set: BuildPodSet) -> list[str]:
    """Addresses of the PodSet's pods (``<hostname>.<subdomain>``), in completion-index order."""
    domain = subdomain(context)
    return [f"{hostname}.{domain}" for hostname in pod_hostnames(context, pod_set)]
