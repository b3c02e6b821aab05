"""The cross-object layer: admission-webhook checks over all objects of a run, in a fixed order.

Four lists of checks, each in the order upstream's plugins document (``docs/upstream.md``,
"Webhooks" and "JobSet"): the webhooks' own checks here, then the plugins' validate parts
(:mod:`trainc.resolve.phases`) in registry order (:mod:`trainc.plugins.registry`):

- runtime webhook checks, skipped for runtimes labelled
  ``trainer.kubeflow.org/webhook-validation: disabled``, which bypass Trainer's validating
  webhooks (the webhooks' objectSelector);
- JobSet webhook and KEP-572 checks of every runtime's template, which nothing exempts;
- TrainJob webhook checks that the runtime alone decides, run once for each runtime some
  TrainJob uses and reported in the runtime's file;
- TrainJob webhook checks, for each TrainJob whose runtimeRef resolves. One that does not
  resolve gets only the lookup finding: its other checks would need the runtime.

Checks that judge what a TrainJob resolves to (its counts, names, Jobs) run on the resolved
job instead (:mod:`trainc.checks.created`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from trainc.checks.webhooks.claim_clashes import check_claim_clashes
from trainc.checks.webhooks.coordinator import check_coordinator
from trainc.checks.webhooks.duplicates import check_duplicates
from trainc.checks.webhooks.elsewhere import Elsewhere, claim_user
from trainc.checks.webhooks.initializers import check_initializers
from trainc.checks.webhooks.jobset_policies import check_jobset_policies
from trainc.checks.webhooks.jobset_webhook import check_jobset_template
from trainc.checks.webhooks.lifecycle import check_deprecated_runtime, check_runtime_ttl
from trainc.checks.webhooks.patches import check_runtime_patches
from trainc.checks.webhooks.runtime_ref import report_lookup_failure
from trainc.checks.webhooks.runtime_webhook import check_ancestor_jobs
from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.model.kinds import RUNTIME_KINDS, TRAINJOB
from trainc.model.labels import WEBHOOK_VALIDATION_DISABLED, WEBHOOK_VALIDATION_LABEL
from trainc.plugins import registry
from trainc.resolve.framework import plan
from trainc.resolve.index import LookupFailure, RuntimeIndex

RuntimeCheck = Callable[[DefaultedObject], list[Diagnostic]]
TrainJobCheck = Callable[[DefaultedObject, DefaultedObject], list[Diagnostic]]

RUNTIME_WEBHOOK_CHECKS: tuple[RuntimeCheck, ...] = (check_ancestor_jobs, check_runtime_ttl)
JOBSET_CHECKS: tuple[RuntimeCheck, ...] = (
    check_jobset_template,
    check_jobset_policies,
    check_coordinator,
)
TRAINJOB_CHECKS: tuple[TrainJobCheck, ...] = (
    check_deprecated_runtime,
    check_initializers,
    check_runtime_patches,
)


def document_order(objects: Sequence[DefaultedObject]) -> list[DefaultedObject]:
    """``objects`` by path, then position in the file: what "first declaration" means here,
    in the duplicate check and in the run's :class:`RuntimeIndex`."""
    return sorted(objects, key=lambda obj: (obj.loaded.path, obj.loaded.document.index))


def check_cross_object(
    objects: Sequence[DefaultedObject],
    index: RuntimeIndex,
    *,
    trainjob_checks: TrainJobCheck | None = None,
    elsewhere: Elsewhere | None = None,
) -> list[Diagnostic]:
    """Webhook-equivalent findings across ``objects``, without exact duplicates.

    ``index`` is the run's runtime index, built over :func:`document_order`.
    ``trainjob_checks`` gives the findings of :func:`check_trainjob` for a TrainJob and
    its runtime by other means (a cache); by default, it runs them. ``elsewhere`` is the
    rest of the repository in a run on named files: names that clash with it are
    reported on the checked objects.
    """
    per_trainjob = trainjob_checks or check_trainjob
    rest = elsewhere or Elsewhere()
    ordered = document_order(objects)
    found = check_duplicates(ordered, rest.declared)
    for runtime in (obj for obj in ordered if obj.kind in RUNTIME_KINDS):
        found += _check_runtime(runtime)
    used: dict[int, DefaultedObject] = {}
    claim_users = list(rest.claim_users)
    for trainjob in (obj for obj in ordered if obj.kind == TRAINJOB.kind):
        resolved = index.lookup(trainjob)
        if isinstance(resolved, LookupFailure):
            found.append(report_lookup_failure(trainjob, resolved))
            continue
        used.setdefault(id(resolved), resolved)
        found += per_trainjob(trainjob, resolved)
        user = claim_user(trainjob, resolved)
        if user is not None:
            claim_users.append(user)
    used_runtime_checks = plan(registry.PLUGINS).validate_used_runtime
    for runtime in used.values():
        for plugin in used_runtime_checks:
            found += plugin.validate_used_runtime(runtime)
    found += check_claim_clashes(claim_users)
    return list(dict.fromkeys(found))


def check_trainjob(trainjob: DefaultedObject, runtime: DefaultedObject) -> list[Diagnostic]:
    """The checks of :data:`TRAINJOB_CHECKS`, then the plugins', of ``trainjob`` on ``runtime``."""
    found: list[Diagnostic] = []
    for check in TRAINJOB_CHECKS:
        found += check(trainjob, runtime)
    for plugin in plan(registry.PLUGINS).validate_trainjob:
        found += plugin.validate_trainjob(trainjob, runtime)
    return found


def _check_runtime(runtime: DefaultedObject) -> list[Diagnostic]:
    exempt = runtime.loaded.label(WEBHOOK_VALIDATION_LABEL) == WEBHOOK_VALIDATION_DISABLED
    checks = JOBSET_CHECKS if exempt else RUNTIME_WEBHOOK_CHECKS + JOBSET_CHECKS
    found: list[Diagnostic] = []
    for check in checks:
        found += check(runtime)
    for plugin in plan(registry.PLUGINS).validate_runtime:
        found += plugin.validate_runtime(runtime)
    return found
