"""Argo CD's refresh of an unchanged repository: ``trainc compile -o -``, run as the CMP
server runs it (a fresh copy of the files in a new directory each time, the cache named
by ``TRAINC_CACHE_DIR``), writes the stream and report a clean compile kept, byte for
byte, without loading a file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import trainc.engine.compile
import trainc.engine.repository
from bench.run import plugin_command
from tests.cli.conftest import Invoke, Outcome
from tests.support.manifests import trainjob_yaml, write
from trainc.cli.main import GENERATE
from trainc.engine.answer import ANSWERS, STREAMS

#: What the sidecar's CMP server gives the command (docs/argocd.md): an Application's
#: name and destination namespace.
_ARGOCD = {"ARGOCD_APP_NAME": "training", "ARGOCD_APP_NAMESPACE": "team-a"}


@pytest.fixture
def cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sidecar's environment (deploy/argocd/repo-server-patch.yaml) and an
    Application's."""
    directory = tmp_path_factory.mktemp("cache") / "trainc"
    monkeypatch.delenv("TRAINC_NO_CACHE", raising=False)
    monkeypatch.setenv("TRAINC_CACHE_DIR", str(directory))
    for name, value in _ARGOCD.items():
        monkeypatch.setenv(name, value)
    return directory


@pytest.fixture
def argocd(repo: Path, cache: Path) -> Path:
    """A repository that compiles without a finding."""
    write(repo, "jobs/a.yaml", trainjob_yaml("alpha"))
    return repo


