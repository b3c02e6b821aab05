"""trainc.yaml's ``sweeper`` section, and the overrides of one run over trainc.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.manifests import write
from trainc.config.read import load_config
from trainc.config.settings import Overrides, RepoConfig, SweeperSettings
from trainc.errors import UsageError


def sweeper(tmp_path: Path, section: str) -> SweeperSettings | None:
    write(tmp_path, "trainc.yaml", section)
    result = load_config(cwd=tmp_path)
    assert result.diagnostics == ()
    assert result.config is not None
    return result.config.sweeper


def problems(tmp_path: Path, section: str) -> list[tuple[str, int | None, str | None]]:
    write(tmp_path, "trainc.yaml", section)
    result = load_config(cwd=tmp_path)
    assert result.config is None
    return [(d.code, d.line, d.field_path) for d in result.diagnostics]


def test_without_the_section_there_is_no_sweeper(tmp_path: Path) -> None:
    assert sweeper(tmp_path, "namespace: team-a\n") is None


def test_an_image_alone_takes_every_default(tmp_path: Path) -> None:
    assert sweeper(tmp_path, "sweeper:\n  image: registry.example.com/ml/trainc:0.1.0\n") == (
        SweeperSettings(
            image="registry.example.com/ml/trainc:0.1.0",
            namespace="trainc-system",
            schedule="*/5 * * * *",
            scope="Namespaced",
            service_account_name="trainc-sweeper",
            grace_seconds=600,
            requests={"cpu": "50m", "memory": "64Mi"},
            limits={"memory": "256Mi"},
            image_pull_secrets=(),
        )
    )


def test_every_setting_is_read_and_resources_merge_over_the_defaults(tmp_path: Path) -> None:
    section = """\
sweeper:
  image: registry.example.com/trainc@sha256:0123
  namespace: ops
  schedule: "0 9 * * MON-FRI"
  scope: Cluster
  serviceAccountName: janitor
  graceSeconds: 0
  resources:
    requests: {cpu: 1}
    limits: {cpu: "2", memory: 1Gi}
  imagePullSecrets: [registry, mirror]
"""
    assert sweeper(tmp_path, section) == SweeperSettings(
        image="registry.example.com/trainc@sha256:0123",
        namespace="ops",
        schedule="0 9 * * MON-FRI",
        scope="Cluster",
        service_account_name="janitor",
        grace_seconds=0,
        requests={"cpu": 1, "memory": "64Mi"},
        limits={"cpu": "2", "memory": "1Gi"},
        image_pull_secrets=("registry", "mirror"),
    )


@pytest.mark.parametrize("schedule", ["@daily", "@hourly", "*/15 * * * *", "0 0 1,15 * ?"])
def test_cron_schedules_the_cron_job_controller_reads(tmp_path: Path, schedule: str) -> None:
    settings = sweeper(tmp_path, f"sweeper:\n  image: x\n  schedule: {schedule!r}\n")
    assert settings is not None
    assert settings.schedule == schedule


@pytest.mark.parametrize(
    ("line", "field_path"),
    [
        ("  schedule: 'TZ=UTC 0 * * * *'", "sweeper.schedule"),
        ("  schedule: '*/5 * * *'", "sweeper.schedule"),
        ("  schedule: '@every 5m'", "sweeper.schedule"),
        ("  scope: cluster", "sweeper.scope"),
        ("  namespace: trainc.system", "sweeper.namespace"),
        ("  serviceAccountName: " + "a" * 53, "sweeper.serviceAccountName"),
        ("  serviceAccountName: trainc:sweeper", "sweeper.serviceAccountName"),
        ("  graceSeconds: -1", "sweeper.graceSeconds"),
        ("  imagePullSecrets: [Registry]", "sweeper.imagePullSecrets[0]"),
        ("  resources: {claims: [{name: gpu}]}", "sweeper.resources"),
        ("  resources: {requests: {cpu: lots}}", "sweeper.resources.requests.cpu"),
    ],
)
def test_invalid_settings_are_config_errors_at_their_line(
    tmp_path: Path, line: str, field_path: str
) -> None:
    found = problems(tmp_path, f"sweeper:\n  image: x\n{line}\n")
    assert [(code, at) for code, at, _ in found] == [("config.invalid", 3)]
    assert found[0][2] is not None
    assert found[0][2].startswith(field_path)


@pytest.mark.parametrize(
    "section", ["sweeper: {}\n", "sweeper:\n  image: ''\n", "sweeper:\n  image: a b\n"]
)
def test_the_section_needs_an_image(tmp_path: Path, section: str) -> None:
    assert [code for code, _, _ in problems(tmp_path, section)] == ["config.invalid"]


# --- Overrides: the choices of one run (an Argo CD Application's) over trainc.yaml ------


def configured(
    tmp_path: Path, text: str, overrides: Overrides, environment: str | None = None
) -> RepoConfig:
    write(tmp_path, "trainc.yaml", text)
    result = load_config(cwd=tmp_path, overrides=overrides, environment=environment)
    assert result.config is not None, result.diagnostics
    return result.config


def test_an_override_namespace_wins_and_a_default_namespace_only_fills_in(
    tmp_path: Path,
) -> None:
    both = Overrides(namespace="research", default_namespace="ml-prod")
    assert configured(tmp_path, "namespace: ml-team\n", both).namespace == "research"
    fallback = Overrides(default_namespace="ml-prod")
    assert configured(tmp_path, "namespace: ml-team\n", fallback).namespace == "ml-team"
    assert configured(tmp_path, "kind: Config\n", fallback).namespace == "ml-prod"
    assert configured(tmp_path, "kind: Config\n", Overrides()).namespace == "default"


def test_the_cluster_version_only_fills_in_a_missing_kubernetes_version(tmp_path: Path) -> None:
    cluster = Overrides(kubernetes_version="1.29")
    assert configured(tmp_path, 'kubernetesVersion: "1.31"\n', cluster).kubernetes_version == (
        "1.31"
    )
    assert configured(tmp_path, "kind: Config\n", cluster).kubernetes_version == "1.29"


ENVIRONMENTS = """\
values: {registry: registry.example.com}
environments:
  prod:
    values: {registry: registry.prod.example.com}
