"""The pre-commit hooks, run by the real pre-commit against temporary git repositories.

pre-commit clones the hook repository at a commit and pip-installs it into a virtualenv
of its own, so the hooks are tested from a commit of this working tree, uncommitted edits
included. The install takes about half a minute (trainc's dependencies). ``pre-commit
run`` with a config naming that commit, as a user's ``.pre-commit-config.yaml`` does,
pays it once per session through a shared ``PRE_COMMIT_HOME``; ``pre-commit try-repo``
always installs into a fresh store of its own, so one test uses it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.emit.trees import snapshot
from tests.support.compiled import compile_collected
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.emit.writer import check_tree, write_tree

ROOT = Path(__file__).resolve().parents[1]
HOOK_IDS = ("trainc-validate", "trainc-compile-check", "trainc-compile")
#: Hooks of the manual stage, run only by name: not checks.
MANUAL_HOOK_IDS = ("trainc-server",)
#: A TrainJob with a misspelt field (``numNode``), line 9 of jobs/bad.yaml.
BAD_TRAINJOB = trainjob_yaml("bad") + "  trainer:\n    numNode: 4\n"
BAD_DIAGNOSTIC = "jobs/bad.yaml:9:5: error[schema.unknown-field]: unknown field 'numNode'"
#: Generous: the first run of a session pip-installs trainc and its dependencies.
INSTALL_TIMEOUT_SECONDS = 900

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")


@pytest.fixture(scope="session")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of every git and pre-commit run: nothing from the user's config.

    ``GIT_*`` variables are dropped (a test run from a git hook would otherwise act on the
    outer repository) and the user's git configuration is ignored (signing, hooks paths).
    """
    kept = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("GIT_", "PRE_COMMIT"))
    }
    return {
        **kept,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "trainc tests",
        "GIT_AUTHOR_EMAIL": "tests@trainc.invalid",
        "GIT_COMMITTER_NAME": "trainc tests",
        "GIT_COMMITTER_EMAIL": "tests@trainc.invalid",
        "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-home")),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }


def git(repo: Path, env: dict[str, str], *args: str) -> str:
    """Run git in ``repo``; its stdout."""
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout


def commit_everything(repo: Path, env: dict[str, str]) -> None:
    """Make ``repo`` a git repository whose one commit holds its files."""
    git(repo, env, "init", "-q")
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-q", "-m", "test")


