"""Lifecycle warnings: a runtime TTL too short to notice a finished job, a deprecated runtime.

KEP-2899 (``docs/upstream.md``, "TTL on the runtime") has the runtime webhook warn when
``spec.ttlSecondsAfterFinished``
is under 60 seconds: the job and its logs vanish before anyone, or a GitOps controller, sees
how it ended. Trainer also warns when a TrainJob references a runtime labelled
``trainer.kubeflow.org/support: deprecated`` (``docs/upstream.md``, "Webhooks").
"""

from __future__ import annotations

from trainc.checks.shared.template import int_value
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import get_path
from trainc.model.labels import SUPPORT_DEPRECATED, SUPPORT_LABEL

XOBJ_TTL_SHORT = Rule(
    "xobj.ttl-short",
    Severity.WARNING,
    "ttlSecondsAfterFinished is under 60 seconds",
)

XOBJ_RUNTIME_DEPRECATED = Rule(
    "xobj.runtime-deprecated",
    Severity.WARNING,
    "the referenced runtime is marked deprecated",
)


#: Seconds below which KEP-2899 warns about the runtime TTL.
TTL_WARN_BELOW = 60


def check_runtime_ttl(runtime: DefaultedObject) -> list[Diagnostic]:
    """Warn when the runtime deletes finished TrainJobs less than a minute after they end."""
    ttl = int_value(get_path(runtime.data, ("spec", "ttlSecondsAfterFinished")))
    if ttl is None or ttl >= TTL_WARN_BELOW:
        return []
    return [
        runtime.finding(
            ("spec", "ttlSecondsAfterFinished"),
            XOBJ_TTL_SHORT.code,
            f"ttlSecondsAfterFinished is {ttl}s: finished TrainJobs on this runtime are deleted "
            f"less than {TTL_WARN_BELOW}s after they end, before their status and logs can be "
            "read",
            hint=f"use at least {TTL_WARN_BELOW} seconds, e.g. 3600",
        )
    ]


def check_deprecated_runtime(
    trainjob: DefaultedObject, runtime: DefaultedObject
) -> list[Diagnostic]:
    """Warn on a TrainJob whose runtime is labelled deprecated."""
    if runtime.loaded.label(SUPPORT_LABEL) != SUPPORT_DEPRECATED:
        return []
    return [
        trainjob.finding(
            ("spec", "runtimeRef", "name"),
            XOBJ_RUNTIME_DEPRECATED.code,
            f"referenced {runtime.kind} {runtime.name!r} is labelled {SUPPORT_LABEL}: "
            f"{SUPPORT_DEPRECATED}; Trainer warns that it will be removed in a future release",
            hint="move to a supported runtime",
        )
    ]
