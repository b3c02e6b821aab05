"""What both gang schedulers' PodGroups share: the gang's size and its resources.

Trainer's Coscheduling and Volcano plugins size a PodGroup alike
(``docs/upstream.md``, "PodGroups" under "Trainer: building the JobSet"): ``minMember`` is
the sum of every PodSet's pod
count (initializers and launcher included) after the framework plugins changed them
(:meth:`~trainc.resolve.resolved.ResolvedJob.pod_count`), and ``minResources`` the sum of
count times one pod's requests, in exact quantity arithmetic.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainc.model.json import JsonObject, as_list, as_object, get_path
from trainc.resolve.quantity import format_quantity, is_binary_quantity
from trainc.resolve.resolved import ResolvedJob
from trainc.resolve.resources import add_amounts, scale_amounts


def min_resources(job: ResolvedJob) -> JsonObject:
    """Sum of count times one pod's requests, per resource, as canonical quantity strings.

    apimachinery prints a sum in the format of the first quantity added to it; trainc
    takes the format of the first request written for the resource, in runtime order
    (containers, init containers, pod-level requests, overhead), which is the same
    whenever a resource is spelled in one style throughout: ``4Gi`` stays binary
    (``408Gi``), ``500m`` decimal (``1250m``).
    """
    totals = add_amounts(scale_amounts(p.requests, p.count) for p in job.pod_sets)
    binary = _binary_resources(job)
    return {
        name: format_quantity(totals[name], binary=binary.get(name, False))
        for name in sorted(totals)
    }


def _binary_resources(job: ResolvedJob) -> dict[str, bool]:
    """Whether the first request written for each resource uses a binary suffix."""
    first: dict[str, bool] = {}
    for requests in _request_lists(job):
        for name, value in requests.items():
            first.setdefault(name, is_binary_quantity(value))
    return first


def _request_lists(job: ResolvedJob) -> Iterator[JsonObject]:
    # The joined template: the one PodSet requests were computed from.
    for rjob in as_list(job.template.get("replicatedJobs")):
        pod = as_object(get_path(rjob, ("template", "spec", "template", "spec")))
        for key in ("containers", "initContainers"):
            for container in as_list(pod.get(key)):
                yield as_object(get_path(container, ("resources", "requests")))
        yield as_object(get_path(pod, ("resources", "requests")))
        yield as_object(pod.get("overhead"))