def pre_commit(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run pre-commit in ``repo``, its stderr merged into stdout as a terminal shows it."""
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=repo,
        env=env,
        check=False,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=INSTALL_TIMEOUT_SECONDS,
    )


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Path:
    """This working tree committed to a bare repository: what pre-commit clones and installs.

    The commit holds what ``git add -A`` takes from the working tree (uncommitted edits
    included, ignored files left out), whether or not the checkout is a git repository
    itself. Bare, so that ``try-repo`` finds no uncommitted changes to make a commit of.
    """
    repo = tmp_path_factory.mktemp("hook-repo") / "trainc.git"
    git(ROOT, env, "init", "-q", "--bare", str(repo))
    tree = ("--git-dir", str(repo), "--work-tree", str(ROOT))
    git(ROOT, env, *tree, "add", "-A")
    git(ROOT, env, *tree, "commit", "-q", "-m", "trainc under test")
    return repo


@pytest.fixture(scope="session")
def config(tmp_path_factory: pytest.TempPathFactory, hook_repo: Path, env: dict[str, str]) -> Path:
    """A ``.pre-commit-config.yaml`` with every hook, pinned to the hook repository's commit."""
    rev = git(hook_repo, env, "rev-parse", "HEAD").strip()
    hooks = [{"id": hook} for hook in (*HOOK_IDS, *MANUAL_HOOK_IDS)]
    path = tmp_path_factory.mktemp("config") / ".pre-commit-config.yaml"
    # JSON is YAML: no YAML writer needed.
    path.write_text(json.dumps({"repos": [{"repo": str(hook_repo), "rev": rev, "hooks": hooks}]}))
    return path


@pytest.fixture
def repo(tmp_path: Path, env: dict[str, str]) -> Path:
    """A committed repository: a runtime, a TrainJob using it, and their compiled output."""
    config = "apiVersion: trainc.dev/v1alpha1\nkind: Config\ncompile:\n  output: rendered\n"
    write(tmp_path, "trainc.yaml", config)
    write(tmp_path, "runtimes/torch.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/train.yaml", trainjob_yaml("train"))
    compiled = compile_collected([], cwd=tmp_path)
    assert compiled.exit_code == 0, compiled.diagnostics
    write_tree(tmp_path / "rendered", compiled.files)
    commit_everything(tmp_path, env)
    return tmp_path


def run_hook(
    repo: Path, env: dict[str, str], config: Path, hook: str, *args: str
) -> subprocess.CompletedProcess[str]:
    """``pre-commit run HOOK``: on the staged files, or on those ``args`` select."""
    return pre_commit(repo, env, "run", "--config", str(config), "--color", "never", hook, *args)


def outcome(run: subprocess.CompletedProcess[str], name: str) -> str:
    """Passed, Failed or Skipped: what pre-commit reported for the hook called ``name``."""
    found = re.search(rf"^{re.escape(name)}\.+(?:\(no files to check\))?(\w+)$", run.stdout, re.M)
    assert found, run.stdout
    return found.group(1)


def test_the_tests_and_the_guide_name_the_hooks_the_manifest_defines() -> None:
    manifest = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    guide = (ROOT / "docs" / "pre-commit.md").read_text(encoding="utf-8")
    defined = set(re.findall(r"^- id: (\S+)$", manifest, re.MULTILINE))
    assert defined == {*HOOK_IDS, *MANUAL_HOOK_IDS}
    assert set(re.findall(r"- id: (trainc-[\w-]+)", guide)) <= defined


def test_validate_passes_a_trainjob_named_without_its_runtime(
    repo: Path, env: dict[str, str], config: Path
) -> None:
    run = run_hook(repo, env, config, "trainc-validate", "--files", "jobs/train.yaml")
    assert run.returncode == 0, run.stdout
    assert outcome(run, "trainc validate") == "Passed"


def test_the_server_hook_starts_a_server_the_validate_hook_runs_in(
    repo: Path, env: dict[str, str], config: Path
) -> None:
    """docs/pre-commit.md: ``pre-commit run trainc-server --hook-stage manual``, then a
    commit's hook runs in that server (its log names the command) and says what it says
    without it."""
    runtime = Path(tempfile.mkdtemp(prefix="trs", dir="/tmp"))  # a socket's path is short
    runtime.chmod(0o700)
    served = {**env, "XDG_RUNTIME_DIR": str(runtime)}
    alone = run_hook(repo, env, config, "trainc-validate", "--files", "jobs/train.yaml")
    started = run_hook(repo, served, config, "trainc-server", "--hook-stage", "manual", "-v")
    pid = re.search(r"trainc server: started, pid (\d+)", started.stdout)
    try:
        assert started.returncode == 0, started.stdout
        assert pid is not None, started.stdout
        run = run_hook(repo, served, config, "trainc-validate", "--files", "jobs/train.yaml")
        assert (run.returncode, run.stdout) == (alone.returncode, alone.stdout)
        log = (runtime / "trainc" / "server.log").read_text()
        assert re.search(r"^command \d+: validate jobs/train.yaml$", log, re.MULTILINE), log
        # A plain commit never starts one: the hook's stage is manual.
        assert "trainc server start" not in run_hook(repo, env, config, "--all-files").stdout
    finally:
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid.group(1)), signal.SIGTERM)
        shutil.rmtree(runtime, ignore_errors=True)


def test_validate_fails_a_staged_bad_trainjob_with_its_diagnostic(
    repo: Path, env: dict[str, str], config: Path
) -> None:
    write(repo, "jobs/bad.yaml", BAD_TRAINJOB)
    git(repo, env, "add", "jobs/bad.yaml")
    run = run_hook(repo, env, config, "trainc-validate")
    assert run.returncode == 1, run.stdout
    assert outcome(run, "trainc validate") == "Failed"
    assert BAD_DIAGNOSTIC in run.stdout
    assert "help: did you mean 'numNodes'?" in run.stdout


