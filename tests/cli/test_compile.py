"""``trainc compile`` as CI, pre-commit and Argo CD run it: streams, exit codes, determinism."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.emit.trees import snapshot, visible_tree
from tests.support.cli import run
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.emit.yamlout import dump_yaml

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/a.yaml", trainjob_yaml("alpha", deadline=3600))
    write(tmp_path, "jobs/b.yaml", trainjob_yaml("beta"))
    return tmp_path


def test_stream_output_holds_only_kubernetes_objects(repo: Path) -> None:
    result = run(repo, "compile", "-o", "-")
    assert result.returncode == 0, result.stderr
    documents = list(YAML(typ="safe").load_all(result.stdout))
    assert [(d["kind"], d["metadata"]["name"]) for d in documents] == [
        ("JobSet", "alpha"),
        ("JobSet", "beta"),
    ]
    assert all(
        d["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "trainc" for d in documents
    )


def test_errors_print_nothing_on_stdout_and_write_nothing(repo: Path) -> None:
    write(repo, "jobs/c.yaml", trainjob_yaml("Gamma"))
    result = run(repo, "compile", "-o", "-")
    assert result.returncode == 1
    assert result.stdout == ""
    assert "cel.trainjob.name-format" in result.stderr
    result = run(repo, "compile", "-o", "out")
    assert result.returncode == 1
    assert not (repo / "out").exists()


MPI_RUNTIME_WITHOUT_SECRET = TORCH_RUNTIME.replace("name: torch", "name: mpi").replace(
    "torch: {}", "numNodes: 2\n    mpi: {}"
)


def test_an_error_found_while_building_a_later_job_writes_nothing(repo: Path) -> None:
    assert run(repo, "compile", "-o", "out").returncode == 0
    previous = snapshot(repo / "out")
    write(repo, "runtime-mpi.yaml", MPI_RUNTIME_WITHOUT_SECRET)
    # Sorted after alpha and beta, so their files were already staged when it fails.
    write(repo, "jobs/z.yaml", trainjob_yaml("zeta", runtime="mpi"))
    write(repo, "jobs/a.yaml", trainjob_yaml("alpha", deadline=7200))

    failed = run(repo, "compile", "-o", "out")
    assert failed.returncode == 1
    assert "compile.mpi-ssh-secret" in failed.stderr
    assert snapshot(repo / "out") == previous
    assert not [path.name for path in repo.iterdir() if "trainc-" in path.name]
    streamed = run(repo, "compile", "-o", "-")
    assert (streamed.returncode, streamed.stdout) == (1, "")


def test_directory_output_check_and_removal_of_deleted_jobs(repo: Path) -> None:
    assert run(repo, "compile", "-o", "out").returncode == 0
    assert sorted(p.name for p in (repo / "out" / "default").iterdir()) == [
        "alpha.yaml",
        "beta.yaml",
    ]
    assert run(repo, "compile", "-o", "out", "--check").returncode == 0
    (repo / "jobs" / "b.yaml").unlink()
    check = run(repo, "compile", "-o", "out", "--check")
    assert check.returncode == 1
    assert "beta.yaml" in check.stderr
    assert run(repo, "compile", "-o", "out").returncode == 0
    assert sorted(p.name for p in (repo / "out" / "default").iterdir()) == ["alpha.yaml"]


def test_usage_errors(repo: Path) -> None:
    no_target = run(repo, "compile")
    assert no_target.returncode == 2
    assert "-o DIR" in no_target.stderr
    check_stream = run(repo, "compile", "-o", "-", "--check")
    assert check_stream.returncode == 2
    inside_input = run(repo, "compile", "jobs", "runtime.yaml", "-o", "jobs/out")
    assert inside_input.returncode == 2
    assert inside_input.stdout == ""
    assert "output directory jobs/out is inside the input jobs" in inside_input.stderr
    assert not (repo / "jobs" / "out").exists()


def test_files_trainc_did_not_write_are_never_deleted(repo: Path) -> None:
    assert run(repo, "compile", "-o", "out").returncode == 0
    written = snapshot(repo / "out")
    write(repo, "out/default/notes.md", "kept by hand\n")
    (repo / "jobs" / "b.yaml").unlink()

    refused = run(repo, "compile", "-o", "out")
    assert refused.returncode == 2
    assert "trainc did not write default/notes.md" in refused.stderr
    assert (repo / "out" / "default" / "notes.md").read_text(encoding="utf-8") == "kept by hand\n"
    assert {
        path: entry for path, entry in snapshot(repo / "out").items() if path != "default/notes.md"
    } == written
    check = run(repo, "compile", "-o", "out", "--check")
    assert check.returncode == 1
    assert "out: extra default/notes.md" in check.stderr

    (repo / "out" / "default" / "notes.md").rename(repo / "notes.md")
    assert run(repo, "compile", "-o", "out").returncode == 0
    assert sorted(p.name for p in (repo / "out" / "default").iterdir()) == ["alpha.yaml"]


#: Run trainc's command line, killed with SIGKILL just before the N-th call of one ``os``
#: function (argv: the function, N, then trainc's arguments).
KILLED_RUN = """
import os, signal, sys
from trainc.cli.main import main

