"""Hostile repositories through the real command: a diagnostic each, never a traceback.

Each file is the kind of thing an untrusted pull request can contain; the run must end
with exit 1, a parseable report naming the file and the rule, and nothing on stderr.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.cli.main import main

BILLION_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(9)
)

HUNDRED_MEGABYTES = 100 * 1024 * 1024

HOSTILE: dict[str, tuple[bytes, str]] = {
    "bomb.yaml": (BILLION_LAUGHS.encode(), "load.alias-bound"),
    "huge.yaml": (b"a: " + b"x" * (10 * 1024 * 1024) + b"\n", "load.too-large"),
    "binary.yaml": (bytes(range(256)) * 4, "load.binary"),
    "latin1.yaml": ("name: caf\xe9\n".encode("latin-1"), "load.encoding"),
    "deep.yaml": (b"[" * 10_000 + b"]" * 10_000 + b"\n", "load.too-deep"),
    "broken.yaml": (b"apiVersion: trainer.kubeflow.org/v1alpha1\nkind: [TrainJob\n", "load.syntax"),
    "tabs.yaml": (b"metadata:\n\tname: x\n", "load.tab-indent"),
    "dupes.yaml": (
        b"apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nkind: TrainJob\n"
        b"metadata: {name: a}\nspec: {runtimeRef: {name: r}}\n",
        "load.duplicate-key",
    ),
    "escape.yaml.j2": (
        b"x: {{ ''.__class__.__mro__[1].__subclasses__() }}\n",
        "load.template-security",
    ),
    "undefined.yaml.j2": (b"x: {{ no_such_value }}\n", "load.template-undefined"),
    "documents.yaml": (b"---\n" * 1_000_000, "load.too-many-documents"),
}


@pytest.fixture(scope="module")
def report(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], dict[str, set[str]]]:
    repo = tmp_path_factory.mktemp("hostile")
    (repo / ".git").mkdir()
    for name, (content, _) in HOSTILE.items():
        (repo / name).write_bytes(content)
    outside = tmp_path_factory.mktemp("outside") / "secret.yaml"
    outside.write_text("password: hunter2\n", encoding="utf-8")
    (repo / "link.yaml").symlink_to(outside)
    result = subprocess.run(
        [sys.executable, "-m", "trainc", "validate", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
        timeout=300,
    )
    found: dict[str, set[str]] = {}
    for diagnostic in json.loads(result.stdout)["diagnostics"]:
        found.setdefault(diagnostic["file"], set()).add(diagnostic["code"])
    return result, found


def test_the_run_ends_with_exit_1_and_no_traceback(
    report: tuple[subprocess.CompletedProcess[str], dict[str, set[str]]],
) -> None:
    result, _ = report
    assert result.returncode == 1
    assert result.stderr == ""


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_hostile_file_gets_its_diagnostic(
    report: tuple[subprocess.CompletedProcess[str], dict[str, set[str]]], name: str
) -> None:
    _, found = report
    assert HOSTILE[name][1] in found.get(name, set())


def test_a_symlink_out_of_the_repository_is_reported_and_never_read(
    report: tuple[subprocess.CompletedProcess[str], dict[str, set[str]]],
) -> None:
    result, found = report
    assert found.get("link.yaml") == {"load.symlink-escape"}
    assert "hunter2" not in result.stdout


#: trainc's command line, then its peak memory on stderr. The kernel's resource usage of a
#: child counts the parent's memory from before ``exec``; the new process's own high-water
#: mark is only in /proc.
MEASURED_RUN = """
import sys
from trainc.cli.main import main

try:
    main(sys.argv[1:])
finally:
    with open("/proc/self/status") as status:
        sys.stderr.write(next(line for line in status if line.startswith("VmHWM:")))
