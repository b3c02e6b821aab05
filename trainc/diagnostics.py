"""Findings as immutable data: the Diagnostic record, severities and the rule-code catalogue.

Every stage returns diagnostics instead of printing or raising, so the command line, the
Argo CD plugin, pre-commit and the tests all see the same list; only reporters render it.
Rule codes are stable identifiers (SARIF rule ids, documentation anchors), so they are
declared once here and nowhere else.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


class Severity(enum.StrEnum):
    """How bad a finding is; only ERROR fails a run."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


_SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    """One finding about the user's input, located as precisely as trainc can."""

    code: str
    severity: Severity
    message: str
    file: str | None
    line: int | None
    column: int | None
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    field_path: str | None = None
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        """True when this finding fails the run."""
        return self.severity is Severity.ERROR


def sort_key(diagnostic: Diagnostic) -> tuple[str, int, int, int, str, str]:
    """Canonical order: by file, position, then severity, code and message.

    Repo-wide findings (no file) sort first so a broken config is read before the
    consequences it has on individual files.
    """
    return (
        diagnostic.file or "",
        diagnostic.line or 0,
        diagnostic.column or 0,
        _SEVERITY_RANK[diagnostic.severity],
        diagnostic.code,
        diagnostic.message,
    )


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> tuple[Diagnostic, ...]:
    """Return the diagnostics in canonical order, without exact duplicates."""
    return tuple(sorted(set(diagnostics), key=sort_key))


def exit_code(diagnostics: Iterable[Diagnostic]) -> int:
    """1 when any finding is an error, else 0 (warnings never fail a run)."""
    return 1 if any(d.is_error for d in diagnostics) else 0


@dataclass(frozen=True, slots=True)
class Rule:
    """Catalogue entry: what a rule code means, for SARIF, JSON and documentation."""

    code: str
    severity: Severity
    summary: str


def _rules(severity: Severity, entries: dict[str, str]) -> dict[str, Rule]:
    return {code: Rule(code, severity, summary) for code, summary in entries.items()}


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO

