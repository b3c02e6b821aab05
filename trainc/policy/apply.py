"""Organisation policies, the public entry points: load them once, check every object.

Policies are ValidatingAdmissionPolicy-shaped CEL checks (``trainc.model.policy``)
kept in the repository's ``policies/`` or enabled from trainc's built-in pack.
Loading (:mod:`policy_load`) reports broken policies; checking (:mod:`policy_eval`)
reports what the objects violate.
"""

from __future__ import annotations

from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.policy.evaluate import evaluate_policies
from trainc.policy.load import PolicySet, load_policies
from trainc.resolve.resolved import ResolvedJob

__all__ = ["PolicySet", "check_policies", "load_policies"]


def check_policies(
    policies: PolicySet,
    obj: DefaultedObject,
    *,
    runtime: DefaultedObject | None = None,
    resolved: ResolvedJob | None = None,
) -> list[Diagnostic]:
    """Violations and evaluation errors of the loaded ``policies`` on ``obj``.

    For a TrainJob, ``runtime`` is its runtime and ``resolved`` what it resolves to, the
    ``runtime`` and ``resolved`` variables (null when either is missing). The load
    findings are in ``policies.diagnostics``, not repeated here.
    """
    return evaluate_policies(policies.policies, obj, runtime=runtime, resolved=resolved)
