"""The JobSet webhook's success- and failure-policy checks on a runtime's JobSet template.

Reproduces ``validateFailurePolicy`` and the success-policy target check of the JobSet
webhook (https://github.com/kubernetes-sigs/jobset/blob/main/pkg/webhooks/jobset_webhook.go):
targets must name replicatedJobs of the template,
rule names must be 1..128 characters of a fixed alphabet and unique (after the mutating
webhook names nameless rules ``failurePolicyRule<index>``), and ``onJobFailureReasons``
must be reasons the Job controller actually sets.
"""

from __future__ import annotations

import re

from trainc.checks.shared.findings import listing
from trainc.checks.shared.template import (
    Node,
    child,
    children,
    jobset_spec,
    replicated_jobs,
    str_value,
)
from trainc.diagnostics import Diagnostic, Rule, Severity, did_you_mean
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import as_list

XOBJ_JOBSET_TARGET_UNKNOWN = Rule(
    "xobj.jobset-target-unknown",
    Severity.ERROR,
    "a success or failure policy names an unknown replicatedJob",
)

XOBJ_JOBSET_FAILURE_RULE = Rule(
    "xobj.jobset-failure-rule",
    Severity.ERROR,
    "a failurePolicy rule name or reason is invalid",
)


JOB_FAILURE_REASONS = (
    "BackoffLimitExceeded",
    "DeadlineExceeded",
    "FailedIndexes",
    "MaxFailedIndexesExceeded",
    "PodFailurePolicy",
)
_RULE_NAME = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_RULE_NAME_MAX = 128


def check_jobset_policies(runtime: DefaultedObject) -> list[Diagnostic]:
    """Success and failure policy findings of the runtime's JobSet template."""
    spec = jobset_spec(runtime.data)
    names = [name for rjob in replicated_jobs(runtime.data) if (name := rjob.name)]
    found = _check_targets(runtime, child(spec, "successPolicy"), names, where="")
    rules = children(spec, "failurePolicy", "rules")
    for rule in rules:
        found += _check_rule_name(runtime, rule)
        found += _check_targets(runtime, rule, names, where=" in failure policy")
        found += _check_reasons(runtime, rule)
    return found + _check_unique_names(runtime, rules)


def _check_targets(
    runtime: DefaultedObject, policy: Node, names: list[str], *, where: str
) -> list[Diagnostic]:
    targets = as_list(policy.get("targetReplicatedJobs"))
    return [
        runtime.finding(
            policy.at("targetReplicatedJobs", index),
            XOBJ_JOBSET_TARGET_UNKNOWN.code,
            f"invalid replicatedJob name '{target}'{where} does not appear in "
            f".spec.ReplicatedJobs (the template has {listing(names)})",
            hint=did_you_mean(target, names) or "name one of the template's replicatedJobs",
        )
        for index, target in enumerate(targets)
        if isinstance(target, str) and target not in names
    ]


def _effective_name(rule: Node) -> str | None:
    name = str_value(rule.get("name"))
    index = rule.path[-1]
    return f"failurePolicyRule{index}" if name == "" else name


def _check_rule_name(runtime: DefaultedObject, rule: Node) -> list[Diagnostic]:
    name = str_value(rule.get("name"))
    if not name:  # missing is a schema error; empty is named by the mutating webhook
        return []
    errors = []
    if len(name) > _RULE_NAME_MAX:
        errors.append(
            f"invalid failure policy rule name of length {len(name)}, the rule name must be at "
            f"least 1 characters long and at most {_RULE_NAME_MAX} characters long"
        )
    if not re.fullmatch(_RULE_NAME, name):
        errors.append(
            f"invalid failure policy rule name '{name}', a failure policy rule name must start "
            "with an alphabetic character, optionally followed by a string of alphanumeric "
            "characters or '_,:', and must end with an alphanumeric character or '_'"
        )
    return [
        runtime.finding(
            rule.at("name"),
            XOBJ_JOBSET_FAILURE_RULE.code,
            error,
            hint="use a letter, then letters, digits, '_', ',' or ':', at most 128 characters",
        )
        for error in errors
    ]


def _check_reasons(runtime: DefaultedObject, rule: Node) -> list[Diagnostic]:
    reasons = as_list(rule.get("onJobFailureReasons"))
    return [
        runtime.finding(
            rule.at("onJobFailureReasons", index),
            XOBJ_JOBSET_FAILURE_RULE.code,
            f"invalid job failure reason '{reason}' in failure policy is not a recognized job "
            "failure reason",
            hint=did_you_mean(reason, JOB_FAILURE_REASONS)
            or f"use one of {listing(JOB_FAILURE_REASONS)}",
        )
        for index, reason in enumerate(reasons)
        if isinstance(reason, str) and reason not in JOB_FAILURE_REASONS
    ]


def _check_unique_names(runtime: DefaultedObject, rules: list[Node]) -> list[Diagnostic]:
    by_name: dict[str, list[Node]] = {}
    for rule in rules:
        if (name := _effective_name(rule)) is not None:
            by_name.setdefault(name, []).append(rule)
    found: list[Diagnostic] = []
    for name, same in by_name.items():
        indices = " ".join(str(rule.path[-1]) for rule in same)
        found.extend(
            runtime.finding(
                rule.at("name"),
                XOBJ_JOBSET_FAILURE_RULE.code,
                f"rule names are not unique, rules with indices [{indices}] all have the same "
                f"name '{name}'",
                hint="give every failure policy rule its own name",
            )
            for rule in same[1:]
        )
    return found
