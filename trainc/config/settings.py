"""The repository configuration trainc runs with: ``trainc.yaml`` plus the choices of one run.

Reading and validating the file is the façade's job (it has the loader and the
structural validator); this module turns the validated file, ``--env`` and any
:class:`Overrides` (an Argo CD Application's, see :mod:`trainc.argocd`) into
:class:`RepoConfig`, and finds the repository root.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Final, Literal

from trainc.config.file import (
    CONFIG_FILE_NAME,
    ClusterConfig,
    CompileConfig,
    IdentityConfig,
    RepoConfigFile,
    ResourceQuotaConfig,
    SweeperConfig,
    SweeperResources,
)
from trainc.config.limits import InputLimits
from trainc.errors import UsageError
from trainc.model.json import JsonObject, JsonValue
from trainc.records import dataclass

DEFAULT_INCLUDE: tuple[str, ...] = (
    "**/*.yaml",
    "**/*.yml",
    "**/*.json",
    "**/*.yaml.j2",
    "**/*.yml.j2",
)
DEFAULT_POLICY_PATHS: tuple[str, ...] = ("policies",)
DEFAULT_NAMESPACE = "default"
DEFAULT_KUBERNETES_VERSION = "1.33"

SweeperScope = Literal["Namespaced", "Cluster"]

#: trainc.yaml's ``deploy``: what reaches the cluster. trainc's compiled JobSets (the
#: default), or the TrainJobs themselves, to the Trainer controller (validate-only).
Deploy = Literal["JobSet", "TrainJob"]
DEPLOY_JOBSET: Final[Deploy] = "JobSet"
DEPLOY_TRAINJOB: Final[Deploy] = "TrainJob"

#: The sweeper's defaults: every five minutes, namespaced RBAC, and ten minutes' grace for
#: companions a GitOps sync applied ahead of their JobSet.
DEFAULT_SWEEPER_NAMESPACE: Final = "trainc-system"
DEFAULT_SWEEPER_SCHEDULE: Final = "*/5 * * * *"
DEFAULT_SWEEPER_SCOPE: Final[SweeperScope] = "Namespaced"
DEFAULT_SWEEPER_ACCOUNT: Final = "trainc-sweeper"
DEFAULT_SWEEPER_GRACE_SECONDS: Final = 600
#: A sweep lists a few kinds and patches or deletes a handful of objects: a small request
#: keeps it schedulable anywhere, and the memory limit bounds a namespace with huge lists.
DEFAULT_SWEEPER_REQUESTS: Final[Mapping[str, str]] = {"cpu": "50m", "memory": "64Mi"}
DEFAULT_SWEEPER_LIMITS: Final[Mapping[str, str]] = {"memory": "256Mi"}

#: Placeholders ``trainc init`` writes where it cannot know a team's choice: the image
#: repository of the sweeper (any tag) and the git repository pre-commit fetches trainc
#: from. Validation warns while they are still in place (``config.placeholder``).
PLACEHOLDER_IMAGE_REPOSITORY: Final = "ghcr.io/example/trainc"
PLACEHOLDER_PROJECT_URL: Final = "https://github.com/example/trainc"


@dataclass(frozen=True, slots=True, kw_only=True)
class PolicySettings:
    """Which policies run, with which parameters."""

    paths: tuple[str, ...] = DEFAULT_POLICY_PATHS
    enable: frozenset[str] = frozenset()
    disable: frozenset[str] = frozenset()
    params: Mapping[str, JsonObject] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class CompileSettings:
    """Choices about building that cannot come from a TrainJob or its runtime.

    ``mpi_ssh_secret`` names the ``kubernetes.io/ssh-auth`` Secret MPI pods mount instead
    of the per-job Secret Trainer would generate: trainc never emits key material, so
    the Secret is provisioned out of band (sealed-secrets, External Secrets, ...).
    ``native_volume_claims`` keeps ``volumeClaimPolicies`` for the JobSet controller
    (JobSet >= 0.11) instead of emitting the claims as PersistentVolumeClaims.
    ``server_side_apply`` says the output is applied server-side, which stores no
    ``last-applied-configuration`` copy of each object. ``emit_namespaces`` adds a
    Namespace object for every namespace the output uses.
    """

    output: str | None = None
    native_volume_claims: bool = False
    mpi_ssh_secret: str | None = None
    flux_curve_secret: str | None = None
    server_side_apply: bool = False
    emit_namespaces: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class SweeperSettings:
    """The sweeper ``trainc compile`` emits, with every default applied.

    ``requests`` and ``limits`` are the container's, trainc's defaults with the
    configured entries merged over them resource by resource.
    """

    image: str
    namespace: str = DEFAULT_SWEEPER_NAMESPACE
    schedule: str = DEFAULT_SWEEPER_SCHEDULE
    scope: SweeperScope = DEFAULT_SWEEPER_SCOPE
    service_account_name: str = DEFAULT_SWEEPER_ACCOUNT
    grace_seconds: int = DEFAULT_SWEEPER_GRACE_SECONDS
    requests: Mapping[str, JsonValue] = field(
        default_factory=lambda: dict(DEFAULT_SWEEPER_REQUESTS)
    )
    limits: Mapping[str, JsonValue] = field(default_factory=lambda: dict(DEFAULT_SWEEPER_LIMITS))
    image_pull_secrets: tuple[str, ...] = ()


#: The PodSecurity plugin's own defaults for a namespace without labels
#: (``SetDefaults_PodSecurityDefaults`` in
#: https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/admission/api/v1/defaults.go):
#: every mode ``privileged`` at ``latest``.
DEFAULT_POD_SECURITY_LEVEL: Final = "privileged"
DEFAULT_POD_SECURITY_VERSION: Final = "latest"

#: Who creates what, by default. Argo CD applies with its application controller's
#: service account (``argocd-application-controller`` in
#: https://github.com/argoproj/argo-cd/tree/master/manifests/base/application-controller,
#: installed in the ``argocd`` namespace); JobSet's install puts its manager's service
#: account ``controller-manager`` under the ``jobset-`` prefix in ``jobset-system``
#: (https://github.com/kubernetes-sigs/jobset/blob/main/config/default/kustomization.yaml);
#: kube-controller-manager runs the Job controller with the credentials of
#: ``job-controller`` in ``kube-system`` (``ClientOrDie("job-controller")`` in
#: https://github.com/kubernetes/kubernetes/blob/v1.36.0/cmd/kube-controller-manager/app/batch.go).
DEFAULT_GITOPS_USER: Final = "system:serviceaccount:argocd:argocd-application-controller"
DEFAULT_JOBSET_CONTROLLER_USER: Final = (
    "system:serviceaccount:jobset-system:jobset-controller-manager"
)
DEFAULT_JOB_CONTROLLER_USER: Final = "system:serviceaccount:kube-system:job-controller"
#: kube-controller-manager runs the CronJob controller as ``cronjob-controller`` in
#: ``kube-system`` (its bootstrap role ``system:controller:cronjob-controller`` in
#: https://github.com/kubernetes/kubernetes/blob/v1.36.0/plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go);
#: Trainer's manifests install its manager as the service account
#: ``kubeflow-trainer-controller-manager`` in ``kubeflow-system``
#: (https://github.com/kubeflow/trainer/blob/master/manifests/base/rbac/serviceaccount.yaml).
DEFAULT_CRONJOB_CONTROLLER_USER: Final = "system:serviceaccount:kube-system:cronjob-controller"
DEFAULT_TRAINER_CONTROLLER_USER: Final = (
    "system:serviceaccount:kubeflow-system:kubeflow-trainer-controller-manager"
)

#: How the API server names a service account and its groups (``MakeUsername``,
#: ``MakeGroupNames`` in
#: https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/apiserver/pkg/authentication/serviceaccount/util.go),
#: and the group its authenticator adds for every authenticated user.
SERVICE_ACCOUNT_PREFIX: Final = "system:serviceaccount:"
ALL_SERVICE_ACCOUNTS_GROUP: Final = "system:serviceaccounts"
AUTHENTICATED_GROUP: Final = "system:authenticated"


@dataclass(frozen=True, slots=True)
class Identity:
    """A user as the API server authenticates it: name and groups."""

    username: str
    groups: tuple[str, ...] = ()


def identity_of(username: str, groups: Sequence[str] | None = None) -> Identity:
    """``username`` with ``groups``, or with the groups the API server would give it.

    A service account (``system:serviceaccount:NAMESPACE:NAME``) belongs to
    ``system:serviceaccounts`` and ``system:serviceaccounts:NAMESPACE``; every
    authenticated user to ``system:authenticated``.
    """
    if groups is not None:
        return Identity(username, tuple(groups))
    namespace, separator, _ = username.removeprefix(SERVICE_ACCOUNT_PREFIX).partition(":")
    if username.startswith(SERVICE_ACCOUNT_PREFIX) and separator and namespace:
        return Identity(
            username,
            (
                ALL_SERVICE_ACCOUNTS_GROUP,
                f"{ALL_SERVICE_ACCOUNTS_GROUP}:{namespace}",
                AUTHENTICATED_GROUP,
            ),
        )
    return Identity(username, (AUTHENTICATED_GROUP,))


@dataclass(frozen=True, slots=True, kw_only=True)
class PodSecurityDefaults:
    """Level and version of each mode for a namespace without Pod Security labels, as
    written (checked by :mod:`trainc.config.cluster`, parsed by the admission checks)."""

    enforce: str = DEFAULT_POD_SECURITY_LEVEL
    enforce_version: str = DEFAULT_POD_SECURITY_VERSION
    warn: str = DEFAULT_POD_SECURITY_LEVEL
    warn_version: str = DEFAULT_POD_SECURITY_VERSION
    audit: str = DEFAULT_POD_SECURITY_LEVEL
    audit_version: str = DEFAULT_POD_SECURITY_VERSION


@dataclass(frozen=True, slots=True)
class ScopeRequirement:
    """A quota scope requirement of the ResourceQuota plugin's configuration."""

    scope_name: str
    operator: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LimitedResource:
    """One ``limitedResources`` item: which objects, which resource names, which scopes."""

    api_group: str
    resource: str
    match_contains: tuple[str, ...] = ()
    match_scopes: tuple[ScopeRequirement, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class PodSecurityExemptions:
    """Users, RuntimeClasses and namespaces the PodSecurity plugin never judges."""

    usernames: tuple[str, ...] = ()
    runtime_classes: tuple[str, ...] = ()
    namespaces: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterSettings:
    """trainc.yaml's ``cluster`` section with every default applied.

    ``manifests`` are the root-relative globs of the files holding the cluster's objects.
    ``gitops``, ``jobset_controller`` and ``job_controller`` are who creates the
    repository's objects, the child Jobs and the pods; ``cronjob_controller`` creates the
    sweeper's Jobs, and ``trainer_controller`` a TrainJob's objects with ``deploy:
    TrainJob``.
    """

    manifests: tuple[str, ...] = ()
    pod_security_defaults: PodSecurityDefaults = field(default_factory=PodSecurityDefaults)
    pod_security_exemptions: PodSecurityExemptions = field(default_factory=PodSecurityExemptions)
    gitops: Identity = field(default_factory=lambda: identity_of(DEFAULT_GITOPS_USER))
    jobset_controller: Identity = field(
        default_factory=lambda: identity_of(DEFAULT_JOBSET_CONTROLLER_USER)
    )
    job_controller: Identity = field(
        default_factory=lambda: identity_of(DEFAULT_JOB_CONTROLLER_USER)
    )
    limited_resources: tuple[LimitedResource, ...] = ()
    cronjob_controller: Identity = field(
        default_factory=lambda: identity_of(DEFAULT_CRONJOB_CONTROLLER_USER)
    )
    trainer_controller: Identity = field(
        default_factory=lambda: identity_of(DEFAULT_TRAINER_CONTROLLER_USER)
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Overrides:
    """Choices made outside trainc.yaml for one run, such as an Argo CD Application's.

    ``environment`` applies when no ``--env`` was given, and ``environment_source`` names
    where it came from for the message when trainc.yaml does not define it. ``namespace``
    wins over trainc.yaml's ``namespace``; ``default_namespace`` and ``kubernetes_version``
    only fill in what trainc.yaml leaves unset.
    """

    environment: str | None = None
    environment_source: str = "--env"
    namespace: str | None = None
    default_namespace: str | None = None
    kubernetes_version: str | None = None


@dataclass(frozen=True, slots=True)
class PathRules:
    """Rule levels (by code: ``error``, ``warning`` or ``off``) for the files that
    ``paths``, root-relative globs, match."""

    paths: tuple[str, ...]
    rules: Mapping[str, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class RepoConfig:
    """Everything a run needs to know about the repository, resolved and immutable.

    ``rules`` and ``path_rules`` are the rule levels of trainc.yaml's ``rules`` and
    ``perPathRules`` (applied by :mod:`trainc.config.judgement`).
    ``overridden_destination`` is the Argo CD Application's destination namespace when
    trainc.yaml's ``namespace`` won over it with another name (validation warns).
    ``namespaces`` is trainc.yaml's list of the namespaces TrainJobs may use (None: the
    repository names none, and TrainJob namespaces are not checked against it).
    ``deploy`` is :data:`DEPLOY_TRAINJOB` when the repository is only validated.
    ``cluster`` is trainc.yaml's ``cluster`` section (None without one: the cluster's
    objects and admission settings are unknown, and no admission check runs).
    """

    root: Path
    config_file: str | None = None
    deploy: Deploy = DEPLOY_JOBSET
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = ()
    runtimes: tuple[str, ...] = ()
    namespace: str = DEFAULT_NAMESPACE
    kubernetes_version: str = DEFAULT_KUBERNETES_VERSION
    environment: str | None = None
    template_values: JsonObject = field(default_factory=dict)
    policies: PolicySettings = field(default_factory=PolicySettings)
    limits: InputLimits = field(default_factory=InputLimits)
    compile: CompileSettings = field(default_factory=CompileSettings)
    sweeper: SweeperSettings | None = None
    rules: Mapping[str, str] = field(default_factory=dict)
    path_rules: tuple[PathRules, ...] = ()
    overridden_destination: str | None = None
    namespaces: frozenset[str] | None = None
    cluster: ClusterSettings | None = None


def find_repo_root(start: Path) -> Path:
    """The nearest directory at or above ``start`` with a trainc.yaml or a .git, else ``start``."""
    start = start.resolve()
    return _marked_root(start) or start


def _marked_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` holding a trainc.yaml or a .git.

    A trainc.yaml below the top of a git repository (``ml/trainc.yaml``) makes its
    directory the root; the walk never goes above a ``.git``, as mypy's search for its
    configuration stops there.
    """
    for directory in (start, *start.parents):
        if (directory / CONFIG_FILE_NAME).is_file() or (directory / ".git").exists():
            return directory
    return None


def path_from_git_top(root: Path) -> str:
    """``root``'s path from the top of the git repository holding it, ``""`` at the top or
    outside git.

    Findings name files relative to ``root`` (trainc.yaml's directory); the machine
    formats prefix this, since GitHub places annotations and code-scanning alerts by a
    path from the top of the checkout, which with ``ml/trainc.yaml`` is ``ml/jobs/a.yaml``.
    A ``.git`` file (a worktree, a submodule) marks a top as well as a directory does.
    """
    resolved = root.resolve()
    for directory in (resolved, *resolved.parents):
        if (directory / ".git").exists():
            relative = resolved.relative_to(directory).as_posix()
            return "" if relative == "." else relative
    return ""


def find_paths_root(paths: Sequence[Path], cwd: Path) -> Path:
    """The repository the command-line ``paths`` (relative to ``cwd``) belong to.

    As ruff and mypy find their configuration from the files they check, the root is the
    nearest directory at or above each path (a file's own directory) that holds a
    trainc.yaml or a .git, so ``trainc validate ~/team-repo`` and ``trainc validate
    examples/`` read the configuration of the repository named. Without paths it is the
    working directory's; paths under no such directory at all fall back to it too, when
    they lie inside it, and otherwise to the directory they share. Raises UsageError for
    a path that does not exist, and for paths of different repositories, naming each
    path's root: one run reads one trainc.yaml.
    """
    if not paths:
        return find_repo_root(cwd)
    # By real path (None: under no marker), so a root reached through a link is one root.
    roots: dict[Path | None, list[tuple[Path, Path | None]]] = {}
    for given in paths:
        absolute = Path(os.path.normpath(cwd / given))
        if not os.path.lexists(absolute):
            raise UsageError(f"{given}: no such file or directory")
        root = _marked_root(absolute if absolute.is_dir() else absolute.parent)
        key = Path(os.path.realpath(root)) if root is not None else None
        roots.setdefault(key, []).append((given, root))
    if len(roots) > 1:
        described = "; ".join(
            f"{given} in {root if root is not None else 'no repository'}"
            for found in roots.values()
            for given, root in found
        )
        raise UsageError(
            f"the paths belong to different repositories ({described}): one run reads one "
            f"{CONFIG_FILE_NAME}; run trainc once per repository, or name the one to use "
            "with --config"
        )
    [(key, found)] = roots.items()
    if key is not None:
        return found[0][1] or key  # as the first path reached it
    return _unmarked_root([Path(os.path.normpath(cwd / given)) for given, _ in found], cwd)


def _unmarked_root(paths: Sequence[Path], cwd: Path) -> Path:
    """The root of paths with no trainc.yaml or .git above them: the working directory
    when they are inside it (as without paths), else the directory they share."""
    here = Path(os.path.normpath(cwd))
    if all(path.is_relative_to(here) for path in paths):
        return here
    directories = [path if path.is_dir() else path.parent for path in paths]
    return Path(os.path.commonpath(directories))


def merge_values(base: JsonObject, override: JsonObject) -> JsonObject:
    """Deep merge of template values: mappings merge key by key, anything else is replaced."""
    merged: dict[str, JsonValue] = dict(base)
    for key, value in override.items():
        current = merged.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            merged[key] = merge_values(current, value)
        else:
            merged[key] = value
    return merged


def build_config(
    root: Path,
    file: RepoConfigFile | None,
    *,
    config_file: str | None,
    environment: str | None,
    overrides: Overrides | None = None,
) -> RepoConfig:
    """Resolve a validated config file, the ``--env`` choice and ``overrides`` into a RepoConfig.

    An explicit ``environment`` wins over ``overrides.environment``. Raises UsageError for
    an environment the file does not define: that is a mistake in the request, not a
    problem in the repository.
    """
    file = file or RepoConfigFile()
    overrides = overrides or Overrides()
    source = "--env" if environment is not None else overrides.environment_source
    environment = environment if environment is not None else overrides.environment
    values = _template_values(file, environment, source=source, config_file=config_file)
    inputs = file.inputs
    policies = file.policies
    limits = file.limits
    defaults = InputLimits()
    policy_paths = tuple(policies.paths) if policies and policies.paths else DEFAULT_POLICY_PATHS
    compile_settings = _compile_settings(file.compile, file.deploy or DEPLOY_JOBSET)
    # Policy files and compiled output are YAML too, but never inputs: they would only
    # be skipped, noisily (and compiled JobSets are not trainer objects).
    generated = (compile_settings.output,) if compile_settings.output else ()
    exclude = (
        *(inputs.exclude if inputs and inputs.exclude else ()),
        *(f"{path.strip('/')}/**" for path in (*policy_paths, *generated)),
    )
    return RepoConfig(
        root=root,
        config_file=config_file,
        deploy=file.deploy or DEPLOY_JOBSET,
        include=tuple(inputs.include) if inputs and inputs.include else DEFAULT_INCLUDE,
        exclude=exclude,
        runtimes=tuple(inputs.runtimes) if inputs and inputs.runtimes else (),
        namespace=(
            overrides.namespace
            or file.namespace
            or overrides.default_namespace
            or DEFAULT_NAMESPACE
        ),
        overridden_destination=_overridden_destination(file, overrides),
        namespaces=frozenset(file.namespaces) if file.namespaces is not None else None,
        kubernetes_version=(
            file.kubernetes_version or overrides.kubernetes_version or DEFAULT_KUBERNETES_VERSION
        ),
        environment=environment,
        template_values=values,
        policies=PolicySettings(
            paths=policy_paths,
            enable=frozenset(policies.enable or ()) if policies else frozenset(),
            disable=frozenset(policies.disable or ()) if policies else frozenset(),
            params=dict(policies.params or {}) if policies else {},
        ),
        limits=InputLimits(
            max_file_bytes=(limits and limits.max_file_bytes) or defaults.max_file_bytes,
            max_yaml_nodes=(limits and limits.max_yaml_nodes) or defaults.max_yaml_nodes,
            max_depth=(limits and limits.max_depth) or defaults.max_depth,
            max_documents=(limits and limits.max_documents) or defaults.max_documents,
        ),
        compile=compile_settings,
        # Validate-only: the Trainer controller enforces deadlines and TTLs, nothing is
        # compiled, so no sweeper is run whatever the section says.
        sweeper=_sweeper_settings(file.sweeper) if file.deploy != DEPLOY_TRAINJOB else None,
        rules=dict(file.rules or {}),
        path_rules=tuple(
            PathRules(tuple(entry.paths), dict(entry.rules)) for entry in file.per_path_rules or ()
        ),
        cluster=cluster_settings(file.cluster),
    )


def _overridden_destination(file: RepoConfigFile, overrides: Overrides) -> str | None:
    """The destination namespace trainc.yaml's ``namespace`` replaced, if it differs.

    An explicit Argo CD choice (``overrides.namespace``) wins over both, so then nothing
    was overridden by accident.
    """
    destination = overrides.default_namespace
    if overrides.namespace or not file.namespace or not destination:
        return None
    return destination if destination != file.namespace else None


def _template_values(
    file: RepoConfigFile, environment: str | None, *, source: str, config_file: str | None
) -> JsonObject:
    """The top-level ``values`` with ``environment``'s merged over them, when one is chosen."""
    values: JsonObject = dict(file.values or {})
    if environment is None:
        return values
    environments = file.environments or {}
    if environment not in environments:
        known = ", ".join(sorted(environments)) or "none"
        raise UsageError(
            f"{source} {environment}: no such environment in {config_file or CONFIG_FILE_NAME}"
            f" (defined: {known})"
        )
    return merge_values(values, environments[environment].values or {})


def _compile_settings(section: CompileConfig | None, deploy: Deploy) -> CompileSettings:
    """The ``compile`` section with its defaults; in validate-only mode, none of it.

    Nothing is compiled then: the Trainer controller copies the runtime's
    ``volumeClaimPolicies`` into the JobSet it builds
    (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/jobset/builder.go),
    for the JobSet controller to create the claims, so the jobs resolve as ``Native``.
    """
    if deploy == DEPLOY_TRAINJOB:
        return CompileSettings(native_volume_claims=True)
    if section is None:
        return CompileSettings()
    return CompileSettings(
        output=section.output,
        native_volume_claims=section.volume_claim_policies == "Native",
        mpi_ssh_secret=section.mpi.ssh_auth_secret if section.mpi else None,
        flux_curve_secret=section.flux.curve_secret if section.flux else None,
        server_side_apply=section.apply == "ServerSide",
        emit_namespaces=section.namespaces == "Emit",
    )


def _sweeper_settings(section: SweeperConfig | None) -> SweeperSettings | None:
    """The sweeper section with its defaults; None when trainc.yaml has no such section."""
    if section is None:
        return None
    resources = section.resources or SweeperResources()
    return SweeperSettings(
        image=section.image,
        namespace=section.namespace or DEFAULT_SWEEPER_NAMESPACE,
        schedule=section.schedule or DEFAULT_SWEEPER_SCHEDULE,
        scope=section.scope or DEFAULT_SWEEPER_SCOPE,
        service_account_name=section.service_account_name or DEFAULT_SWEEPER_ACCOUNT,
        grace_seconds=(
            DEFAULT_SWEEPER_GRACE_SECONDS
            if section.grace_seconds is None
            else section.grace_seconds
        ),
        requests={**DEFAULT_SWEEPER_REQUESTS, **(resources.requests or {})},
        limits={**DEFAULT_SWEEPER_LIMITS, **(resources.limits or {})},
        image_pull_secrets=tuple(section.image_pull_secrets or ()),
    )


def cluster_settings(section: ClusterConfig | None) -> ClusterSettings | None:
    """The ``cluster`` section with its defaults; None when trainc.yaml has no such section."""
    if section is None:
        return None
    pod_security = section.pod_security
    written = pod_security.defaults if pod_security else None
    exempt = pod_security.exemptions if pod_security else None
    identities = section.identities
    defaults = PodSecurityDefaults(
        enforce=(written and written.enforce) or DEFAULT_POD_SECURITY_LEVEL,
        enforce_version=(written and written.enforce_version) or DEFAULT_POD_SECURITY_VERSION,
        warn=(written and written.warn) or DEFAULT_POD_SECURITY_LEVEL,
        warn_version=(written and written.warn_version) or DEFAULT_POD_SECURITY_VERSION,
        audit=(written and written.audit) or DEFAULT_POD_SECURITY_LEVEL,
        audit_version=(written and written.audit_version) or DEFAULT_POD_SECURITY_VERSION,
    )
    return ClusterSettings(
        manifests=tuple(section.manifests or ()),
        pod_security_defaults=defaults,
        pod_security_exemptions=PodSecurityExemptions(
            usernames=tuple(exempt.usernames or ()) if exempt else (),
            runtime_classes=tuple(exempt.runtime_classes or ()) if exempt else (),
            namespaces=tuple(exempt.namespaces or ()) if exempt else (),
        ),
        gitops=_identity(identities.gitops if identities else None, DEFAULT_GITOPS_USER),
        jobset_controller=_identity(
            identities.jobset_controller if identities else None, DEFAULT_JOBSET_CONTROLLER_USER
        ),
        job_controller=_identity(
            identities.job_controller if identities else None, DEFAULT_JOB_CONTROLLER_USER
        ),
        cronjob_controller=_identity(
            identities.cronjob_controller if identities else None,
            DEFAULT_CRONJOB_CONTROLLER_USER,
        ),
        trainer_controller=_identity(
            identities.trainer_controller if identities else None,
            DEFAULT_TRAINER_CONTROLLER_USER,
        ),
        limited_resources=_limited_resources(section.resource_quota),
    )


def _limited_resources(section: ResourceQuotaConfig | None) -> tuple[LimitedResource, ...]:
    written = section.limited_resources if section else None
    return tuple(
        LimitedResource(
            api_group=item.api_group or "",
            resource=item.resource,
            match_contains=tuple(item.match_contains or ()),
            match_scopes=tuple(
                ScopeRequirement(scope.scope_name, scope.operator, tuple(scope.values or ()))
                for scope in item.match_scopes or ()
            ),
        )
        for item in written or ()
    )


def _identity(written: IdentityConfig | None, default: str) -> Identity:
    if written is None:
        return identity_of(default)
    return identity_of(written.username, written.groups)
