"""The library façade end to end: config, templates per environment, and ``--base``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.gitrepo import git
from tests.support.manifests import TORCH_RUNTIME as RUNTIME
from tests.support.manifests import trainjob_yaml, write
from trainc.app import ValidationReport, load_config, validate_paths
from trainc.errors import UsageError

#: A sweeper, so the deadlines the TrainJobs set are enforced (no compile.no-sweeper).
SWEEPER = "sweeper:\n  image: registry.example.com/trainc:0.1\n"


def codes(root: Path, **options: str) -> list[tuple[str, str | None, int | None]]:
    report = validate_paths([], cwd=root, **options)  # type: ignore[arg-type]  # test helper
    return [(d.code, d.file, d.line) for d in report.diagnostics]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with a runtime and a TrainJob committed."""
    git(tmp_path, "init", "-q")
    write(tmp_path, "trainc.yaml", SWEEPER)
    write(tmp_path, "runtimes/torch.yaml", RUNTIME)
    write(tmp_path, "jobs/job.yaml", trainjob_yaml(deadline=3600))
    write(tmp_path, "runtimes/other.yaml", RUNTIME.replace("name: torch", "name: other"))
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


def test_base_catches_an_edited_deadline_and_runtime_ref(repo: Path) -> None:
    assert codes(repo, base="HEAD") == []
    write(repo, "jobs/job.yaml", trainjob_yaml(deadline=7200, runtime="other"))
    assert codes(repo, base="HEAD") == [
        ("cel.trainjob.deadline-immutable", "jobs/job.yaml", 6),
        ("cel.trainjob.runtime-ref-immutable", "jobs/job.yaml", 7),
    ]
    # Without a base there is nothing to compare: the edit is a valid new object.
    assert codes(repo) == []


def test_base_catches_an_edited_runtime_template_immutable(repo: Path) -> None:
    write(
        repo,
        "runtimes/torch.yaml",
        RUNTIME.replace("publishNotReadyAddresses: true", "subdomain: x"),
    )
    assert codes(repo, base="HEAD") == [
        ("cel.jobset.network-immutable", "runtimes/torch.yaml", 10),
    ]


def test_base_ignores_new_objects_and_unknown_refs_are_usage_errors(repo: Path) -> None:
    write(
        repo,
        "jobs/new.yaml",
        trainjob_yaml("new", deadline=3600),
    )
    assert codes(repo, base="HEAD") == []
    with pytest.raises(UsageError, match="no-such-ref"):
        validate_paths([], cwd=repo, base="no-such-ref")


CONFIG = """\
apiVersion: trainc.dev/v1alpha1
kind: Config
sweeper:
  image: registry.example.com/trainc:0.1
values:
  deadline: 3600
environments:
  prod:
    values:
      deadline: 86400
"""


def test_templates_render_with_the_values_of_the_chosen_environment(tmp_path: Path) -> None:
    write(tmp_path, "trainc.yaml", CONFIG)
    write(tmp_path, "runtime.yaml", RUNTIME)
    write(tmp_path, "job.yaml.j2", trainjob_yaml(deadline="{{ deadline }}"))
    assert codes(tmp_path) == []
    assert codes(tmp_path, environment="prod") == []
    write(tmp_path, "job.yaml.j2", trainjob_yaml(deadline="{{ deadline - 3600 }}"))
    # 3600 - 3600 = 0 breaks the minimum, and the finding points at the template line.
    assert codes(tmp_path) == [("schema.range", "job.yaml.j2", 6)]
    assert codes(tmp_path, environment="prod") == []
    with pytest.raises(UsageError, match="staging"):
        validate_paths([], cwd=tmp_path, environment="staging")


def test_an_invalid_config_is_reported_in_the_config_file(tmp_path: Path) -> None:
    write(tmp_path, "trainc.yaml", "namespace: Not_A_Namespace\nlimits:\n  maxDepht: 3\n")
    write(tmp_path, "runtime.yaml", RUNTIME)
    assert codes(tmp_path) == [
        ("config.invalid", "trainc.yaml", 1),
        ("config.invalid", "trainc.yaml", 3),
    ]


def test_config_discovery_walks_up_to_the_repository_root(tmp_path: Path) -> None:
    write(tmp_path, "trainc.yaml", "namespace: team-a\n")
    nested = tmp_path / "jobs" / "deep"
    nested.mkdir(parents=True)
    result = load_config(cwd=nested)
    assert result.config is not None
    assert result.config.root == tmp_path.resolve()
    assert result.config.namespace == "team-a"
    with pytest.raises(UsageError, match="no such file"):
        load_config(cwd=tmp_path, config_file=tmp_path / "missing.yaml")


