"""The cluster's admission of one TrainJob's objects: every family, in the API server's order.

Mutating admission runs before validating admission, so LimitRanger's defaults are what
ResourceQuota and the policies see of a pod
(https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#which-plugins-are-enabled-by-default);
Kueue judges the workload once the JobSet exists. A family is one module with a
:data:`~trainc.checks.admission.created.AdmissionCheck` and one line here.
"""

from __future__ import annotations

from trainc.checks.admission.created import AdmissionCheck, AdmissionInput
from trainc.checks.admission.kueue.judge import check_kueue
from trainc.checks.admission.limit_ranges.judge import check_limit_ranges
from trainc.checks.admission.pod_security.judge import check_pod_security
from trainc.checks.admission.policies.judge import check_policies
from trainc.checks.admission.resource_quotas.judge import check_resource_quotas
from trainc.diagnostics import Diagnostic

ADMISSION_CHECKS: tuple[AdmissionCheck, ...] = (
    check_pod_security,
    check_limit_ranges,
    check_resource_quotas,
    check_policies,
    check_kueue,
)


def check_admission(found: AdmissionInput) -> list[Diagnostic]:
    """Every family's findings about one TrainJob's objects; none without a cluster."""
    if not found.cluster.configured:
        return []
    return [finding for check in ADMISSION_CHECKS for finding in check(found)]
