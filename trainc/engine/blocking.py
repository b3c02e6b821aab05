"""Which errors stop a TrainJob's later checks, and the note on a job a runtime stopped.

A TrainJob is judged as the cluster would judge the JobSet, Jobs and pods it becomes
(:mod:`trainc.checks.created`). When the API server or Trainer's webhooks would refuse
the TrainJob or its runtime, none of those objects would ever exist, and judging them
would mostly repeat the first mistake; so such an error stops them. An organisation
policy is different: the cluster enforces none, the job resolves exactly as it would
without the policy, and a runtime that breaks one (upstream's runtimes set no
``ttlSecondsAfterFinished``, which the built-in ``require-runtime-ttl`` asks for) must not
hide what every TrainJob on it gets wrong.

A TrainJob stopped by its runtime's errors alone says so (:func:`stopped_by_runtime`):
its author may never look at the runtime's file, and would otherwise learn of the job's
own mistakes only once someone fixed the runtime.
"""

from __future__ import annotations

from trainc.checks.shared.findings import describe, where
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.policy.compile import POLICY_CODES

XOBJ_NOT_FULLY_CHECKED = Rule(
    "xobj.not-fully-checked",
    Severity.WARNING,
    "the runtime's errors stopped the checks of the JobSet, Jobs and pods of a TrainJob",
)


NOT_FULLY_CHECKED = XOBJ_NOT_FULLY_CHECKED.code


def stops_later_checks(diagnostic: Diagnostic) -> bool:
    """Whether ``diagnostic`` stops the resolved checks of the object it is about (and of
    the TrainJobs on it, for a runtime): an error the cluster would refuse it with."""
    return diagnostic.is_error and not diagnostic.code.startswith(POLICY_CODES)


def stopped_by_runtime(trainjob: DefaultedObject, runtime: DefaultedObject) -> Diagnostic:
    """The warning on ``trainjob`` whose resolved checks its ``runtime``'s errors stopped."""
    return trainjob.finding(
        ("spec", "runtimeRef", "name"),
        NOT_FULLY_CHECKED,
        f"{describe(trainjob)} was not fully checked: its runtime {describe(runtime)} "
        f"({where(runtime)}) has errors the cluster would refuse it with, so the checks of "
        "the JobSet, Jobs and pods this TrainJob becomes did not run",
        hint="fix the runtime's errors, then validate again to see this TrainJob's own",
    )
