"""The repository config file, ``trainc.yaml``, as users write it.

It is modelled like the API kinds so that ``trainc schemas`` publishes a JSON Schema for
editors and the structural validator reports config mistakes with file and line.
"""

from __future__ import annotations

from typing import Annotated, Literal

from trainc.diagnostics import Rule, Severity
from trainc.model import patterns
from trainc.model.json import JsonObject
from trainc.model.markers import (
    FreeForm,
    Json,
    MaxLength,
    Minimum,
    MinItems,
    MinLength,
    Pattern,
)
from trainc.model.scalars import Int64, Quantity
from trainc.records import dataclass

CONFIG_SYNTAX = Rule(
    "config.syntax",
    Severity.ERROR,
    "trainc.yaml is not valid YAML",
)

CONFIG_INVALID = Rule(
    "config.invalid",
    Severity.ERROR,
    "trainc.yaml does not match its schema",
)


CONFIG_API_VERSION = "trainc.dev/v1alpha1"
CONFIG_FILE_NAME = "trainc.yaml"
#: What marks a directory as written by ``trainc compile -o DIR``: the list of the files
#: trainc owns there (the writer keeps it; discovery leaves such a directory alone).
OWNERSHIP_FILE_NAME = ".trainc-owned"

Values = Annotated[JsonObject, FreeForm()]


@dataclass(frozen=True, slots=True, kw_only=True)
class InputsConfig:
    """Which files of the repository are inputs."""

    include: list[Annotated[str, MinLength(1)]] | None = None
    """Glob patterns relative to the repository root; ``**`` matches any depth.

    Default: ``**/*.yaml``, ``**/*.yml``, ``**/*.json``, ``**/*.yaml.j2``, ``**/*.yml.j2``
    (``*.json`` as strict JSON, the way kubectl and Argo CD read it).
    """

    exclude: list[Annotated[str, MinLength(1)]] | None = None
    """Glob patterns of files to skip, e.g. the directory compiled output goes to."""

    runtimes: list[Annotated[str, MinLength(1)]] | None = None
    """Glob patterns of the files that define runtimes, e.g. ``runtimes/**``.

    When set, a run on a few named files (the pre-commit hook) looks for the runtimes of
    their TrainJobs only there, instead of reading the whole repository; a run over the
    whole repository warns about a runtime defined anywhere else. Default: anywhere.
    """


@dataclass(frozen=True, slots=True, kw_only=True)
class EnvironmentConfig:
    """Settings of one environment, chosen with ``--env NAME``."""

    values: Values | None = None
    """Template values merged over the top-level ``values`` (deeply, this side wins)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PoliciesConfig:
    """Organisation policies and the built-in policy pack."""

    paths: list[Annotated[str, MinLength(1)]] | None = None
    """Directories with policy files, relative to the repository root (default ``policies``)."""

    enable: list[Annotated[str, MinLength(1)]] | None = None
    """Built-in policies to turn on, by name (all are off by default)."""

    disable: list[Annotated[str, MinLength(1)]] | None = None
    """Repository policies to turn off, by name."""

    params: dict[str, Values] | None = None
    """Parameters per policy name, merged over the policy's own ``spec.params``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LimitsConfig:
    """Bounds that keep hostile input from exhausting memory or time."""

    max_file_bytes: Annotated[Int64 | None, Minimum(1)] = None
    """Largest input file read, in bytes (default 4 MiB)."""

    max_yaml_nodes: Annotated[Int64 | None, Minimum(1)] = None
    """Most YAML nodes one file may expand to, aliases counted each time (default 1,000,000)."""

    max_depth: Annotated[Int64 | None, Minimum(1)] = None
    """Deepest nesting of mappings and sequences (default 100)."""

    max_documents: Annotated[Int64 | None, Minimum(1)] = None
    """Most YAML documents one file may hold, empty ones counted (default 10,000)."""


_OBJECT_NAME = Pattern(patterns.DNS1123_SUBDOMAIN.anchored)
_NAMESPACE = Pattern(patterns.DNS1123_LABEL.anchored)