name, kill_at = sys.argv[1], int(sys.argv[2])
real = getattr(os, name)
calls = []

def counted(*args, **kwargs):
    calls.append(name)
    if len(calls) == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*args, **kwargs)

setattr(os, name, counted)
main(sys.argv[3:])
"""


@pytest.mark.parametrize(
    ("function", "kill_at"),
    [("write", 1), ("write", 3), ("rename", 1), ("rename", 2)],
    ids=["first-file", "third-file", "before-the-swap", "between-the-renames"],
)
def test_a_killed_compile_leaves_the_previous_output(
    repo: Path, function: str, kill_at: int
) -> None:
    assert run(repo, "compile", "-o", "out").returncode == 0
    previous = snapshot(repo / "out")
    write(repo, "jobs/a.yaml", trainjob_yaml("alpha", deadline=7200))
    (repo / "jobs" / "b.yaml").unlink()
    write(repo, "jobs/c.yaml", trainjob_yaml("gamma"))

    killed = subprocess.run(
        [sys.executable, "-c", KILLED_RUN, function, str(kill_at), "compile", "-o", "out"],
        cwd=repo,
        capture_output=True,
        check=False,
        timeout=300,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert visible_tree(repo / "out") == previous

    assert run(repo, "compile", "-o", "out").returncode == 0
    assert sorted(p.name for p in (repo / "out" / "default").iterdir()) == [
        "alpha.yaml",
        "gamma.yaml",
    ]
    assert run(repo, "compile", "-o", "out", "--check").returncode == 0
    assert not [path.name for path in repo.iterdir() if "trainc-" in path.name]


def test_output_is_identical_whatever_the_hash_seed() -> None:
    first = run(EXAMPLES, "compile", "-o", "-", seed="0")
    second = run(EXAMPLES, "compile", "-o", "-", seed="4242")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert first.stdout


def test_output_does_not_depend_on_document_order(tmp_path: Path) -> None:
    documents = [
        document
        for path in sorted(EXAMPLES.rglob("*.yaml"))
        if "rendered" not in path.parts
        and path.name != "trainc.yaml"
        and "policies" not in path.parts
        for document in YAML(typ="safe").load_all(path.read_text(encoding="utf-8"))
    ]
    outputs = []
    for name, ordered in (("forward", documents), ("backward", documents[::-1])):
        repo = tmp_path / name
        shutil.copytree(
            EXAMPLES, repo, ignore=shutil.ignore_patterns("rendered", "jobs", "runtimes")
        )
        (repo / ".git").mkdir()
        write(repo, "all.yaml", dump_yaml(ordered))
        result = run(repo, "compile", "-o", "-")
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]


def test_output_does_not_depend_on_the_order_of_named_paths(repo: Path) -> None:
    orders = (
        ("runtime.yaml", "jobs/a.yaml", "jobs/b.yaml"),
        ("jobs/b.yaml", "runtime.yaml", "jobs/a.yaml"),
        ("jobs", "runtime.yaml", "jobs/a.yaml"),
        ("jobs/b.yaml", "jobs/a.yaml"),  # the runtime comes from the rest of the repository
    )
    results = [run(repo, "compile", "-o", "-", *paths) for paths in orders]
    assert [result.returncode for result in results] == [0] * len(orders)
    assert {result.stdout for result in results} == {run(repo, "compile", "-o", "-").stdout}


UTF8_LOCALE = {"LC_ALL": "C.UTF-8"}
#: Locales and stream encodings CI runners and containers come with. Without UTF-8 mode
#: the C locale makes Python decode file names and encode stdout as ASCII.
LOCALES = {
    "C": {"LC_ALL": "C"},
    "POSIX": {"LC_ALL": "POSIX"},
    "C-ascii": {"LC_ALL": "C", "PYTHONUTF8": "0"},
    "latin-1-stdout": {**UTF8_LOCALE, "PYTHONIOENCODING": "latin-1"},
    "ascii-stdout": {**UTF8_LOCALE, "PYTHONIOENCODING": "ascii"},
}


def test_output_and_reports_are_identical_whatever_the_locale(repo: Path) -> None:
    # A non-ASCII file name reaches the output (trainc.dev/source) and the report.
    write(repo, "jobs/équipe ü/训练.yaml", trainjob_yaml("gamma") + "---\nkind: ConfigMap\n")
    assert run(repo, "compile", "-o", "out", env=UTF8_LOCALE).returncode == 0
    stream = run(repo, "compile", "-o", "-", env=UTF8_LOCALE)
    assert "trainc.dev/source: jobs/équipe ü/训练.yaml" in stream.stdout
    report = run(repo, "validate", "-v", "--format", "json", "jobs", env=UTF8_LOCALE)
    assert '"file": "jobs/\\u00e9quipe \\u00fc/\\u8bad\\u7ec3.yaml"' in report.stdout
    for name, env in LOCALES.items():
        assert run(repo, "compile", "-o", "-", env=env).stdout == stream.stdout, name
        assert run(repo, "validate", "-v", "--format", "json", "jobs", env=env).stdout == (
            report.stdout
        ), name
        check = run(repo, "compile", "-o", "out", "--check", env=env)
        assert check.returncode == 0, (name, check.stderr)
