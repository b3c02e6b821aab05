"""The JobSet validating webhook's structural checks, applied to a runtime's JobSet template.

Every TrainJob on a runtime becomes a JobSet built from ``spec.template.spec``, and the JobSet
webhook judges it on creation (https://github.com/kubernetes-sigs/jobset/blob/main/pkg/webhooks/jobset_webhook.go);
nothing exempts it, so these
checks also run on runtimes labelled ``webhook-validation: disabled``. Checks that depend on
the TrainJob (name budgets, pod counts, the coordinator's pod index) judge the resolved
JobSet (:mod:`trainc.checks.created`); success and failure policies are in
:mod:`.jobset_policies`.
"""

from __future__ import annotations

from trainc.checks.shared.template import (
    Node,
    children,
    jobset_spec,
    replicated_jobs,
    str_value,
)
from trainc.diagnostics import Diagnostic, Rule, Severity, did_you_mean
from trainc.load.defaulted import DefaultedObject
from trainc.schema.metadata import (
    LABEL_MAX,
    dns1035_label_errors,
    dns1123_subdomain_errors,
    domain_prefixed_path_errors,
)

XOBJ_JOBSET_JOB_NAME = Rule(
    "xobj.jobset-job-name",
    Severity.ERROR,
    "a replicatedJob name makes the generated Job names invalid",
)

XOBJ_JOBSET_MANAGED_BY = Rule(
    "xobj.jobset-managed-by",
    Severity.ERROR,
    "the JobSet managedBy is not a short domain-prefixed path",
)

XOBJ_JOBSET_DEPENDS_ON = Rule(
    "xobj.jobset-depends-on",
    Severity.ERROR,
    "dependsOn does not name an earlier replicatedJob",
)

XOBJ_JOBSET_SUBDOMAIN = Rule(
    "xobj.jobset-subdomain",
    Severity.ERROR,
    "network.subdomain is not a valid DNS label",
)

XOBJ_JOBSET_GROUP_NAME = Rule(
    "xobj.jobset-group-name",
    Severity.ERROR,
    "a replicatedJob groupName is not a valid DNS label",
)


_TOO_LONG = f"must be no more than {LABEL_MAX} characters"
_SUBDOMAIN_TOO_LONG = ".spec.network.subdomain is too long, must be less than 63 characters"
_GROUP_TOO_LONG = ".spec.replicatedJob[].groupName is too long, must be less than 63 characters"
_DNS1035_HINT = "use at most 63 lower-case letters, digits and '-', starting with a letter"


def check_jobset_template(runtime: DefaultedObject) -> list[Diagnostic]:
    """Creation-time JobSet webhook findings that the runtime template alone decides."""
    spec = jobset_spec(runtime.data)
    return [
        *_check_depends_on(runtime),
        *_check_subdomain(runtime, spec),
        *_check_managed_by(runtime, spec),
        *_check_job_names(runtime),
        *_check_group_names(runtime),
    ]


def _check_depends_on(runtime: DefaultedObject) -> list[Diagnostic]:
    rjobs = replicated_jobs(runtime.data)
    names = [rjob.name or "" for rjob in rjobs]
    found = []
    for index, rjob in enumerate(rjobs):
        entries = children(rjob, "dependsOn")
        if index == 0 and entries:
            found.append(
                runtime.finding(
                    rjob.at("dependsOn"),
                    XOBJ_JOBSET_DEPENDS_ON.code,
                    "DependsOn can't be set for the first ReplicatedJob: the JobSet starts "
                    f"with replicatedJob {rjob.name!r}",
                    hint="remove dependsOn from the first replicatedJob, or move the jobs it "
                    "waits for before it",
                )
            )
            continue
        seen = names[: index + 1]
        found.extend(
            _depends_on_finding(runtime, rjob, entry, names)
            for entry in entries
            if entry.name is not None and entry.name not in seen
        )
    return found


def _depends_on_finding(
    runtime: DefaultedObject, rjob: Node, entry: Node, names: list[str]
) -> Diagnostic:
    target = entry.name or ""
    if target in names:
        hint = (
            f"move replicatedJob {target!r} before {rjob.name!r}: a job waits only for earlier ones"
        )
    else:
        hint = did_you_mean(target, names) or "name a replicatedJob listed earlier"
    return runtime.finding(
        entry.at("name"),
        XOBJ_JOBSET_DEPENDS_ON.code,
        f"replicatedJob: {rjob.name} cannot depend on replicatedJob: {target}",
        hint=hint,
    )


def _check_subdomain(runtime: DefaultedObject, spec: Node) -> list[Diagnostic]:
    subdomain = str_value(spec.get("network", "subdomain"))
    if not subdomain:
        return []
    errors = dns1123_subdomain_errors(subdomain) + [
        _SUBDOMAIN_TOO_LONG if error == _TOO_LONG else error
        for error in dns1035_label_errors(subdomain)
    ]
    if not errors:
        return []
    return [
        runtime.finding(
            spec.at("network", "subdomain"),
            XOBJ_JOBSET_SUBDOMAIN.code,
            f"{'; '.join(dict.fromkeys(errors))} (subdomain {subdomain!r}, which also names "
            "the headless Service)",
            hint=_DNS1035_HINT,
        )
    ]


def _check_managed_by(runtime: DefaultedObject, spec: Node) -> list[Diagnostic]:
    managed_by = str_value(spec.get("managedBy"))
    if managed_by is None:
        return []
    errors = domain_prefixed_path_errors(managed_by)
    if len(managed_by) > LABEL_MAX:
        errors.append(_TOO_LONG)
    if not errors:
        return []
    return [
        runtime.finding(
            spec.at("managedBy"),
            XOBJ_JOBSET_MANAGED_BY.code,
            f"{'; '.join(errors)} (JobSet managedBy {managed_by!r})",
            hint="name the JobSet controller as a domain-prefixed path, e.g. "
            "jobset.sigs.k8s.io/jobset-controller, or delete the field",
        )
    ]


def _check_job_names(runtime: DefaultedObject) -> list[Diagnostic]:
    """replicatedJob names must keep ``<jobset>-<rjob>-<index>`` a DNS-1035 label.

    Length is a name budget (:mod:`.names`); here only the characters matter, so the check
    uses a stand-in JobSet name that is itself valid.
    """
    found = []
    for rjob in replicated_jobs(runtime.data):
        if rjob.name is None:
            continue
        example = f"trainjob-{rjob.name}-0"
        errors = [error for error in dns1035_label_errors(example) if error != _TOO_LONG]
        if errors:
            found.append(
                runtime.finding(
                    rjob.at("name"),
                    XOBJ_JOBSET_JOB_NAME.code,
                    f"{'; '.join(errors)} (generated Job names such as {example!r} use "
                    f"replicatedJob name {rjob.name!r})",
                    hint="use lower-case letters, digits and '-' in replicatedJob names",
                )
            )
    return found


def _check_group_names(runtime: DefaultedObject) -> list[Diagnostic]:
    found = []
    for rjob in replicated_jobs(runtime.data):
        group = str_value(rjob.get("groupName"))
        if group is None:
            continue
        errors = [
            _GROUP_TOO_LONG if error == _TOO_LONG else error
            for error in dns1035_label_errors(group)
        ]
        if errors:
            found.append(
                runtime.finding(
                    rjob.at("groupName"),
                    XOBJ_JOBSET_GROUP_NAME.code,
                    f"{'; '.join(errors)} (groupName {group!r} of replicatedJob {rjob.name!r})",
                    hint=_DNS1035_HINT,
                )
            )
    return found