@pytest.fixture
def fresh_copy(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """The repository as the CMP server hands it over: its files written anew into a new
    temporary directory (new path, inodes and times), links made absolute into it
    (``Untgz`` in https://github.com/argoproj/argo-cd/blob/master/util/io/files/tar.go)."""

    def copy(repo: Path) -> Path:
        target = tmp_path_factory.mktemp("cmp") / "app"
        shutil.copytree(repo, target, symlinks=True, copy_function=shutil.copyfile)
        for link in (path for path in target.rglob("*") if path.is_symlink()):
            pointed = (link.parent / link.readlink()).resolve()
            link.unlink()
            link.symlink_to(pointed)
        return target

    return copy


@pytest.fixture
def full_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the compiles that validate the repository rather than write a kept answer."""
    runs: list[int] = []
    validate_repository = trainc.engine.repository.validate_repository

    def counted(*args: object, **kwargs: object) -> object:
        runs.append(1)
        return validate_repository(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(trainc.engine.compile, "validate_repository", counted)
    return runs


def test_the_answered_command_is_the_plugin_s_generate() -> None:
    assert plugin_command() == ["trainc", *GENERATE]


def _generate(invoke: Invoke, repo: Path, full_runs: list[int]) -> tuple[Outcome, int]:
    before = len(full_runs)
    outcome = invoke(repo, *GENERATE)
    assert outcome.code == 0, outcome.err
    return outcome, len(full_runs) - before


def test_a_fresh_copy_of_an_unchanged_repository_is_answered(
    invoke: Invoke, argocd: Path, full_runs: list[int], fresh_copy: Callable[[Path], Path]
) -> None:
    write(argocd, "notes/about.txt", "training\n")
    (argocd / "about.txt").symlink_to("notes/about.txt")
    uncached = invoke(argocd, *GENERATE, "--no-cache")
    first, made = _generate(invoke, fresh_copy(argocd), full_runs)
    assert made == 1
    again, made = _generate(invoke, fresh_copy(argocd), full_runs)
    assert made == 0
    assert again == first == uncached  # the stream and the report, byte for byte
    assert "kind: JobSet" in again.out
    assert again.err.startswith("All checks passed")


@pytest.mark.parametrize(
    "change",
    [
        lambda repo: write(repo, "jobs/a.yaml", trainjob_yaml("alpha", namespace="team-b")),
        lambda repo: write(repo, "jobs/b.yaml", trainjob_yaml("beta")),
        lambda repo: (repo / "jobs" / "a.yaml").unlink(),
        lambda repo: write(repo, "trainc.yaml", "kubernetesVersion: '1.33'\n"),
        lambda repo: write(repo, "policies/deadline.yaml", _POLICY),
        lambda repo: write(repo, "notes.txt", "any file\n"),
    ],
    ids=["input-edited", "input-added", "input-removed", "config-written", "policy-added", "other"],
)
def test_any_change_makes_a_full_compile(
    invoke: Invoke,
    argocd: Path,
    full_runs: list[int],
    fresh_copy: Callable[[Path], Path],
    change: Callable[[Path], object],
) -> None:
    _generate(invoke, fresh_copy(argocd), full_runs)
    change(argocd)
    changed, made = _generate(invoke, fresh_copy(argocd), full_runs)
    assert made == 1
    assert changed == invoke(argocd, *GENERATE, "--no-cache")
    again, made = _generate(invoke, fresh_copy(argocd), full_runs)
    assert (again, made) == (changed, 0)


def test_the_application_s_choices_are_part_of_the_key(
    invoke: Invoke,
    argocd: Path,
    full_runs: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _generate(invoke, argocd, full_runs)
    monkeypatch.setenv("PARAM_NAMESPACE", "team-c")
    moved, made = _generate(invoke, argocd, full_runs)
    assert made == 1
    assert "namespace: team-c" in moved.out


def test_which_files_git_tracks_is_part_of_the_key(
    invoke: Invoke, argocd: Path, full_runs: list[int]
) -> None:
    """The same bytes, but a file git no longer tracks: it is no input any more."""
    shutil.rmtree(argocd / ".git")
    who = ["-c", "user.name=t", "-c", "user.email=t@t"]
    for argv in (["init", "-q"], ["add", "-A"], [*who, "commit", "-q", "-m", "x"]):
        subprocess.run(["git", *argv], cwd=argocd, check=True)
    first, _ = _generate(invoke, argocd, full_runs)
    subprocess.run(["git", "rm", "-q", "--cached", "jobs/a.yaml"], cwd=argocd, check=True)
    untracked, made = _generate(invoke, argocd, full_runs)
    assert made == 1
    assert untracked.out != first.out
    assert "git does not track (jobs/a.yaml)" in untracked.err
    again, made = _generate(invoke, argocd, full_runs)
    assert (again, made) == (untracked, 1)  # a run that left a file out keeps no answer


def test_a_compile_with_findings_keeps_no_answer(
    invoke: Invoke, argocd: Path, full_runs: list[int]
) -> None:
    """A warning has lines to quote: each refresh reports it from a full compile."""
    write(argocd, "jobs/a.yaml", trainjob_yaml("alpha", deadline=3600))  # and no sweeper
    first = invoke(argocd, *GENERATE)
    second = invoke(argocd, *GENERATE)
    assert first == second
    assert first.err
    assert len(full_runs) == 2


@pytest.mark.parametrize("section", [ANSWERS, STREAMS])
@pytest.mark.parametrize(
    "damage",
    [lambda data: data[:-1] + bytes([data[-1] ^ 1]), lambda data: b"foreign"],
    ids=["bit-flip", "foreign"],
)
def test_a_damaged_answer_is_a_miss(
    invoke: Invoke,
    argocd: Path,
    cache: Path,
    full_runs: list[int],
    damage: Callable[[bytes], bytes],
    section: str,
) -> None:
    first, _ = _generate(invoke, argocd, full_runs)
    [entry] = (path for path in (cache / "v2" / section).rglob("*") if path.is_file())
    entry.write_bytes(damage(entry.read_bytes()))
    again, made = _generate(invoke, argocd, full_runs)
    assert (again, made) == (first, 1)
    assert _generate(invoke, argocd, full_runs) == (first, 0)  # kept again


#: Every trainc module an answered ``generate`` imports (less the ``trainc.`` prefix):
#: the command line's entry, the cache and the key, the Argo CD Application's choices
#: (validated as every command validates them), and what those are made of. Neither the
#: loader nor a check, the builders, the engine's passes nor click's commands.
ANSWER_MODULES = """
    argocd cache cache.keys cache.location cache.store catalogue checks checks.workload
    checks.workload.version cli cli.main cli.refresh config config.file config.limits
    config.settings diagnostics engine engine.answer errors load load.documents
    load.gitref load.globs load.packages load.pathnames load.reader load.source model
    model.json model.kinds model.labels model.markers model.patterns model.scalars records
    records_methods resources schema schema.metadata schema.remembered_checks
"""

_SCRIPT = """
import sys
from trainc.cli.main import main
try:
    main(["compile", "-o", "-"])
except SystemExit as end:
    print("exit", end.code, file=sys.stderr)
print("imported:", *sorted(sys.modules), file=sys.stderr)
"""


def test_an_answered_generate_imports_neither_the_loader_nor_a_check(
    invoke: Invoke, argocd: Path, full_runs: list[int]
) -> None:
    first, _ = _generate(invoke, argocd, full_runs)
    completed = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        cwd=argocd,
        env={**os.environ},
        capture_output=True,
        check=True,
    )
    *said, exited, imported = completed.stderr.decode().splitlines()
    assert (completed.stdout.decode(), "\n".join(said) + "\n", exited) == (
        first.out,
        first.err,
        "exit 0",
    )
    modules = set(imported.split()[1:])
    ours = {name.removeprefix("trainc.") for name in modules if name.startswith("trainc.")}
    assert sorted(ours) == sorted(ANSWER_MODULES.split())
    assert not {"yaml", "ruamel", "jinja2", "cel_expr_python", "jsonschema_rs"} & modules


_POLICY = """\
apiVersion: trainc.dev/v1alpha1
kind: ValidationPolicy
metadata:
  name: has-runtime
spec:
  validations:
    - expression: "has(object.spec.runtimeRef)"
      message: "every TrainJob names its runtime"
  validationActions:
    - Warn
"""