def test_compile_check_passes_when_the_output_is_current(
    repo: Path, env: dict[str, str], config: Path
) -> None:
    run = run_hook(repo, env, config, "trainc-compile-check")
    assert run.returncode == 0, run.stdout
    assert outcome(run, "trainc compile --check") == "Passed"


def _edit(repo: Path, env: dict[str, str]) -> None:
    write(repo, "jobs/train.yaml", trainjob_yaml("train") + "  trainer:\n    numNodes: 2\n")
    git(repo, env, "add", "jobs/train.yaml")


def _delete(repo: Path, env: dict[str, str]) -> None:
    git(repo, env, "rm", "-q", "jobs/train.yaml")


@pytest.mark.parametrize("change", [_edit, _delete], ids=["edited", "deleted"])
def test_compile_check_fails_when_a_staged_change_makes_the_output_stale(
    repo: Path,
    env: dict[str, str],
    config: Path,
    change: Callable[[Path, dict[str, str]], None],
) -> None:
    change(repo, env)
    run = run_hook(repo, env, config, "trainc-compile-check")
    assert run.returncode == 1, run.stdout
    assert outcome(run, "trainc compile --check") == "Failed"
    assert "Run `trainc compile` to update it." in run.stdout


def test_compile_rewrites_stale_output_and_fails_the_commit(
    repo: Path, env: dict[str, str], config: Path
) -> None:
    _edit(repo, env)
    run = run_hook(repo, env, config, "trainc-compile")
    assert run.returncode == 1, run.stdout
    assert outcome(run, "trainc compile") == "Failed"
    assert "- files were modified by this hook" in run.stdout
    compiled = compile_collected([], cwd=repo)
    assert check_tree(repo / "rendered", compiled.files) == []


def test_an_untracked_work_in_progress_trainjob_does_not_fail_an_unrelated_commit(
    repo: Path, env: dict[str, str], config: Path
) -> None:
    """An untracked file failed a team's commit: the compile hooks now judge what the
    commit holds (git's index); a TrainJob nobody added neither fails them nor gets
    compiled output."""
    write(repo, "jobs/bad.yaml", BAD_TRAINJOB)  # work in progress, never added
    write(repo, "notes.md", "what we tried this week\n")
    git(repo, env, "add", "notes.md")
    before = snapshot(repo / "rendered")

    run = pre_commit(repo, env, "run", "--config", str(config), "--color", "never", "--verbose")

    assert run.returncode == 0, run.stdout
    assert outcome(run, "trainc compile --check") == "Passed"
    assert outcome(run, "trainc compile") == "Passed"
    skipped = "skipped 1 input file git does not track (jobs/bad.yaml)"
    assert run.stdout.count(skipped) == 2
    assert snapshot(repo / "rendered") == before
    git(repo, env, "add", "jobs/bad.yaml")
    staged = run_hook(repo, env, config, "trainc-compile-check")
    assert staged.returncode == 1, staged.stdout
    assert BAD_DIAGNOSTIC in staged.stdout


def test_try_repo_runs_every_hook_and_reports_only_the_bad_trainjob(
    repo: Path, env: dict[str, str], hook_repo: Path
) -> None:
    write(repo, "jobs/bad.yaml", BAD_TRAINJOB)
    git(repo, env, "add", "jobs/bad.yaml")
    run = pre_commit(repo, env, "try-repo", str(hook_repo), "--all-files", "--color", "never")
    assert run.returncode == 1, run.stdout
    for name in ("trainc validate", "trainc compile --check", "trainc compile"):
        assert outcome(run, name) == "Failed"
    assert run.stdout.count(BAD_DIAGNOSTIC) == len(HOOK_IDS)
    assert "jobs/train.yaml" not in run.stdout
    assert "files were modified" not in run.stdout