"""


def test_an_explicit_environment_wins_over_the_override(tmp_path: Path) -> None:
    chosen = Overrides(environment="prod", environment_source="PARAM_ENV")
    config = configured(tmp_path, ENVIRONMENTS, chosen)
    assert (config.environment, config.template_values) == (
        "prod",
        {"registry": "registry.prod.example.com"},
    )
    unknown = Overrides(environment="staging", environment_source="PARAM_ENV")
    assert configured(tmp_path, ENVIRONMENTS, unknown, environment="prod").environment == "prod"


def test_an_unknown_environment_names_where_it_came_from(tmp_path: Path) -> None:
    unknown = Overrides(environment="staging", environment_source="PARAM_ENV")
    with pytest.raises(UsageError, match=r"^PARAM_ENV staging: no such environment .*prod"):
        configured(tmp_path, ENVIRONMENTS, unknown)
    with pytest.raises(UsageError, match=r"^--env staging: no such environment"):
        configured(tmp_path, ENVIRONMENTS, Overrides(), environment="staging")


def test_validate_only_runs_no_sweeper_and_resolves_claims_as_trainer_does(
    tmp_path: Path,
) -> None:
    """With ``deploy: TrainJob`` the Trainer controller builds the JobSets: it copies the
    runtime's volumeClaimPolicies for the JobSet controller, and enforces deadlines."""
    text = (
        "compile:\n"
        "  volumeClaimPolicies: Emit\n"
        "  mpi: {sshAuthSecret: keys}\n"
        "sweeper:\n"
        "  image: registry.example.com/ml/trainc:0.1.0\n"
    )
    write(tmp_path, "trainc.yaml", text)
    deploying = load_config(cwd=tmp_path).config
    assert deploying is not None
    assert deploying.deploy == "JobSet"
    assert deploying.sweeper is not None
    assert not deploying.compile.native_volume_claims
    assert deploying.compile.mpi_ssh_secret == "keys"  # noqa: S105 - a Secret's name
    write(tmp_path, "trainc.yaml", "deploy: TrainJob\n" + text)
    validating = load_config(cwd=tmp_path).config
    assert validating is not None
    assert validating.deploy == "TrainJob"
    assert validating.sweeper is None
    assert validating.compile.native_volume_claims
    assert validating.compile.mpi_ssh_secret is None
