"""The repository is the one the paths given are in, wherever trainc runs from.

Its trainc.yaml, policies and runtimes come from the nearest directory above the paths
holding trainc.yaml or .git, as ruff and mypy find their configuration; without paths,
from the working directory's.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.cli import run
from tests.support.compiled import compile_collected
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.app import ValidationReport, validate_paths
from trainc.config.settings import find_paths_root
from trainc.errors import UsageError

PROJECT = Path(__file__).resolve().parents[1]
EXAMPLES = PROJECT / "examples"

#: A policy that fails every TrainJob: found only when its repository's config is read.
DENY_ALL = """\
apiVersion: trainc.dev/v1alpha1
kind: ValidationPolicy
metadata:
  name: deny-all
spec:
  validations:
    - expression: "false"
      message: this repository takes nothing
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def findings(report: ValidationReport) -> list[tuple[str, str | None, int | None]]:
    return [(d.code, d.file, d.line) for d in report.diagnostics]


@pytest.fixture
def monorepo(tmp_path: Path) -> Path:
    """A git repository whose trainc repository is ``ml/``; the top has a policy of its own
    that must never apply to ``ml/`` (it would fail every TrainJob)."""
    top = tmp_path / "monorepo"
    top.mkdir()
    git(top, "init", "-q")
    write(top, "policies/deny.yaml", DENY_ALL)
    write(top, "ml/trainc.yaml", "namespace: team-a\ncompile:\n  output: rendered\n")
    write(top, "ml/runtimes/torch.yaml", TORCH_RUNTIME)
    write(top, "ml/jobs/a.yaml", trainjob_yaml("alpha", deadline=3600))
    write(top, "docs/notes.yaml", "title: not trainc's\n")
    git(top, "add", "-A")  # whole-repository runs read what git tracks
    return top


# --------------------------------------------------------------------------- the root


def test_the_nearest_trainc_yaml_above_the_paths_is_the_root(monorepo: Path) -> None:
    ml = monorepo / "ml"
    assert find_paths_root([Path("ml/jobs/a.yaml")], monorepo) == ml
    assert find_paths_root([Path("jobs"), Path("runtimes/torch.yaml")], ml) == ml
    assert find_paths_root([ml], Path("/")) == ml
    # No trainc.yaml above: the .git marks the root. Without paths: the working directory's.
    assert find_paths_root([Path("docs/notes.yaml")], monorepo) == monorepo
    assert find_paths_root([], ml / "jobs") == ml


def test_paths_of_two_repositories_are_a_usage_error_naming_each_root(monorepo: Path) -> None:
    with pytest.raises(UsageError) as caught:
        find_paths_root([Path("ml/jobs/a.yaml"), Path("docs/notes.yaml")], monorepo)
    message = str(caught.value)
    assert f"ml/jobs/a.yaml in {monorepo / 'ml'}" in message
    assert f"docs/notes.yaml in {monorepo}" in message
    assert "--config" in message


def test_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^jobs/nope.yaml: no such file or directory$"):
        find_paths_root([Path("jobs/nope.yaml")], tmp_path)


def test_paths_under_no_repository_take_the_working_directory_or_their_own(
    tmp_path: Path,
) -> None:
    write(tmp_path, "here/jobs/a.yaml", "")
    write(tmp_path, "there/b.yaml", "")
    here = tmp_path / "here"
    assert find_paths_root([Path("jobs/a.yaml")], here) == here
    assert find_paths_root([tmp_path / "there"], here) == tmp_path / "there"
    assert find_paths_root([tmp_path / "there/b.yaml"], here) == tmp_path / "there"


# --------------------------------------------------------------------------- validate


def test_validate_examples_from_the_project_root_reads_the_examples_config() -> None:
    """``trainc validate examples/`` is ``cd examples && trainc validate``: the examples'
    trainc.yaml and policies, not the project's."""
    from_project = validate_paths([Path("examples")], cwd=PROJECT)
    inside = validate_paths([], cwd=EXAMPLES)
    assert findings(from_project) == findings(inside)
    assert from_project.exit_code == 0
    assert (from_project.files, from_project.objects) == (inside.files, inside.objects)


def test_validate_a_repository_from_another_directory(tmp_path: Path) -> None:
    result = run(tmp_path, "validate", str(EXAMPLES))
    inside = run(EXAMPLES, "validate")
    assert result.returncode == 0, result.stderr
    assert result.stdout == inside.stdout
    assert "outside the repository root" not in result.stderr