def test_a_trainc_repository_in_a_subdirectory_as_the_guide_configures_it(
    tmp_path: Path, env: dict[str, str], hook_repo: Path
) -> None:
    """docs/pre-commit.md: ``ml/`` holds trainc.yaml; the validate hook gets file names
    relative to the git root and finds ``ml/`` from them, the compile hook gets ``ml``.
    A changed kustomize patch is left out with a warning, not read as a TrainJob."""
    config = "apiVersion: trainc.dev/v1alpha1\nkind: Config\ncompile:\n  output: rendered\n"
    ml = tmp_path / "ml"
    write(ml, "trainc.yaml", config)
    write(ml, "runtimes/torch.yaml", TORCH_RUNTIME)
    write(ml, "jobs/train.yaml", trainjob_yaml("train"))
    write(ml, "overlays/prod/kustomization.yaml", "resources: [../../jobs]\n")
    write(ml, "overlays/prod/patch.yaml", "kind: TrainJob\nmetadata: {name: train}\n")
    compiled = compile_collected([], cwd=ml)
    write_tree(ml / "rendered", compiled.files)
    write(tmp_path, "docs/other.yaml", "not: trainc's\n")
    commit_everything(tmp_path, env)
    rev = git(hook_repo, env, "rev-parse", "HEAD").strip()
    files = r"^ml/.*\.(ya?ml(\.j2)?|json)$"
    hooks = [
        {"id": "trainc-validate", "files": files, "verbose": True},
        {"id": "trainc-compile-check", "args": ["ml"], "files": files},
    ]
    path = tmp_path / ".pre-commit-config.yaml"
    path.write_text(json.dumps({"repos": [{"repo": str(hook_repo), "rev": rev, "hooks": hooks}]}))
    run = pre_commit(tmp_path, env, "run", "--all-files", "--color", "never")
    assert run.returncode == 0, run.stdout
    assert outcome(run, "trainc validate") == "Passed"
    assert outcome(run, "trainc compile --check") == "Passed"
    assert "overlays/prod: warning[load.kustomize-directory]" in run.stdout
    write(ml, "jobs/bad.yaml", BAD_TRAINJOB)
    git(tmp_path, env, "add", "ml/jobs/bad.yaml")
    run = pre_commit(tmp_path, env, "run", "--color", "never")
    assert run.returncode == 1, run.stdout
    assert BAD_DIAGNOSTIC in run.stdout  # reported relative to ml/, the repository


def test_a_literal_token_fails_the_commit_instead_of_reaching_the_rendered_tree(
    repo: Path, env: dict[str, str], config: Path
) -> None:
    """A team found an HF_TOKEN literal in rendered/ with every commit green, because a
    warning is invisible in a hook that passes."""
    token = trainjob_yaml("train") + "  trainer:\n    env:\n      - {name: HF_TOKEN, value: hf_x}\n"
    write(repo, "jobs/train.yaml", token)
    git(repo, env, "add", "jobs/train.yaml")
    before = snapshot(repo / "rendered")
    validate = run_hook(repo, env, config, "trainc-validate")
    assert outcome(validate, "trainc validate") == "Failed"
    assert "error[compile.plaintext-credential]" in validate.stdout
    assert "hf_x" not in validate.stdout
    rewrite = run_hook(repo, env, config, "trainc-compile")
    assert outcome(rewrite, "trainc compile") == "Failed"
    assert snapshot(repo / "rendered") == before


def test_validate_fails_a_staged_copy_that_kept_the_name_on_the_copy(
    repo: Path, env: dict[str, str], config: Path
) -> None:
    shutil.copy(repo / "jobs/train.yaml", repo / "jobs/train-v2.yaml")
    git(repo, env, "add", "jobs/train-v2.yaml")
    run = run_hook(repo, env, config, "trainc-validate")
    assert run.returncode == 1, run.stdout
    assert outcome(run, "trainc validate") == "Failed"
    assert "jobs/train-v2.yaml:4:3: error[xobj.duplicate-object]: TrainJob " in run.stdout
    assert "/train is already declared at jobs/train.yaml:4" in run.stdout
