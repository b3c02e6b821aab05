"""The JobSet webhook's checks that depend on the resolved counts of a TrainJob's JobSet.

The webhook rejects a JobSet whose ``replicas * parallelism`` overflows an int32 for some
replicatedJob (https://github.com/kubernetes-sigs/jobset/blob/main/pkg/webhooks/jobset_webhook.go);
parallelism is the pod count the TrainJob
resolves to, so the finding points at the line that set that count.
"""

from __future__ import annotations

from typing import Final

from trainc.checks.shared.locate import locate
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.model.json import as_list, as_object, get_path
from trainc.resolve.resolved import ResolvedJob

XOBJ_JOBSET_REPLICAS_PARALLELISM = Rule(
    "xobj.jobset-replicas-parallelism",
    Severity.ERROR,
    "replicas times parallelism overflows int32",
)


INT32_MAX: Final = 2**31 - 1


def check_replicas_parallelism(job: ResolvedJob) -> list[Diagnostic]:
    """Jobs times pods per Job must fit an int32 for every replicatedJob."""
    found = []
    for index, item in enumerate(as_list(job.jobset_spec.get("replicatedJobs"))):
        rjob = as_object(item)
        replicas = rjob.get("replicas", 1)
        parallelism = get_path(rjob, ("template", "spec", "parallelism"))
        if not isinstance(replicas, int) or not isinstance(parallelism, int):
            continue
        if replicas * parallelism <= INT32_MAX:
            continue
        path = ("replicatedJobs", index, "template", "spec", "parallelism")
        found.append(
            locate(
                job.origin(path),
                XOBJ_JOBSET_REPLICAS_PARALLELISM.code,
                f"the product of replicas and parallelism must not exceed {INT32_MAX} for "
                f"replicatedJob '{rjob.get('name')}': {replicas} replicas of {parallelism} pods",
                hint="lower replicas or parallelism",
            )
        )
    return found
