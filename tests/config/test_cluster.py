"""trainc.yaml's ``cluster`` section: its settings, their defaults, and what is refused.

The Pod Security part is the PodSecurity admission plugin's own configuration
(``PodSecurityConfiguration``, pod-security.admission.config.k8s.io/v1), under its keys;
the cases of invalid values follow upstream's ``validation_test.go``
(staging/src/k8s.io/pod-security-admission/admission/api/validation).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.manifests import write
from trainc.app import load_config
from trainc.config.cluster import check_cluster
from trainc.config.settings import (
    ClusterSettings,
    Identity,
    LimitedResource,
    PodSecurityDefaults,
    RepoConfig,
    ScopeRequirement,
)
from trainc.diagnostics import Diagnostic, Severity
from trainc.load.cluster_files import find_cluster_files


def loaded(tmp_path: Path, text: str) -> tuple[RepoConfig, list[Diagnostic]]:
    """The config of a repository whose trainc.yaml is ``text``, and the section's
    findings (the unmatched globs found on disk)."""
    write(tmp_path, "trainc.yaml", text)
    result = load_config(cwd=tmp_path)
    assert result.diagnostics == ()
    assert result.config is not None
    settings = result.config.cluster
    globs = settings.manifests if settings else ()
    unmatched = find_cluster_files(tmp_path, globs).unmatched
    return result.config, check_cluster(result.config, result.document, unmatched)


def problems(tmp_path: Path, text: str) -> list[tuple[str, int | None, str | None]]:
    write(tmp_path, "trainc.yaml", text)
    result = load_config(cwd=tmp_path)
    assert result.config is None
    return [(d.code, d.line, d.field_path) for d in result.diagnostics]


def test_without_the_section_the_cluster_is_unknown(tmp_path: Path) -> None:
    config, found = loaded(tmp_path, "namespace: ml\n")
    assert config.cluster is None
    assert found == []


def test_an_empty_section_takes_the_plugins_and_the_installs_defaults(tmp_path: Path) -> None:
    config, found = loaded(tmp_path, "cluster: {}\n")
    assert found == []
    assert config.cluster == ClusterSettings()
    settings = config.cluster
    # SetDefaults_PodSecurityDefaults: every mode privileged at latest.
    assert settings.pod_security_defaults == PodSecurityDefaults(
        enforce="privileged",
        enforce_version="latest",
        warn="privileged",
        warn_version="latest",
        audit="privileged",
        audit_version="latest",
    )
    assert settings.manifests == ()
    assert settings.gitops == Identity(
        "system:serviceaccount:argocd:argocd-application-controller",
        ("system:serviceaccounts", "system:serviceaccounts:argocd", "system:authenticated"),
    )
    assert settings.jobset_controller.username == (
        "system:serviceaccount:jobset-system:jobset-controller-manager"
    )
    assert settings.jobset_controller.groups == (
        "system:serviceaccounts",
        "system:serviceaccounts:jobset-system",
        "system:authenticated",
    )
    assert settings.job_controller.username == "system:serviceaccount:kube-system:job-controller"
    assert "system:serviceaccounts:kube-system" in settings.job_controller.groups


FULL = """\
cluster:
  manifests: ["platform/**/*.yaml"]
  podSecurity:
    defaults:
      enforce: baseline
      enforce-version: v1.28
      warn: restricted
      audit: restricted
      audit-version: latest
    exemptions:
      usernames: ["system:serviceaccount:infra:deployer"]
      runtimeClasses: [kata]
      namespaces: [kube-system]
  identities:
    gitops:
      username: system:serviceaccount:flux-system:kustomize-controller
    jobController:
      username: job-controller
      groups: [system:kube-controller-manager]