@dataclass(frozen=True, slots=True, kw_only=True)
class MPICompileConfig:
    """How compiled MPI jobs get their SSH keys, which trainc never writes into manifests."""

    ssh_auth_secret: Annotated[str | None, MaxLength(253), _OBJECT_NAME] = None
    """Name of a ``kubernetes.io/ssh-auth`` Secret (keys ``ssh-privatekey`` and
    ``ssh-publickey``) that exists in every namespace running MPI jobs; the pods mount it
    where Trainer would mount its per-job generated Secret."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FluxCompileConfig:
    """How compiled Flux jobs get their CURVE certificate."""

    curve_secret: Annotated[str | None, MaxLength(253), _OBJECT_NAME] = None
    """Name of a Secret with key ``curve.cert`` in every namespace running Flux jobs."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CompileConfig:
    """Settings of ``trainc compile``."""

    output: Annotated[str | None, MinLength(1)] = None
    """Default output directory for ``trainc compile`` when ``-o`` is not given."""

    volume_claim_policies: Literal["Emit", "Native"] | None = None
    """``Emit`` (default) writes KEP-572 claims as PersistentVolumeClaim manifests;
    ``Native`` leaves ``volumeClaimPolicies`` in the JobSet for JobSet >= 0.11 to create."""

    mpi: MPICompileConfig | None = None
    """MPI settings."""

    flux: FluxCompileConfig | None = None
    """Flux settings."""

    apply: Literal["ClientSide", "ServerSide"] | None = None
    """How the output is applied. ``ClientSide`` (default: ``kubectl apply``, Argo CD's
    default) keeps a copy of each object in its ``last-applied-configuration`` annotation,
    which must fit the API server's 256 KiB annotation limit; ``ServerSide`` (Flux; Argo CD
    with ``ServerSideApply=true``; ``kubectl apply --server-side``) keeps none."""

    namespaces: Literal["Omit", "Emit"] | None = None
    """``Omit`` (default) expects the namespaces the output uses to exist already (made
    by the platform team, or by Argo CD's ``CreateNamespace=true``). ``Emit`` adds a
    Namespace object for each: the jobs' namespaces and the sweeper's, so that
    ``kubectl apply -k`` of the output works on an empty cluster. They are marked so that
    neither Argo CD nor Flux ever prunes them: removing a namespace's last job must not
    delete the namespace and everything else in it."""


_CRON = Pattern(patterns.CRON_SCHEDULE.anchored)