def test_named_paths_are_targets_and_the_repository_is_context(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtimes/torch.yaml", RUNTIME)
    write(tmp_path, "jobs/good.yaml", trainjob_yaml("good"))
    write(tmp_path, "jobs/bad.yaml", trainjob_yaml("Bad"))
    good = validate_paths([tmp_path / "jobs/good.yaml"], cwd=tmp_path)
    # The runtime lives elsewhere, and the other job's error is not this run's business.
    assert (good.diagnostics, good.files, good.objects) == ((), 1, 1)
    bad = validate_paths([tmp_path / "jobs/bad.yaml"], cwd=tmp_path)
    assert [(d.code, d.file) for d in bad.diagnostics] == [
        ("cel.trainjob.name-format", "jobs/bad.yaml")
    ]
    # Errors in a runtime a named TrainJob uses are reported, in the runtime's file, and
    # the TrainJob says it was not fully checked.
    write(tmp_path, "runtimes/torch.yaml", RUNTIME.replace("torch: {}", "torch: {}\n    mpi: {}"))
    broken = validate_paths([tmp_path / "jobs/good.yaml"], cwd=tmp_path)
    assert [(d.code, d.file) for d in broken.diagnostics] == [
        ("xobj.not-fully-checked", "jobs/good.yaml"),
        ("cel.runtime.one-ml-policy", "runtimes/torch.yaml"),
    ]


NAMESPACED_RUNTIME = RUNTIME.replace(
    "kind: ClusterTrainingRuntime", "kind: TrainingRuntime"
).replace("name: torch", "name: team-torch\n  namespace: team-a")


def _hints(report: ValidationReport) -> list[tuple[str, str | None]]:
    return [(d.code, d.hint) for d in report.diagnostics]


@pytest.mark.parametrize("config", ["", "inputs:\n  runtimes: [platform/**]\n"])
def test_a_single_file_gets_the_suggestions_of_the_whole_repository(
    tmp_path: Path, config: str
) -> None:
    """Found by the runtime search or under ``inputs.runtimes``, the repository's runtimes
    are suggested for a runtimeRef that names none, as a run over everything suggests."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, "trainc.yaml", config)
    write(tmp_path, "platform/torch.yaml", RUNTIME)
    write(tmp_path, "platform/team-a.yaml", NAMESPACED_RUNTIME)
    write(tmp_path, "jobs/typo.yaml", trainjob_yaml("typo", runtime="troch"))
    other_namespace = trainjob_yaml("ns", runtime="team-torch").replace(
        "  runtimeRef:", "  runtimeRef:\n    kind: TrainingRuntime"
    )
    write(tmp_path, "jobs/ns.yaml", other_namespace)
    whole = validate_paths([], cwd=tmp_path)
    single = [
        *validate_paths([tmp_path / "jobs/ns.yaml"], cwd=tmp_path).diagnostics,
        *validate_paths([tmp_path / "jobs/typo.yaml"], cwd=tmp_path).diagnostics,
    ]
    assert [(d.code, d.hint) for d in single] == _hints(whole)
    assert [hint for _, hint in _hints(whole)] == [
        "a TrainingRuntime named 'team-torch' exists in namespace 'team-a', but a "
        "TrainingRuntime serves only TrainJobs in its own namespace: move the TrainJob "
        "there, or publish the runtime as a ClusterTrainingRuntime",
        "did you mean 'torch'?",
    ]


def test_inputs_runtimes_is_where_single_file_runs_look(tmp_path: Path) -> None:
    write(tmp_path, "trainc.yaml", "inputs:\n  runtimes: [platform/runtimes/**]\n")
    write(tmp_path, "platform/runtimes/torch.yaml", RUNTIME)
    write(tmp_path, "jobs/good.yaml", trainjob_yaml("good"))
    write(tmp_path, "jobs/stray.yaml", RUNTIME.replace("name: torch", "name: stray"))
    write(tmp_path, "jobs/uses-stray.yaml", trainjob_yaml("uses").replace("torch", "stray"))
    good = validate_paths([tmp_path / "jobs/good.yaml"], cwd=tmp_path)
    assert good.diagnostics == ()
    # A runtime outside the globs is not context, so its TrainJob does not find it there ...
    alone = validate_paths([tmp_path / "jobs/uses-stray.yaml"], cwd=tmp_path)
    assert [d.code for d in alone.diagnostics] == ["xobj.runtime-not-found"]
    # ... and the whole-repository run (the compile hook, CI) says why, where it is.
    everything = validate_paths([], cwd=tmp_path)
    assert [(d.code, d.file, d.line) for d in everything.diagnostics] == [
        ("load.runtime-outside-paths", "jobs/stray.yaml", 2)
    ]