"""


def _measured_validate(repository: Path) -> tuple[subprocess.CompletedProcess[str], int]:
    """``trainc validate --format json`` in ``repository``, and its peak memory in bytes."""
    result = subprocess.run(
        [sys.executable, "-c", MEASURED_RUN, "validate", "--format", "json"],
        cwd=repository,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    label, peak, unit = result.stderr.split()  # nothing else on stderr
    assert (label, unit) == ("VmHWM:", "kB")
    return result, int(peak) * 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_a_100_megabyte_file_is_refused_by_its_size_without_being_read(tmp_path: Path) -> None:
    """Measured against the same run over a small file: what trainc's start costs (more
    without cached bytecode, under PYTHONDONTWRITEBYTECODE) is not the file's."""
    small, huge = tmp_path / "small", tmp_path / "huge"
    for repository in (small, huge):
        (repository / ".git").mkdir(parents=True)
    (small / "huge.yaml").write_bytes(b"\0" * 1024)
    with (huge / "huge.yaml").open("wb") as written:
        written.truncate(HUNDRED_MEGABYTES)  # sparse: instant to make, NUL bytes when read
    _, baseline = _measured_validate(small)
    result, peak = _measured_validate(huge)
    assert result.returncode == 1
    (diagnostic,) = json.loads(result.stdout)["diagnostics"]
    assert (diagnostic["code"], diagnostic["file"]) == ("load.too-large", "huge.yaml")
    assert "is 104857600 bytes; inputs are limited to 4194304 bytes" in diagnostic["message"]
    assert peak - baseline < HUNDRED_MEGABYTES / 4  # the file was never read into memory


# Files that change while trainc runs. Each race is made deterministic by making the change
# just before the system call that meets it (opening the file, listing the directory).
RealCall = Callable[..., Any]


def _changing(path: Path, change: Callable[[Path], None], real: RealCall) -> RealCall:
    """``real``, with ``change(path)`` just before the first call on ``path``."""
    pending = [path]

    def call(target: Any, *args: Any, **kwargs: Any) -> Any:
        if pending and isinstance(target, str | Path) and Path(target).name == path.name:
            change(pending.pop())
        return real(target, *args, **kwargs)

    return call


def _delete(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()


def _deny(path: Path) -> None:  # as chmod would, but chmod does not stop root, who runs CI
    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))


def _make_directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _make_file(path: Path) -> None:
    shutil.rmtree(path)
    path.write_text("kind: Replaced\n", encoding="utf-8")


RACES = {
    "file-deleted": ("open", _delete, "gone.yaml", "cannot open the file: No such file"),
    "file-unreadable": ("open", _deny, "gone.yaml", "cannot open the file: Permission denied"),
    "file-became-directory": ("open", _make_directory, "gone.yaml", "not a regular file"),
    "directory-deleted": ("scandir", _delete, "jobs", "cannot list the directory: No such file"),
    "directory-unreadable": (
        "scandir",
        _deny,
        "jobs",
        "cannot list the directory: Permission denied",
    ),
    "directory-became-file": (
        "scandir",
        _make_file,
        "jobs",
        "cannot list the directory: Not a directory",
    ),
}


@pytest.mark.parametrize("race", sorted(RACES))
def test_a_file_that_changes_during_the_run_is_a_finding(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    race: str,
) -> None:
    function, change, name, message = RACES[race]
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "kept.yaml", trainjob_yaml("kept"))
    write(tmp_path, "gone.yaml", trainjob_yaml("gone"))
    write(tmp_path, "jobs/listed.yaml", trainjob_yaml("listed"))
    monkeypatch.setattr(os, function, _changing(tmp_path / name, change, getattr(os, function)))
    monkeypatch.chdir(tmp_path)

    with pytest.raises(SystemExit) as exited:
        main(["validate", "--format", "json"])

    captured = capsys.readouterr()
    assert (exited.value.code, captured.err) == (1, "")
    report = json.loads(captured.out)
    assert [(d["code"], d["file"]) for d in report["diagnostics"]] == [("load.unreadable", name)]
    assert message in report["diagnostics"][0]["message"]
    assert report["summary"]["objects"] == 3  # the runtime and the two jobs left