def test_validate_files_relative_to_the_working_directory(monorepo: Path) -> None:
    """What the pre-commit hook does: files relative to the top of the git repository."""
    result = run(monorepo, "validate", "ml/jobs/a.yaml")
    assert result.returncode == 0, result.stdout
    # The runtime was found in ml/, and the top's deny-all policy never ran.
    assert "policy.deny-all" not in result.stdout
    write(monorepo, "ml/jobs/a.yaml", trainjob_yaml("alpha", runtime="missing"))
    result = run(monorepo, "validate", "ml/jobs/a.yaml")
    assert result.returncode == 1
    assert "jobs/a.yaml:7:5: error[xobj.runtime-not-found]" in result.stdout


def test_validate_paths_of_two_repositories_exits_2(monorepo: Path) -> None:
    result = run(monorepo, "validate", "ml/jobs/a.yaml", "docs/notes.yaml")
    assert result.returncode == 2
    assert "different repositories" in result.stderr
    assert result.stdout == ""


def test_config_wins_over_the_paths(monorepo: Path) -> None:
    """--config names the repository; a path outside it is refused as before."""
    report = validate_paths(
        [Path("ml/jobs/a.yaml")], cwd=monorepo, config_file=monorepo / "ml/trainc.yaml"
    )
    assert report.exit_code == 0
    write(monorepo, "trainc.yaml", "namespace: top\n")
    with pytest.raises(UsageError, match="outside the repository root"):
        validate_paths(
            [Path("docs/notes.yaml")], cwd=monorepo, config_file=monorepo / "ml/trainc.yaml"
        )


def test_base_reads_the_git_revision_of_the_repository_found(
    monorepo: Path, tmp_path: Path
) -> None:
    git(monorepo, "add", "-A")
    git(monorepo, "commit", "-q", "-m", "base")
    write(monorepo, "ml/jobs/a.yaml", trainjob_yaml("alpha", deadline=7200))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run(elsewhere, "validate", str(monorepo / "ml/jobs"), "--base", "HEAD")
    assert result.returncode == 1, result.stderr
    assert "jobs/a.yaml:6:3: error[cel.trainjob.deadline-immutable]" in result.stdout


# --------------------------------------------------------------------------- compile


def test_compile_from_another_directory_writes_where_the_repository_says(
    monorepo: Path, tmp_path: Path
) -> None:
    """compile.output is relative to the repository's root; -o to the working directory."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run(elsewhere, "compile", str(monorepo / "ml"))
    assert result.returncode == 0, result.stderr
    assert (monorepo / "ml/rendered/team-a/alpha.yaml").is_file()
    result = run(elsewhere, "compile", str(monorepo / "ml"), "--check")
    assert result.returncode == 0, result.stderr
    result = run(elsewhere, "compile", str(monorepo / "ml"), "-o", "out")
    assert result.returncode == 0, result.stderr
    assert (elsewhere / "out/team-a/alpha.yaml").read_bytes() == (
        monorepo / "ml/rendered/team-a/alpha.yaml"
    ).read_bytes()
    result = run(elsewhere, "compile", str(monorepo / "ml"), "-o", "out", "--check")
    assert result.returncode == 0, result.stderr


def test_compile_examples_from_the_project_root_is_current() -> None:
    result = run(PROJECT, "compile", "examples", "--check")
    assert result.returncode == 0, result.stderr


def test_compile_collects_the_same_objects_from_anywhere(monorepo: Path) -> None:
    inside = compile_collected([], cwd=monorepo / "ml")
    outside = compile_collected([Path("ml")], cwd=monorepo)
    assert outside.exit_code == inside.exit_code == 0
    assert outside.output.files == inside.output.files


# --------------------------------------------------------------------------- Argo CD


def test_the_argocd_plugin_compiles_the_application_directory(monorepo: Path) -> None:
    """The config-management plugin runs in the Application's source directory (``ml``),
    with no paths: that directory's trainc.yaml, not the git repository's top."""
    result = run(
        monorepo / "ml",
        "compile",
        "-o",
        "-",
        env={"ARGOCD_APP_NAME": "ml", "ARGOCD_APP_NAMESPACE": "team-b"},
    )
    assert result.returncode == 0, result.stderr
    assert "name: alpha" in result.stdout
    assert "namespace: team-a" in result.stdout  # trainc.yaml's namespace, from ml/