"""


def test_every_setting_is_read_under_the_plugins_own_keys(tmp_path: Path) -> None:
    write(tmp_path, "platform/namespaces.yaml", "apiVersion: v1\nkind: Namespace\n")
    config, found = loaded(tmp_path, FULL)
    assert found == []
    settings = config.cluster
    assert settings is not None
    assert settings.manifests == ("platform/**/*.yaml",)
    assert settings.pod_security_defaults == PodSecurityDefaults(
        enforce="baseline",
        enforce_version="v1.28",
        warn="restricted",
        warn_version="latest",
        audit="restricted",
        audit_version="latest",
    )
    exempt = settings.pod_security_exemptions
    assert exempt.usernames == ("system:serviceaccount:infra:deployer",)
    assert exempt.runtime_classes == ("kata",)
    assert exempt.namespaces == ("kube-system",)
    # A service account's groups come with its name; written groups replace them.
    assert settings.gitops.groups == (
        "system:serviceaccounts",
        "system:serviceaccounts:flux-system",
        "system:authenticated",
    )
    assert settings.job_controller == Identity(
        "job-controller", ("system:kube-controller-manager",)
    )
    assert settings.jobset_controller.username.endswith(":jobset-system:jobset-controller-manager")


def test_a_user_that_is_no_service_account_is_only_authenticated(tmp_path: Path) -> None:
    config, _ = loaded(tmp_path, "cluster:\n  identities:\n    gitops: {username: alice}\n")
    assert config.cluster is not None
    assert config.cluster.gitops == Identity("alice", ("system:authenticated",))


@pytest.mark.parametrize(
    ("line", "field_path"),
    [
        # ParseLevel: "must be one of privileged, baseline, restricted".
        ("    defaults: {enforce: strict}", "cluster.podSecurity.defaults.enforce"),
        ("    defaults: {warn: Baseline}", "cluster.podSecurity.defaults.warn"),
        # ParseVersion: only "latest" or "v1.x" without leading zeros.
        ("    defaults: {enforce-version: '1.28'}", "cluster.podSecurity.defaults"),
        ("    defaults: {audit-version: v1.028}", "cluster.podSecurity.defaults"),
        ("    defaults: {warn-version: v1.30.0}", "cluster.podSecurity.defaults"),
        ("    defaults: {enforceVersion: v1.30}", "cluster.podSecurity.defaults"),
        # ValidateNamespaceName and NameIsDNSSubdomain.
        ("    exemptions: {namespaces: [Kube_System]}", "cluster.podSecurity.exemptions"),
        ("    exemptions: {runtimeClasses: ['-kata']}", "cluster.podSecurity.exemptions"),
        # An empty user name is Required.
        ("    exemptions: {usernames: ['']}", "cluster.podSecurity.exemptions"),
    ],
)
def test_values_the_plugin_refuses_are_config_errors_at_their_line(
    tmp_path: Path, line: str, field_path: str
) -> None:
    found = problems(tmp_path, f"cluster:\n  podSecurity:\n{line}\n")
    assert [(code, at) for code, at, _ in found] == [("config.invalid", 3)]
    assert found[0][2] is not None
    assert found[0][2].startswith(field_path)


@pytest.mark.parametrize(
    "section",
    [
        "cluster:\n  manifests: ['']\n",
        "cluster:\n  identities:\n    gitops: {groups: [a]}\n",
        "cluster:\n  unknown: 1\n",
        "cluster:\n  resourceQuota:\n    limitedResources: [{matchContains: [gpu]}]\n",
        "cluster:\n  resourceQuota:\n    limitedResources:\n      - resource: pods\n"
        "        matchScopes: [{scopeName: Priority, operator: In}]\n",
    ],
)
def test_malformed_sections_are_config_errors(tmp_path: Path, section: str) -> None:
    assert {code for code, _, _ in problems(tmp_path, section)} == {"config.invalid"}


def test_the_quota_plugins_configuration_pastes_under_its_own_keys(tmp_path: Path) -> None:
    config, found = loaded(
        tmp_path,
        """\
cluster:
  resourceQuota:
    limitedResources:
      - resource: pods
        matchContains: [nvidia.com/gpu]
        matchScopes:
          - scopeName: PriorityClass
            operator: In
            values: [system-node-critical, system-cluster-critical]
      - apiGroup: example.com
        resource: widgets
""",
    )
    assert found == []
    assert config.cluster is not None
    assert config.cluster.limited_resources == (
        LimitedResource(
            "",
            "pods",
            ("nvidia.com/gpu",),
            (
                ScopeRequirement(
                    "PriorityClass", "In", ("system-node-critical", "system-cluster-critical")
                ),
            ),
        ),
        LimitedResource("example.com", "widgets"),
    )


def test_an_exemption_listed_twice_is_refused_in_the_plugins_words(tmp_path: Path) -> None:
    text = (
        "cluster:\n"
        "  podSecurity:\n"
        "    exemptions:\n"
        "      namespaces: [kube-system, ml, kube-system]\n"
        "      usernames:\n"
        "        - alice\n"
        "        - alice\n"
    )
    _, found = loaded(tmp_path, text)
    assert [(d.code, d.severity, d.line) for d in found] == [
        ("config.cluster-invalid", Severity.ERROR, 4),
        ("config.cluster-invalid", Severity.ERROR, 7),
    ]
    assert found[0].message.startswith(
        'cluster.podSecurity.exemptions.namespaces[2]: Duplicate value: "kube-system"'
    )
    assert found[1].field_path == "cluster.podSecurity.exemptions.usernames[1]"


def test_globs_that_cannot_match_are_refused_and_globs_matching_nothing_warn(
    tmp_path: Path,
) -> None:
    write(tmp_path, "platform/ns.yaml", "apiVersion: v1\nkind: Namespace\n")
    text = (
        "cluster:\n"
        "  manifests:\n"
        "    - platform/**/*.yaml\n"
        "    - ../shared/*.yaml\n"
        "    - platform/[ab.yaml\n"
        "    - platfrom/**/*.yaml\n"
    )
    _, found = loaded(tmp_path, text)
    assert [(d.code, d.line) for d in found] == [
        ("config.cluster-invalid", 4),
        ("config.cluster-invalid", 5),
        ("config.cluster-unmatched", 6),
    ]
    assert "leads out of the repository root" in found[0].message
    assert "never closes it" in found[1].message
    assert found[2].severity is Severity.WARNING
    assert found[2].message.startswith("cluster.manifests[3] 'platfrom/**/*.yaml' matches no file")


def test_findings_name_the_file_without_a_parsed_document() -> None:
    config = RepoConfig(
        root=Path(),
        config_file="trainc.yaml",
        cluster=ClusterSettings(manifests=("gone/*.yaml",)),
    )
    (found,) = check_cluster(config, None, ("gone/*.yaml",))
    assert (found.code, found.file, found.field_path) == (
        "config.cluster-unmatched",
        "trainc.yaml",
        "cluster.manifests[0]",
    )
