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


def finding(
    code: str,
    message: str,
    *,
    file: str | None,
    line: int | None = None,
    column: int | None = None,
    field_path: str | None = None,
    hint: str | None = None,
    severity: Severity | None = None,
) -> Diagnostic:
    """A diagnostic whose severity is the catalogue's for ``code`` unless given."""
    return Diagnostic(
        code=code,
        severity=severity or rule_for(code).severity,
        message=message,
        file=file,
        line=line,
        column=column,
        field_path=field_path,
        hint=hint,
    )


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


def closest(word: str, candidates: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """The candidate closest in spelling to ``word``, if one is close enough to suggest.

    Suggestions are made only once something is wrong, so :mod:`difflib` is imported
    then: a clean run, the pre-commit hook's usual case, never pays for it.
    """
    import difflib  # noqa: PLC0415 - see above

    close = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=cutoff)
    return close[0] if close else None


def did_you_mean(word: str, candidates: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """The hint ``did you mean 'x'?`` for the :func:`closest` candidate, None without one."""
    match = closest(word, candidates, cutoff=cutoff)
    return f"did you mean {match!r}?" if match is not None else None


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``1 TrainJob``, ``2 TrainJobs``: a count with its noun in the right number.

    ``plural`` is for nouns that do not just add an ``s``.
    """
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def exit_code(diagnostics: Iterable[Diagnostic]) -> int:
    """1 when any finding is an error, else 0 (warnings never fail a run)."""
    return 1 if any(d.is_error for d in diagnostics) else 0


@dataclass(frozen=True, slots=True)
class Rule:
    """Catalogue entry: what a rule code means, for SARIF, JSON and documentation.

    ``severity`` is the default: trainc.yaml's ``rules`` may set any rule's, and inline
    suppressions silence single findings (:mod:`trainc.config.judgement`). A
    ``sensitive`` rule's findings sit on lines that may hold secret text: reporters never
    quote those lines, so a CI log does not spread what the finding warns about. A
    ``compiled`` rule is about what only trainc's own deployment has: the compiled JobSet
    and its companions as trainc builds them, and the sweeper. It is off when trainc.yaml
    says ``deploy: TrainJob``, where the Trainer controller builds the JobSets
    (``docs/deploy.md``).
    """

    code: str
    severity: Severity
    summary: str
    sensitive: bool = False
    compiled: bool = False


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO

#: Static rule codes, grouped by pipeline stage. Families whose last part is data
#: (``cel.<rule-id>``, ``policy.<policy-name>``) are described by :data:`FAMILIES`.
_ENTRIES: tuple[Rule, ...] = (
    # --- load: reading files and YAML --------------------------------------------------------
    Rule("load.unreadable", _E, "the file could not be read"),
    Rule("load.too-large", _E, "the file is larger than the configured bound"),
    Rule("load.binary", _E, "the file is binary, not YAML text"),
    Rule("load.encoding", _E, "the file is not valid UTF-8"),
    Rule(
        "load.syntax",
        _E,
        "the file is not well-formed YAML or JSON, or holds a value kubectl cannot send",
    ),
    Rule("load.tab-indent", _E, "a tab character is used where YAML allows only spaces"),
    Rule("load.duplicate-key", _E, "a mapping has the same key twice"),
    Rule("load.non-string-key", _E, "a mapping key is not a string (Kubernetes objects are JSON)"),
    Rule("load.alias-bound", _E, "anchors and aliases expand beyond the configured bound"),
    Rule("load.too-deep", _E, "the document nests deeper than the configured bound"),
    Rule("load.too-many-documents", _E, "the file holds more YAML documents than the bound"),
    Rule("load.symlink-escape", _E, "a symbolic link points outside the repository root"),
    Rule(
        "load.runtime-outside-paths",
        _W,
        "a runtime is defined outside inputs.runtimes, where runs on a few files look",
    ),
    Rule("load.not-an-object", _E, "a trainer.kubeflow.org document is not a mapping"),
    Rule("load.missing-name", _E, "the object has no metadata.name"),
    Rule(
        "load.unknown-kind",
        _E,
        "the kind is not one trainc reads in the trainer.kubeflow.org group",
    ),
    Rule("load.unknown-version", _E, "the apiVersion is not one trainc reads"),
    Rule("load.template-syntax", _E, "a Jinja2 template has a syntax error"),
    Rule(
        "load.template-undefined", _E, "a Jinja2 template uses a value the config does not define"
    ),
    Rule("load.template-security", _E, "a Jinja2 template tried something the sandbox forbids"),
    Rule("load.template-error", _E, "a Jinja2 template failed while rendering"),
    Rule(
        "load.ignored-document",
        _I,
        "the document is not a trainer.kubeflow.org object and is skipped",
    ),
    Rule(
        "load.training-operator-v1",
        _W,
        "a Training Operator v1 job (PyTorchJob, MPIJob, ...) that trainc does not read",
    ),
    Rule(
        "load.kustomize-directory",
        _I,
        "a kustomize directory is left out: pipe its build into trainc instead",
    ),
    Rule("load.helm-chart", _I, "a Helm chart is left out: pipe its rendering into trainc instead"),
    Rule("load.compiled-output", _I, "the output of trainc compile is not read as input"),
    # --- config: trainc.yaml -----------------------------------------------------------------
    Rule("config.syntax", _E, "trainc.yaml is not valid YAML"),
    Rule("config.invalid", _E, "trainc.yaml does not match its schema"),
    Rule(
        "config.namespace-overrides-destination",
        _W,
        "trainc.yaml's namespace overrides the Argo CD Application's destination namespace",
    ),
    Rule(
        "config.placeholder",
        _W,
        "the sweeper image or pre-commit's trainc repository is still trainc init's placeholder",
    ),
    Rule(
        "config.not-deployed",
        _W,
        "with deploy: TrainJob, trainc.yaml's compile or sweeper section is not used",
    ),
    # --- suppression: inline ``# trainc: ignore[CODE]`` comments ------------------------------
    # Sensitive: the comment sits on the line it silences, which may hold a literal
    # credential (``compile.plaintext-credential``); the message names the codes.
    Rule(
        "suppression.invalid",
        _E,
        "a suppression comment names no rule, or cannot apply",
        sensitive=True,
    ),
    Rule("suppression.unused", _W, "a suppression comment silences no finding", sensitive=True),
    # --- schema: structural validation against the generated CRD -----------------------------
    Rule("schema.unknown-field", _E, "the field is not part of the API"),
    Rule("schema.type", _E, "the value has the wrong type"),
    Rule("schema.required", _E, "a required field is missing"),
    Rule("schema.enum", _E, "the value is not one of the allowed values"),
    Rule("schema.range", _E, "the number is outside the allowed range"),
    Rule("schema.length", _E, "the string is shorter or longer than allowed"),
    Rule("schema.items", _E, "the list has fewer or more items than allowed"),
    Rule("schema.properties", _E, "the object has fewer or more properties than allowed"),
    Rule("schema.pattern", _E, "the string does not match the required pattern"),
    Rule("schema.format", _E, "the string is not in the required format"),
    Rule("schema.unique", _E, "a set-type list holds the same item twice"),
    Rule("schema.duplicate-list-key", _E, "a map-type list holds two items with the same key"),
    Rule("schema.int-range", _E, "an integer does not fit the field's integer format"),
    Rule("schema.invalid", _E, "the value breaks the schema"),
    # --- meta: ObjectMeta rules the API server applies itself --------------------------------
    Rule("meta.name-format", _E, "metadata.name is not a valid object name"),
    Rule("meta.namespace-format", _E, "metadata.namespace is not a valid namespace name"),
    Rule("meta.label-key", _E, "a label or annotation key is not a qualified name"),
    Rule("meta.label-value", _E, "a label value is not valid"),
    Rule("meta.annotations-too-large", _E, "annotations exceed the API server's total size limit"),
    Rule("meta.namespace-ignored", _W, "a cluster-scoped object sets metadata.namespace"),
    # --- cel: evaluation failures (rule violations are cel.<rule -----------------------------
    Rule("cel.eval-error", _E, "a validation rule could not be evaluated"),
    Rule("cel.cost-exceeded", _E, "a validation rule would exceed the API server's cost budget"),
    Rule("cel.rule", _E, "a validation rule without a trainc id is violated"),
    # --- xobj: checks the admission webhooks make across objects -----------------------------
    Rule("xobj.duplicate-object", _E, "two documents declare the same object"),
    Rule("xobj.runtime-not-found", _E, "the referenced runtime is not in the repository"),
    Rule(
        "xobj.runtime-unsupported",
        _E,
        "runtimeRef names a kind or API group Trainer does not support",
    ),
    Rule(
        "xobj.ancestor-replicas", _E, "an ancestor-labelled replicatedJob has replicas other than 1"
    ),
    Rule("xobj.ancestor-container", _E, "an ancestor-labelled replicatedJob lacks its container"),
    Rule(
        "xobj.initializer-job", _E, "the runtime lacks the initializer job the TrainJob configures"
    ),
    Rule("xobj.initializer-container", _E, "the initializer job lacks its initializer container"),
    Rule(
        "xobj.initializer-volume-mount", _E, "the initializer container lacks the initializer mount"
    ),
    Rule("xobj.patch-manager", _E, "a runtimePatches manager is not a domain-prefixed path"),
    Rule("xobj.patch-unknown-job", _E, "a runtime patch names a replicatedJob the runtime lacks"),
    Rule("xobj.patch-unknown-container", _E, "a runtime patch names a container the runtime lacks"),
    Rule("xobj.patch-forbidden-env", _E, "a runtime patch sets env on a container Trainer owns"),
    Rule("xobj.reserved-env", _E, "trainer.env sets a variable the framework plugin reserves"),
    Rule(
        "xobj.torch-env-injection", _E, "a torch envInjection target is not in the runtime template"
    ),
    Rule("xobj.mpi-implementation", _E, "the MPI implementation is not supported"),
    Rule(
        "xobj.mpi-launcher-node", _E, "an MPI runtime with runLauncherAsNode lacks launcher or node"
    ),
    Rule("xobj.flux-reserved-init-container", _E, "the flux-installer init container is reserved"),
    Rule("xobj.volcano-queue-empty", _E, "the Volcano queue annotation is empty"),
    Rule(
        "xobj.volcano-queue-invalid",
        _E,
        "the Volcano queue annotation is not a valid queue name (a DNS-1123 subdomain)",
    ),
    Rule(
        "xobj.volume-claim-name", _E, "a volumeClaimPolicies template name is invalid or duplicated"
    ),
    Rule(
        "xobj.volume-claim-name-too-long", _E, "the generated <claim>-<jobset> PVC name exceeds 63"
    ),
    Rule("xobj.volume-claim-no-mount", _E, "no container mounts a volumeClaimPolicies template"),
    Rule("xobj.volume-claim-volume-conflict", _E, "a pod volume has a volumeClaimPolicies name"),
    Rule("xobj.volume-claim-clash", _E, "two TrainJobs' volume claims get the same PVC name"),
    Rule("xobj.jobset-name-budget", _E, "generated Job or Pod names would exceed 63 characters"),
    Rule("xobj.jobset-job-name", _E, "a replicatedJob name makes the generated Job names invalid"),
    Rule("xobj.jobset-managed-by", _E, "the JobSet managedBy is not a short domain-prefixed path"),
    Rule("xobj.jobset-depends-on", _E, "dependsOn does not name an earlier replicatedJob"),
    Rule("xobj.jobset-subdomain", _E, "network.subdomain is not a valid DNS label"),
    Rule("xobj.jobset-group-name", _E, "a replicatedJob groupName is not a valid DNS label"),
    Rule("xobj.jobset-replicas-parallelism", _E, "replicas times parallelism overflows int32"),
    Rule(
        "xobj.jobset-immutable",
        _E,
        "an edit changes replicatedJobs or managedBy of a deployed JobSet (--base)",
    ),
    Rule(
        "xobj.jobset-target-unknown",
        _E,
        "a success or failure policy names an unknown replicatedJob",
    ),
    Rule("xobj.jobset-failure-rule", _E, "a failurePolicy rule name or reason is invalid"),
    Rule(
        "xobj.jobset-coordinator",
        _E,
        "the coordinator names an unknown job or an index out of range",
    ),
    Rule("xobj.torchtune", _E, "a TorchTune TrainJob breaks the TorchTune runtime contract"),
    Rule("xobj.ttl-short", _W, "ttlSecondsAfterFinished is under 60 seconds"),
    Rule("xobj.runtime-deprecated", _W, "the referenced runtime is marked deprecated"),
    Rule(
        "xobj.not-fully-checked",
        _W,
        "the runtime's errors stopped the checks of the JobSet, Jobs and pods of a TrainJob",
    ),
    # --- pod: the API server's rules for the pods of the Jobs a JobSet creates ---------------
    Rule("pod.containers", _E, "the pod template has no containers, or ephemeral containers"),
    Rule("pod.container-name", _E, "a container name is missing, no DNS label, or used twice"),
    Rule("pod.image", _E, "a container has no image, or an unknown imagePullPolicy"),
    Rule("pod.ports", _E, "a container port's number, name or protocol is invalid or repeated"),
    Rule("pod.env", _E, "an environment variable or envFrom source is invalid"),
    Rule("pod.volume-mount", _E, "a volume mount or device is invalid or names no volume"),
    Rule("pod.probe", _E, "a probe has no handler or two, or invalid settings"),
    Rule("pod.lifecycle", _E, "a lifecycle hook or terminationMessagePolicy is invalid"),
    Rule("pod.security-context", _E, "a pod or container securityContext is invalid"),
    Rule("pod.container-restart", _E, "a container restartPolicy, or a sidecar rule, is broken"),
    Rule("pod.resize-policy", _E, "a container resizePolicy is invalid"),
    Rule("pod.resource-name", _E, "a resource name is not a standard or qualified one"),
    Rule("pod.resource-quantity", _E, "a resource quantity is negative or not a whole number"),
    Rule(
        "pod.resource-limits",
        _E,
        "a request exceeds its limit, or an extended resource's request differs from its limit",
    ),
    Rule("pod.hugepages", _E, "hugepages requests break the hugepages rules"),
    Rule("pod.resource-claims", _E, "a resource claim is invalid or names no pod claim"),
    Rule("pod.pod-resources", _E, "pod-level resources are invalid or below the containers'"),
    Rule("pod.volume-name", _E, "a volume name is missing, no DNS label, or used twice"),
    Rule("pod.volume-source", _E, "a volume has no source, or more than one"),
    Rule("pod.volume", _E, "a volume source's own fields are invalid"),
    Rule("pod.volume-items", _E, "a volume item's key, path or mode is invalid"),
    Rule("pod.ephemeral-volume", _E, "an ephemeral volume's claim template is invalid"),
    Rule("pod.restart-policy", _E, "the pod restartPolicy is not a valid value"),
    Rule("pod.dns", _E, "dnsPolicy, dnsConfig, hostname, subdomain or hostAliases are invalid"),
    Rule("pod.object-name", _E, "a service account, node or runtime class name is invalid"),
    Rule("pod.deadline", _E, "the pod activeDeadlineSeconds is out of range"),
    Rule("pod.priority", _E, "priorityClassName or preemptionPolicy is invalid"),
    Rule("pod.gates", _E, "a readiness or scheduling gate is invalid or repeated"),
    Rule("pod.host-namespaces", _E, "host namespaces conflict with ports, sysctls or hostUsers"),
    Rule("pod.os", _E, "os.name is invalid, or fields the OS cannot honour are set"),
    Rule("pod.annotations", _E, "a pod annotation the API server interprets is invalid"),
    Rule("pod.node-selector", _E, "a nodeSelector key or value is no valid label"),
    Rule("pod.affinity", _E, "a node or pod (anti-)affinity term is malformed"),
    Rule("pod.tolerations", _E, "a toleration's key, operator, value and effect do not fit"),
    Rule("pod.topology-spread", _E, "a topology spread constraint is invalid"),
    # --- job: the API server's rules for the Jobs a JobSet creates ---------------------------
    Rule("job.metadata", _E, "a label or annotation the JobSet controller adds is invalid"),
    Rule("job.selector", _E, "the Job's selector is set without manualSelector, or is invalid"),
    Rule("job.counts", _E, "parallelism, completions, backoff or deadline counts are invalid"),
    Rule("job.managed-by", _E, "the Job's managedBy is not a short domain-prefixed path"),
    Rule("job.completion-mode", _E, "the completion mode or an Indexed Job's limits are broken"),
    Rule("job.pod-failure-policy", _E, "the Job's podFailurePolicy is invalid"),
    Rule("job.success-policy", _E, "the Job's successPolicy is invalid"),
    Rule("job.pod-replacement-policy", _E, "the Job's podReplacementPolicy is invalid"),
    Rule(
        "job.restart-policy",
        _E,
        "the pod restartPolicy is not OnFailure or Never, or not Never with a podFailurePolicy",
    ),
    # --- policy: organisation policies (violations are policy.<policy ------------------------
    Rule("policy.invalid", _E, "a policy file is malformed"),
    Rule("policy.eval-error", _E, "a policy expression could not be evaluated"),
    Rule(
        "policy.not-evaluated",
        _W,
        "policies reading runtime or resolved were skipped: the TrainJob's runtime is unusable",
    ),
    # --- migrate: spellings from older API revisions and the KEP draft -----------------------
    Rule("migrate.api-version", _E, "the apiVersion belongs to an older draft of the API"),
    Rule("migrate.initializer", _E, "datasetConfig/modelConfig moved to spec.initializer"),
    Rule(
        "migrate.overrides", _E, "pod overrides and spec.labels/annotations became runtimePatches"
    ),
    Rule("migrate.torch-spec", _E, "mlPolicy.torchSpec is now mlPolicy.torch"),
    Rule("migrate.torch-num-proc-per-node", _E, "runtime torch.numProcPerNode was removed"),
    Rule("migrate.torch-elastic-policy", _E, "torch.elasticPolicy was removed"),
    Rule("migrate.num-proc-per-node-string", _E, "trainer.numProcPerNode is now an integer"),
    # --- compile: what resolving a TrainJob into its JobSet can find (validate reports it) -----
    Rule(
        "compile.progress-deadline",
        _E,
        "the progress-deadline annotation is not a positive integer",
        compiled=True,
    ),
    Rule(
        "compile.mpi-ssh-secret",
        _E,
        "an MPI runtime names no valid SSH Secret, which trainc never generates",
        compiled=True,
    ),
    Rule(
        "compile.flux-curve-secret",
        _E,
        "a Flux runtime names no valid CURVE certificate Secret, which trainc never generates",
        compiled=True,
    ),
    Rule(
        "compile.coscheduling-scheduler",
        _W,
        "no pod template names a scheduler, and the default one ignores Coscheduling PodGroups",
    ),
    Rule("compile.volcano-scheduler", _W, "no pod template sets schedulerName: volcano"),
    Rule("compile.podgroup-empty", _E, "the Coscheduling PodGroup would have no members"),
    Rule(
        "compile.metadata-clash",
        _W,
        "a TrainJob label or annotation does not reach the JobSet, which sets another value",
        compiled=True,
    ),
    Rule(
        "compile.no-containers",
        _E,
        "a replicated job's pod template has no containers, so its JobSet would be refused",
    ),
    Rule(
        "compile.no-sweeper",
        _W,
        "jobs set deadlines or TTLs, but no sweeper is configured to enforce them",
        compiled=True,
    ),
    Rule(
        "compile.sweeper-resources",
        _E,
        "a request of the sweeper's container exceeds its limit",
        compiled=True,
    ),
    Rule(
        "compile.plaintext-credential",
        _E,
        "an env var named like a credential has a literal value, which compile writes to git",
        sensitive=True,
    ),
    Rule(
        "compile.image-tag",
        _W,
        "a pod runs an image without a tag or with the tag latest: what runs changes unseen",
    ),
    Rule(
        "compile.deadline-sweep-period",
        _W,
        "activeDeadlineSeconds is shorter than the sweeper's period, so it cannot hold on time",
        compiled=True,
    ),
    Rule(
        "compile.unknown-namespace",
        _W,
        "a TrainJob's namespace is not in trainc.yaml's namespaces (a typo gets its own Role)",
    ),
    # --- kueue: what Kueue makes of the JobSet (docs/kueue.md) -------------------------------
    Rule(
        "kueue.suspend-in-git",
        _E,
        "a queued job sets suspend: true, a field Kueue owns and GitOps would force back",
        compiled=True,
    ),
    Rule(
        "kueue.multikueue-without-queue",
        _E,
        "managedBy: kueue.x-k8s.io/multikueue without a queue name, so nothing ever runs it",
    ),
    Rule("kueue.queue-name", _E, "the queue name is not a DNS-1123 subdomain, Kueue refuses it"),
    Rule(
        "kueue.max-exec-time",
        _E,
        "max-exec-time-seconds is not a whole number from 1 to 2147483647 (refused or ignored)",
    ),
    Rule(
        "kueue.queue-annotation",
        _W,
        "the queue name is an annotation, which Kueue no longer reads, and no label",
    ),
    # --- apply: what the apply of the compiled objects would break (validate reports it) ---
    Rule(
        "apply.last-applied-too-large",
        _E,
        "with client-side apply, the last-applied-configuration copy breaks the annotation limit",
        compiled=True,
    ),
    Rule(
        "apply.last-applied-near-limit",
        _W,
        "with client-side apply, the last-applied-configuration copy nears the annotation limit",
        compiled=True,
    ),
    Rule(
        "apply.annotations-near-limit",
        _W,
        "an emitted object's annotations near 256 KiB",
        compiled=True,
    ),
    Rule(
        "apply.object-too-large",
        _E,
        "an emitted object exceeds etcd's 1.5 MiB request limit",
        compiled=True,
    ),
    Rule(
        "apply.object-near-limit",
        _W,
        "an emitted object nears etcd's 1.5 MiB request limit",
        compiled=True,
    ),
    Rule(
        "apply.config-map-too-large", _E, "an emitted ConfigMap's data exceeds 1 MiB", compiled=True
    ),
)

CATALOGUE: dict[str, Rule] = {rule.code: rule for rule in _ENTRIES}

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
