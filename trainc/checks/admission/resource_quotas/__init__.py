"""ResourceQuota admission: what a namespace's quotas do to the objects a TrainJob creates.

The API server's ResourceQuota plugin
(https://github.com/kubernetes/kubernetes/tree/v1.36.0/staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota)
charges each object it is asked to create to every quota of the namespace that selects
it, as Kubernetes' quota evaluators measure it
(https://github.com/kubernetes/kubernetes/tree/v1.36.0/pkg/quota/v1/evaluator/core), and
refuses it when a quota on cpu or memory finds a container that does not say how much it
needs, or when the object would take the namespace above a hard limit. This package models
that as pure functions over ResourceQuota manifests and the objects' JSON, with the API
server's own refusal texts, and adds what the plugin cannot see: a gang of pods that must
run at once and together exceed a quota. Current usage is unknown offline and taken as
zero (see :mod:`.admission`). The rules read two gates, pod-level resources and
VolumeAttributesClass, both on by default from 1.34.
"""

from __future__ import annotations

from trainc.checks.admission.resource_quotas.admission import Refusal, admit
from trainc.checks.admission.resource_quotas.evaluators import (
    Target,
    count_name,
    matches,
    missing,
    usage,
)
from trainc.checks.admission.resource_quotas.gang import Member, Shortfall, demand, shortfalls
from trainc.checks.admission.resource_quotas.quota import (
    Quota,
    Selector,
    ordered,
    quota_from_json,
)

__all__ = [
    "Member",
    "Quota",
    "Refusal",
    "Selector",
    "Shortfall",
    "Target",
    "admit",
    "count_name",
    "demand",
    "matches",
    "missing",
    "ordered",
    "quota_from_json",
    "shortfalls",
    "usage",
]