#: Static rule codes. Families whose last part is data (``cel.<rule-id>``,
#: ``policy.<policy-name>``) are described by :data:`FAMILIES`.
CATALOGUE: dict[str, Rule] = {
    # --- load: reading files and YAML ------------------------------------------------
    **_rules(_E, {
        "load.unreadable": "the file could not be read",
        "load.too-large": "the file is larger than the configured bound",
        "load.binary": "the file is binary, not YAML text",
        "load.encoding": "the file is not valid UTF-8",
        "load.syntax": "the YAML is not well-formed",
        "load.tab-indent": "a tab character is used where YAML allows only spaces",
        "load.duplicate-key": "a mapping has the same key twice",
        "load.alias-bound": "anchors and aliases expand beyond the configured bound",
        "load.too-deep": "the document nests deeper than the configured bound",
        "load.symlink-escape": "a symbolic link points outside the repository root",
        "load.not-an-object": "a trainer.kubeflow.org document is not a mapping",
        "load.missing-name": "the object has no metadata.name",
        "load.unknown-kind": "the kind is not one trainc reads in the trainer.kubeflow.org group",
        "load.unknown-version": "the apiVersion is not one trainc reads",
        "load.template-syntax": "a Jinja2 template has a syntax error",
        "load.template-undefined": "a Jinja2 template uses a value the config does not define",
        "load.template-security": "a Jinja2 template tried something the sandbox forbids",
        "load.template-error": "a Jinja2 template failed while rendering",
    }),
    **_rules(_I, {
        "load.ignored-document": "the document is not a trainer.kubeflow.org object and is skipped",
    }),
    # --- config: trainc.yaml ------------------------------------------------------------
    **_rules(_E, {
        "config.syntax": "trainc.yaml is not valid YAML",
        "config.invalid": "trainc.yaml does not match its schema",
    }),
    # --- schema: structural validation against the generated CRD -------------------------
    **_rules(_E, {
        "schema.unknown-field": "the field is not part of the API",
        "schema.type": "the value has the wrong type",
        "schema.required": "a required field is missing",
        "schema.enum": "the value is not one of the allowed values",
        "schema.range": "the number is outside the allowed range",
        "schema.length": "the string is shorter or longer than allowed",
        "schema.items": "the list has fewer or more items than allowed",
        "schema.properties": "the object has fewer or more properties than allowed",
        "schema.pattern": "the string does not match the required pattern",
        "schema.format": "the string is not in the required format",
        "schema.unique": "a set-type list holds the same item twice",
        "schema.duplicate-list-key": "a map-type list holds two items with the same key",
        "schema.int-range": "an integer does not fit the field's integer format",
        "schema.invalid": "the value breaks the schema",
    }),
    # --- meta: ObjectMeta rules the API server applies itself ---------------------------------
    **_rules(_E, {
        "meta.name-format": "metadata.name is not a valid object name",
        "meta.namespace-format": "metadata.namespace is not a valid namespace name",
        "meta.label-key": "a label or annotation key is not a qualified name",
        "meta.label-value": "a label value is not valid",
        "meta.annotations-too-large": "annotations exceed the API server's total size limit",
    }),
    **_rules(_W, {
        "meta.namespace-ignored": "a cluster-scoped object sets metadata.namespace",
    }),
    # --- cel: evaluation failures (rule violations are cel.<rule-id>) ------------------------
    **_rules(_E, {
        "cel.eval-error": "a validation rule could not be evaluated",
        "cel.cost-exceeded": "a validation rule would exceed the API server's cost budget",
    }),
    # --- xobj: checks the admission webhooks make across objects ----------------------------
    **_rules(_E, {
        "xobj.duplicate-object": "two documents declare the same object",
        "xobj.runtime-not-found": "the referenced runtime is not in the repository",
        "xobj.runtime-unsupported": "runtimeRef names a kind or API group Trainer does not support",
        "xobj.ancestor-replicas": "an ancestor-labelled replicatedJob has replicas other than 1",
        "xobj.ancestor-container": "an ancestor-labelled replicatedJob lacks its required container",
        "xobj.initializer-job": "the runtime lacks the initializer job the TrainJob configures",
        "xobj.initializer-container": "the initializer job lacks its initializer container",
        "xobj.initializer-volume-mount": "the initializer container lacks the initializer mount",
        "xobj.patch-manager": "a runtimePatches manager is not a domain-prefixed path",
        "xobj.patch-unknown-job": "a runtime patch names a replicatedJob the runtime lacks",
        "xobj.patch-unknown-container": "a runtime patch names a container the runtime lacks",
        "xobj.patch-forbidden-env": "a runtime patch sets env on a container Trainer owns",
        "xobj.reserved-env": "trainer.env sets a variable the framework plugin reserves",
        "xobj.torch-env-injection": "a torch envInjection target is not in the runtime template",
        "xobj.mpi-implementation": "the MPI implementation is not supported",
        "xobj.mpi-launcher-node": "an MPI runtime with runLauncherAsNode lacks launcher or node",
        "xobj.flux-reserved-init-container": "the flux-installer init container is reserved",
        "xobj.volcano-queue-empty": "the Volcano queue annotation is empty",
        "xobj.volume-claim-name": "a volumeClaimPolicies template name is invalid or duplicated",
        "xobj.volume-claim-name-too-long": "the generated <claim>-<jobset> PVC name exceeds 63",
        "xobj.volume-claim-no-mount": "no container mounts a volumeClaimPolicies template",
        "xobj.volume-claim-volume-conflict": "a pod volume has a volumeClaimPolicies name",
        "xobj.jobset-name-budget": "generated Job or Pod names would exceed 63 characters",
        "xobj.jobset-depends-on": "dependsOn does not name an earlier replicatedJob",
        "xobj.jobset-subdomain": "network.subdomain is not a valid DNS label",
        "xobj.jobset-group-name": "a replicatedJob groupName is not a valid DNS label",
        "xobj.jobset-replicas-parallelism": "replicas times parallelism overflows int32",
        "xobj.jobset-target-unknown": "a success or failure policy names an unknown replicatedJob",
        "xobj.jobset-failure-rule": "a failurePolicy rule name or reason is invalid",
        "xobj.jobset-coordinator": "the coordinator names an unknown job or an index out of range",
        "xobj.torchtune": "a TorchTune TrainJob breaks the TorchTune runtime contract",
    }),
    **_rules(_W, {
        "xobj.ttl-short": "ttlSecondsAfterFinished is under 60 seconds",
        "xobj.runtime-deprecated": "the referenced runtime is marked deprecated",
    }),
    # --- policy: organisation policies (violations are policy.<policy-name>) -------------------
    **_rules(_E, {
        "policy.invalid": "a policy file is malformed",
        "policy.eval-error": "a policy expression could not be evaluated",
    }),
    # --- migrate: spellings from older API revisions and the KEP draft ------------------------
    **_rules(_E, {
        "migrate.api-version": "the apiVersion belongs to an older draft of the API",
        "migrate.initializer": "datasetConfig/modelConfig moved to spec.initializer",
        "migrate.overrides": "pod overrides, spec.labels and spec.annotations became runtimePatches",
        "migrate.torch-spec": "mlPolicy.torchSpec is now mlPolicy.torch",
        "migrate.torch-num-proc-per-node": "runtime torch.numProcPerNode was removed",
        "migrate.torch-elastic-policy": "torch.elasticPolicy was removed",
        "migrate.num-proc-per-node-string": "trainer.numProcPerNode is now an integer",
    }),
}

#: Code families whose last segment is data, with the severity they default to.
FAMILIES: dict[str, Rule] = {
    "cel.": Rule("cel.*", _E, "a CRD validation rule (x-kubernetes-validations) is violated"),
    "policy.": Rule("policy.*", _E, "an organisation policy is violated"),
}


def rule_for(code: str) -> Rule:
    """Catalogue entry for ``code``, falling back to its family.

    Raises KeyError for a code nobody declared: a typo in trainc itself, caught by tests.
    """
    if code in CATALOGUE:
        return CATALOGUE[code]
    for prefix, family in FAMILIES.items():
        if code.startswith(prefix):
            return Rule(code, family.severity, family.summary)
    raise KeyError(code)
