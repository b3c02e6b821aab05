"""Which modules declare rules, and the rules they declare.

A rule is a module-level :class:`~trainc.diagnostics.Rule` constant of the module whose
check reports it. The modules are listed here rather than found by walking the package,
so that the arrows from this package to the checks are ones import-linter sees, and so
that the catalogue's order (the order of this list, then of each module) is chosen, not
an accident of the file system. A test fails when a module declares a rule and is not
listed.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from trainc.diagnostics import Rule

#: The modules that declare rules, in the order of the stages that report them.
DECLARING_MODULES: tuple[str, ...] = (
    "trainc.load.reader",
    "trainc.load.convert",
    "trainc.load.ruamelyaml",
    "trainc.load.discover",
    "trainc.load.inputs",
    "trainc.load.packages",
    "trainc.load.objects",
    "trainc.schema.migrations",
    "trainc.load.template",
    "trainc.config.file",
    "trainc.config.warnings",
    "trainc.config.cluster",
    "trainc.config.judgement",
    "trainc.schema.structural",
    "trainc.schema.defaults",
    "trainc.schema.metadata",
    "trainc.schema.cel.evaluate",
    "trainc.schema.cel.declared",
    "trainc.checks.webhooks.duplicates",
    "trainc.resolve.index",
    "trainc.checks.webhooks.runtime_webhook",
    "trainc.checks.webhooks.initializers",
    "trainc.checks.webhooks.patches",
    "trainc.plugins.shared.reserved_env",
    "trainc.plugins.torch",
    "trainc.plugins.flux",
    "trainc.plugins.mpi",
    "trainc.plugins.volcano",
    "trainc.plugins.volumes",
    "trainc.checks.webhooks.claim_clashes",
    "trainc.checks.created.names",
    "trainc.checks.webhooks.jobset_webhook",
    "trainc.checks.created.jobset",
    "trainc.checks.transitions.update",
    "trainc.checks.webhooks.jobset_policies",
    "trainc.checks.webhooks.coordinator",
    "trainc.plugins.torchtune",
    "trainc.checks.webhooks.lifecycle",
    "trainc.engine.blocking",
    "trainc.checks.workload.containers",
    "trainc.checks.workload.ports",
    "trainc.checks.workload.env_sources",
    "trainc.checks.workload.mounts",
    "trainc.checks.workload.probes",
    "trainc.checks.workload.lifecycle",
    "trainc.checks.workload.pod_security",
    "trainc.checks.workload.restart_rules",
    "trainc.checks.workload.resize_policy",
    "trainc.checks.workload.quantities",
    "trainc.checks.workload.resources",
    "trainc.checks.workload.claims",
    "trainc.checks.workload.podresources",
    "trainc.checks.workload.volumes",
    "trainc.checks.workload.volume_sources",
    "trainc.checks.workload.volume_files",
    "trainc.checks.workload.ephemeral",
    "trainc.checks.workload.pod",
    "trainc.checks.workload.dns",
    "trainc.checks.workload.pod_os",
    "trainc.checks.workload.pod_annotations",
    "trainc.checks.workload.scheduling",
    "trainc.checks.workload.affinity",
    "trainc.checks.created.childjobs",
    "trainc.checks.workload.job_selector",
    "trainc.checks.workload.job",
    "trainc.checks.workload.job_policies",
    "trainc.policy.files",
    "trainc.policy.evaluate",
    "trainc.plugins.lifecycle",
    "trainc.plugins.coscheduling",
    "trainc.plugins.metadata",
    "trainc.plugins.jobset",
    "trainc.config.sweeper",
    "trainc.checks.created.credentials",
    "trainc.checks.created.images",
    "trainc.checks.namespaces",
    "trainc.checks.admission.cluster",
    "trainc.checks.admission.priority",
    "trainc.checks.admission.pod_security.judge",
    "trainc.checks.admission.limit_ranges.judge",
    "trainc.checks.admission.resource_quotas.judge",
    "trainc.checks.admission.policies.judge",
    "trainc.checks.admission.policies.configuration",
    "trainc.plugins.kueue",
    "trainc.checks.admission.kueue.judge",
    "trainc.checks.apply_limits",
    "trainc.policy.compile",
)


class DuplicateRuleError(ValueError):
    """Two declarations of one code: which one a finding means would be a guess."""


def declared_rules(modules: Iterable[str] = DECLARING_MODULES) -> tuple[Rule, ...]:
    """Every rule the ``modules`` declare, in order; raises DuplicateRuleError when two
    declarations share a code.

    A module that imports another's rule to report it too holds the same object, which
    is one declaration seen twice, not two.
    """
    declared: dict[str, tuple[Rule, str]] = {}
    for module_name in modules:
        for value in vars(importlib.import_module(module_name)).values():
            if not isinstance(value, Rule):
                continue
            first, where = declared.setdefault(value.code, (value, module_name))
            if first is not value:
                raise DuplicateRuleError(
                    f"{value.code} is declared in {where} and in {module_name}"
                )
    return tuple(rule for rule, _ in declared.values())