@dataclass(frozen=True, slots=True, kw_only=True)
class SweeperResources:
    """Compute resources of the sweeper's container, merged over trainc's defaults."""

    requests: dict[str, Quantity] | None = None
    """Requests by resource name; the defaults are ``cpu: 50m`` and ``memory: 64Mi``."""

    limits: dict[str, Quantity] | None = None
    """Limits by resource name; the default is ``memory: 256Mi``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SweeperConfig:
    """The in-cluster sweeper: a CronJob running ``trainc sweep``, emitted by ``trainc compile``.

    It enforces what no controller enforces once Trainer is out of the loop: TrainJob
    deadlines, runtime TTLs, progress deadlines, and the removal of orphaned companions.
    """

    image: Annotated[str, Pattern(patterns.NO_WHITESPACE.anchored)]
    """Image with trainc installed (the repository's ``Dockerfile`` builds it); pin a tag
    or digest, e.g. ``ghcr.io/example/trainc:0.1.0``."""

    namespace: Annotated[str | None, MaxLength(63), _NAMESPACE] = None
    """Namespace of the CronJob and its ServiceAccount (default ``trainc-system``); it must
    exist."""

    schedule: Annotated[str | None, _CRON] = None
    """How often the sweeper runs, in cron syntax (default ``*/5 * * * *``)."""

    scope: Literal["Namespaced", "Cluster"] | None = None
    """``Namespaced`` (default): a Role and RoleBinding in every namespace holding compiled
    TrainJobs, and only those namespaces are swept. ``Cluster``: one ClusterRole and
    ClusterRoleBinding, and every namespace is swept."""

    service_account_name: Annotated[str | None, MaxLength(52), _OBJECT_NAME] = None
    """Name of the ServiceAccount, and of the CronJob and RBAC objects (default
    ``trainc-sweeper``); at most 52 characters, the CronJob name limit."""

    grace_seconds: Annotated[Int64 | None, Minimum(0)] = None
    """Age, in seconds, a PodGroup, claim or ConfigMap without its JobSet must reach before
    it is collected (default 600): a GitOps sync applies them ahead of the JobSet."""

    resources: SweeperResources | None = None
    """Requests and limits of the sweeper's container, merged over the defaults."""

    image_pull_secrets: list[Annotated[str, MaxLength(253), _OBJECT_NAME]] | None = None
    """Secrets in the sweeper's namespace for pulling a private ``image``."""


#: A Pod Security level, as the PodSecurity admission plugin's configuration names one.
PodSecurityLevel = Literal["privileged", "baseline", "restricted"]
#: ``latest`` or ``v1.N`` (no leading zero), what the plugin's ``ParseVersion`` accepts.
_POD_SECURITY_VERSION = Pattern(patterns.POD_SECURITY_VERSION.anchored)


@dataclass(frozen=True, slots=True, kw_only=True)
class PodSecurityDefaultsConfig:
    """What the PodSecurity plugin applies to a namespace without Pod Security labels.

    The ``defaults`` of the plugin's ``PodSecurityConfiguration``
    (``pod-security.admission.config.k8s.io/v1``), under the same keys, so the cluster's
    ``AdmissionConfiguration`` can be copied here as it is. A label on a namespace
    overrides its mode.
    """

    enforce: PodSecurityLevel | None = None
    """Level whose violations refuse a pod (default ``privileged``: none)."""

    enforce_version: Annotated[str | None, Json("enforce-version"), _POD_SECURITY_VERSION] = None
    """Version of the enforced level's checks: ``latest`` (default) or ``v1.N``."""

    warn: PodSecurityLevel | None = None
    """Level whose violations are returned to the client as warnings (default
    ``privileged``)."""

    warn_version: Annotated[str | None, Json("warn-version"), _POD_SECURITY_VERSION] = None
    """Version of the warned level's checks (default ``latest``)."""

    audit: PodSecurityLevel | None = None
    """Level whose violations are noted in the audit log (default ``privileged``)."""

    audit_version: Annotated[str | None, Json("audit-version"), _POD_SECURITY_VERSION] = None
    """Version of the audited level's checks (default ``latest``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PodSecurityExemptionsConfig:
    """Who and what the PodSecurity plugin never judges: its configuration's ``exemptions``."""

    usernames: list[Annotated[str, MinLength(1)]] | None = None
    """Authenticated users whose requests are exempt, e.g. a controller's service account
    ``system:serviceaccount:NAMESPACE:NAME`` (the creator of a pod is the Job controller)."""

    runtime_classes: list[Annotated[str, MaxLength(253), _OBJECT_NAME]] | None = None
    """RuntimeClass names; a pod whose ``runtimeClassName`` is one of them is exempt."""

    namespaces: list[Annotated[str, MaxLength(63), _NAMESPACE]] | None = None
    """Namespaces whose pods are exempt, whatever their labels say."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PodSecurityConfig:
    """The PodSecurity admission plugin's configuration (``PodSecurityConfiguration``)."""

    defaults: PodSecurityDefaultsConfig | None = None
    """Levels and versions for namespaces without Pod Security labels."""

    exemptions: PodSecurityExemptionsConfig | None = None
    """Users, RuntimeClasses and namespaces the plugin never judges."""


@dataclass(frozen=True, slots=True, kw_only=True)
class IdentityConfig:
    """Who sends a request to the API server, as admission policies see it in
    ``request.userInfo``."""

    username: Annotated[str, MinLength(1)]
    """The authenticated user name, e.g. a service account's
    ``system:serviceaccount:argocd:argocd-application-controller``."""

    groups: list[Annotated[str, MinLength(1)]] | None = None
    """The user's groups. Default: for a service account's name, the groups the API server
    gives every service account (``system:serviceaccounts``,
    ``system:serviceaccounts:NAMESPACE``, ``system:authenticated``); else
    ``system:authenticated``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class IdentitiesConfig:
    """Who creates each object a TrainJob leads to, since policies match on the creator."""

    gitops: IdentityConfig | None = None
    """The GitOps tool that applies the repository's objects (JobSets, PodGroups, claims,
    ConfigMaps, Namespaces, the sweeper's objects). Default: Argo CD's application
    controller, ``system:serviceaccount:argocd:argocd-application-controller``."""

    jobset_controller: IdentityConfig | None = None
    """The JobSet controller, which creates the Jobs. Default: its manager's service
    account in JobSet's default install,
    ``system:serviceaccount:jobset-system:jobset-controller-manager``."""

    job_controller: IdentityConfig | None = None
    """The Job controller of kube-controller-manager, which creates the pods. Default:
    ``system:serviceaccount:kube-system:job-controller``."""

    cronjob_controller: IdentityConfig | None = None
    """The CronJob controller of kube-controller-manager, which creates the sweeper's
    Jobs. Default: ``system:serviceaccount:kube-system:cronjob-controller``."""

    trainer_controller: IdentityConfig | None = None
    """With ``deploy: TrainJob``, the Kubeflow Trainer controller, which creates each
    TrainJob's JobSet, PodGroup and ConfigMaps. Default: its manager's service account as
    Trainer's manifests install it,
    ``system:serviceaccount:kubeflow-system:kubeflow-trainer-controller-manager``."""


#: A quota scope, as ``ScopedResourceSelectorRequirement.scopeName`` names one.
QuotaScopeName = Literal[
    "Terminating",
    "NotTerminating",
    "BestEffort",
    "NotBestEffort",
    "PriorityClass",
    "CrossNamespacePodAffinity",
    "VolumeAttributesClass",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ScopeRequirementConfig:
    """A scope an object is in (``ScopedResourceSelectorRequirement``), as a ResourceQuota's
    ``scopeSelector.matchExpressions`` writes one."""

    scope_name: QuotaScopeName
    """The scope, e.g. ``PriorityClass``."""

    operator: Literal["In", "NotIn", "Exists", "DoesNotExist"]
    """How ``values`` select: ``In`` and ``NotIn`` need values, ``Exists`` and
    ``DoesNotExist`` none."""

    values: list[str] | None = None
    """For ``PriorityClass``, the class names."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LimitedResourceConfig:
    """A resource whose consumption needs a covering quota: one item of the ResourceQuota
    plugin's ``limitedResources``, under the same keys."""

    api_group: str | None = None
    """The API group of the objects it limits; empty (default) for the core group."""

    resource: Annotated[str, MinLength(1)]
    """The objects it limits, by plural resource: ``pods``, ``persistentvolumeclaims``."""

    match_contains: list[Annotated[str, MinLength(1)]] | None = None
    """Resource names: an object that consumes a quota resource whose name contains one of
    them (``requests.storage`` in ``storageclass.storage.k8s.io/requests.storage``) is
    refused unless a quota of its namespace tracks that resource."""

    match_scopes: list[ScopeRequirementConfig] | None = None
    """Scopes: an object in one of them is refused unless a quota of its namespace has a
    scope selector of the same scope that selects it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ResourceQuotaConfig:
    """The ResourceQuota admission plugin's configuration (``ResourceQuotaConfiguration``,
    ``apiserver.config.k8s.io/v1``), so the cluster's can be copied here as it is."""

    limited_resources: list[LimitedResourceConfig] | None = None
    """Resources and scopes that only a namespace with a covering quota may consume
    (GKE, for one, limits the ``system-node-critical`` and ``system-cluster-critical``
    classes to namespaces with a quota for them)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterConfig:
    """The cluster the repository deploys to: its own objects and admission settings.

    Admission checks judge what the cluster would refuse with them; without this section
    the cluster is unknown, and nothing is judged.
    """

    manifests: list[Annotated[str, MinLength(1)]] | None = None
    """Glob patterns relative to the repository root, as in ``inputs``, of the files that
    hold the cluster's own objects, e.g. ``platform/**/*.yaml``: Namespaces,
    ValidatingAdmissionPolicies and their bindings and parameters, LimitRanges,
    ResourceQuotas, PriorityClasses, Kueue's queues and flavors. They are read as what
    they are, never compiled. Objects of those kinds among the inputs count too."""

    pod_security: PodSecurityConfig | None = None
    """The PodSecurity admission plugin's configuration: defaults and exemptions."""

    identities: IdentitiesConfig | None = None
    """Who creates what, for policies that match on ``request.userInfo``."""

    resource_quota: ResourceQuotaConfig | None = None
    """The ResourceQuota admission plugin's configuration: its ``limitedResources``."""


