"""LimitRanger: the defaults and bounds a namespace's LimitRanges put on pods and claims.

The API server's LimitRanger admission plugin
(https://github.com/kubernetes/kubernetes/tree/v1.36.0/plugin/pkg/admission/limitranger)
first gives every container the default requests and limits it lacks, then refuses a pod
or claim whose amounts fall outside a LimitRange's ``min``/``max`` or whose limit exceeds
its request by more than ``maxLimitRequestRatio``. This package models both halves as pure
functions over the LimitRange manifests and the object's JSON, with the API server's own
refusal texts; the defaulted pod it returns is the one pod validation and quota then see.
Its rules have not changed across the releases trainc models (1.29 to 1.36).
"""

from __future__ import annotations

from trainc.checks.admission.limit_ranges.admission import (
    Decision,
    admit_claim,
    admit_pod,
    claim_errors,
    pod_errors,
)
from trainc.checks.admission.limit_ranges.defaults import (
    ANNOTATION,
    apply_defaults,
    container_defaults,
    default_requests_to_limits,
)
from trainc.checks.admission.limit_ranges.limit_range import (
    LimitRange,
    limit_range_from_json,
    ordered,
)

__all__ = [
    "ANNOTATION",
    "Decision",
    "LimitRange",
    "admit_claim",
    "admit_pod",
    "apply_defaults",
    "claim_errors",
    "container_defaults",
    "default_requests_to_limits",
    "limit_range_from_json",
    "ordered",
    "pod_errors",
]
