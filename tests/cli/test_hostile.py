"""Hostile repositories through the real command: a diagnostic each, never a traceback.

Each file is the kind of thing an untrusted pull request can contain; the run must end
with exit 1, a parseable report naming the file and the rule, and nothing on stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

BILLION_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(9)
)

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