RuleLevel = Literal["error", "warning", "off"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PathRulesConfig:
    """Rule severities for some files only, as ruff's ``per-file-ignores``."""

    paths: Annotated[list[Annotated[str, MinLength(1)]], MinItems(1)]
    """Glob patterns relative to the repository root, as in ``inputs``, e.g.
    ``experiments/**``; a finding in a file one of them matches takes ``rules``."""

    rules: dict[str, RuleLevel]
    """Severity by rule code, over the top-level ``rules``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RepoConfigFile:
    """``trainc.yaml`` at the repository root; every field is optional."""

    api_version: Literal["trainc.dev/v1alpha1"] | None = None
    """``trainc.dev/v1alpha1``; recommended so future formats can be told apart."""

    kind: Literal["Config"] | None = None
    """``Config``."""

    inputs: InputsConfig | None = None
    """Which files are inputs."""

    namespace: Annotated[str | None, _NAMESPACE] = None
    """Namespace of namespaced objects that set none. Default: under Argo CD the
    Application's destination namespace, else ``default``; set it only to override that."""

    namespaces: list[Annotated[str, MaxLength(63), _NAMESPACE]] | None = None
    """The namespaces TrainJobs may run in, e.g. ``[research, vision]``. A TrainJob that
    names another one (a typo such as ``reserch``, which would get its own sweeper Role)
    gets the warning ``compile.unknown-namespace``. Namespace manifests in the repository
    add to the list (in a run over the whole repository). Without either, namespaces are
    not checked."""

    deploy: Literal["JobSet", "TrainJob"] | None = None
    """What reaches the cluster. ``JobSet`` (default): the manifests ``trainc compile``
    writes, with no Trainer controller in the cluster. ``TrainJob``: validate-only, for
    teams whose TrainJobs go to the Trainer controller as they are; ``trainc validate`` and
    its hook judge them, the rules about compiled JobSets and the sweeper are off, and
    ``trainc compile`` is not used."""

    kubernetes_version: Annotated[str | None, Pattern(patterns.KUBERNETES_MINOR.anchored)] = None
    """Kubernetes minor version the cluster runs, from ``1.29`` to ``1.36`` (the releases
    trainc knows the rules of); selects the rules and core schemas Jobs and Pods are judged
    by. Default: under Argo CD the destination cluster's (``KUBE_VERSION``), else ``1.33``;
    set, it wins over Argo CD's."""

    values: Values | None = None
    """Values available to ``*.j2`` templates."""

    environments: dict[str, EnvironmentConfig] | None = None
    """Per-environment overrides, chosen with ``--env NAME``."""

    policies: PoliciesConfig | None = None
    """Organisation policies."""

    limits: LimitsConfig | None = None
    """Resource bounds for reading input."""

    compile: CompileConfig | None = None
    """Settings of ``trainc compile``."""

    sweeper: SweeperConfig | None = None
    """The in-cluster sweeper ``trainc compile`` emits; without this section, none."""

    cluster: ClusterConfig | None = None
    """The cluster's own objects and admission settings; without this section, none."""

    rules: dict[str, RuleLevel] | None = None
    """Severity of any rule by code (``error``, ``warning`` or ``off``), e.g.
    ``compile.plaintext-credential: error``. A rule the cluster enforces may be turned
    off too: trainc then passes what the cluster refuses (docs/suppressions.md)."""

    per_path_rules: list[PathRulesConfig] | None = None
    """Severities for the files some globs match, over ``rules``; of the entries that
    match a file and set a code, the last wins."""
