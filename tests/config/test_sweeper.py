"""What validation says about the sweeper: its container's resources, and jobs nothing enforces."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from tests.support.builders import defaulted, make_runtime, make_trainjob, resolved
from tests.support.documents import make_object
from tests.support.manifests import write
from trainc.config.read import load_config
from trainc.config.settings import RepoConfig, SweeperSettings
from trainc.config.sweeper import Enforcement, check_sweeper_resources, lifecycle_file
from trainc.diagnostics import Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import as_object
from trainc.resolve.resolved import ResolvedJob

IMAGE = "registry.example.com/ml/trainc:0.1.0"
_ACTIVE = "trainc.dev/active-deadline-seconds"
_TTL = "trainc.dev/ttl-seconds-after-finished"
_PROGRESS = "trainc.dev/progress-deadline-seconds"


def config(sweeper: SweeperSettings | None = None, **fields: object) -> RepoConfig:
    return RepoConfig(
        root=Path("/repo"),
        config_file="trainc.yaml",
        sweeper=sweeper,
        **fields,  # type: ignore[arg-type]
    )


def _annotated(obj: DefaultedObject, annotations: dict[str, str]) -> DefaultedObject:
    data = copy.deepcopy(obj.loaded.data)
    as_object(data["metadata"])["annotations"] = dict(annotations)
    return defaulted(make_object(data, obj.loaded.path))


def job(name: str, setting: str | None = None) -> ResolvedJob:
    """TrainJob ``name`` in ``jobs/<name>.yaml``, resolved with the lifecycle ``setting``."""
    trainjob = make_trainjob(name, path=f"jobs/{name}.yaml")
    runtime = make_runtime()
    if setting == _ACTIVE:
        trainjob = make_trainjob(name, path=f"jobs/{name}.yaml", activeDeadlineSeconds=60)
    elif setting == _TTL:
        runtime = make_runtime(ttlSecondsAfterFinished=60)
    elif setting == _PROGRESS:
        trainjob = _annotated(trainjob, {_PROGRESS: "60"})
    return resolved(trainjob, runtime)


def enforcement(repo: RepoConfig, jobs: list[ResolvedJob]) -> Enforcement:
    found = Enforcement(repo)
    for each in jobs:
        found.add(lifecycle_file(each))
    return found


# --------------------------------------------------------------------------- no sweeper


def test_no_sweeper_and_no_lifecycle_settings_says_nothing() -> None:
    assert enforcement(config(), [job("a")]).findings() == []
    assert enforcement(config(), []).findings() == []


@pytest.mark.parametrize("setting", [_ACTIVE, _TTL, _PROGRESS])
def test_lifecycle_settings_without_a_sweeper_warn_once(setting: str) -> None:
    jobs = [job(name, setting) for name in ("a", "b", "c", "d", "e")]
    (warning,) = enforcement(config(), [*jobs, job("plain")]).findings()

    assert (warning.code, warning.severity, warning.file, warning.line) == (
        "compile.no-sweeper",
        Severity.WARNING,
        "trainc.yaml",
        None,
    )
    assert "5 TrainJobs set" in warning.message
    assert "jobs/a.yaml, jobs/b.yaml, jobs/c.yaml and 2 more" in warning.message
    assert "nothing in the cluster will enforce them" in warning.message
    assert warning.hint is not None
    assert "sweeper:" in warning.hint


def test_files_are_listed_sorted_whatever_the_order_jobs_come_in() -> None:
    jobs = [job(name, _ACTIVE) for name in ("c", "a", "b")]
    (warning,) = enforcement(config(), jobs).findings()

    assert "3 TrainJobs set a deadline, TTL or progress deadline (jobs/a.yaml, " in (
        warning.message
    )
    assert "jobs/b.yaml, jobs/c.yaml)" in warning.message
    assert "more" not in warning.message


def test_the_warning_is_repository_wide_without_a_config_file() -> None:
    (warning,) = enforcement(RepoConfig(root=Path("/repo")), [job("a", _TTL)]).findings()

    assert warning.file is None


def test_a_configured_sweeper_silences_the_warning() -> None:
    repo = config(SweeperSettings(image=IMAGE))

    assert enforcement(repo, [job("a", _ACTIVE)]).findings() == []


def test_an_invalid_progress_deadline_is_no_lifecycle_setting() -> None:
    trainjob = _annotated(make_trainjob("a", path="jobs/a.yaml"), {_PROGRESS: "soon"})
    invalid = resolved(trainjob, make_runtime())

    assert [f.code for f in invalid.findings] == ["compile.progress-deadline"]
    assert enforcement(config(), [invalid]).findings() == []


# --------------------------------------------------------------------------- resources


@pytest.mark.parametrize(
    ("requests", "limits", "problem"),
    [
        (
            {"memory": "512Mi"},
            {"memory": "256Mi"},
            'requests: Invalid value: "512Mi": must be less than or equal to memory limit of 256Mi',
        ),
        (
            {"cpu": "1"},
            {"cpu": "500m"},
            'requests: Invalid value: "1": must be less than or equal to cpu limit of 500m',
        ),
        (
            {"cpu": "-1"},
            {},
            'requests[cpu]: Invalid value: "-1": must be greater than or equal to 0',
        ),
        (
            {},
            {"memory": "-1Gi"},
            'limits[memory]: Invalid value: "-1Gi": must be greater than or equal to 0',
        ),
        (
            {"cpu": "1e2.5"},
            {},
            "requests[cpu]: Invalid value: \"1e2.5\": '1e2.5' is not a Kubernetes quantity such as "
            "500m, 4Gi or 2",
        ),
    ],
)
def test_resources_the_api_server_would_reject_are_errors(
    requests: dict[str, str], limits: dict[str, str], problem: str
) -> None:
    settings = SweeperSettings(image=IMAGE, requests=requests, limits=limits)
    (error,) = check_sweeper_resources(config(settings), None)

    assert (error.code, error.is_error, error.file, error.field_path) == (
        "compile.sweeper-resources",
        True,
        "trainc.yaml",
        "sweeper.resources",
    )
    assert error.message == (
        f"sweeper.resources.{problem}; the API server would reject the sweeper's CronJob"
    )


@pytest.mark.parametrize(
    ("requests", "limits"),
    [
        ({"memory": "256Mi"}, {}),
        ({"memory": "256Mi"}, {"memory": "256Mi"}),
        ({"cpu": 1, "memory": "1Gi", "ephemeral-storage": "100Mi"}, {"cpu": "2", "memory": "2Gi"}),
    ],
)
def test_resources_the_api_server_accepts_are_fine(
    requests: dict[str, object], limits: dict[str, object]
) -> None:
    settings = SweeperSettings(image=IMAGE, requests=requests, limits=limits)  # type: ignore[arg-type]

    assert check_sweeper_resources(config(settings), None) == []


def test_no_sweeper_no_resources_to_check() -> None:
    assert check_sweeper_resources(config(), None) == []


def test_a_resource_error_points_at_its_line_in_trainc_yaml(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(
        tmp_path,
        "trainc.yaml",
        f"sweeper:\n  image: {IMAGE}\n  resources:\n    requests:\n      cpu: '-1'\n",
    )
    loaded = load_config(cwd=tmp_path)
    assert loaded.config is not None

    (error,) = check_sweeper_resources(loaded.config, loaded.document)

    assert (error.code, error.file, error.line) == ("compile.sweeper-resources", "trainc.yaml", 5)
