"""The command line as scripts and people meet it: exit codes, help, stream discipline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.cli import run
from tests.support.manifests import TORCH_RUNTIME as RUNTIME
from tests.support.manifests import trainjob_yaml
from trainc.cli.main import cli

GOOD_JOB = trainjob_yaml("good")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "runtime.yaml").write_text(RUNTIME, encoding="utf-8")
    (tmp_path / "job.yaml").write_text(GOOD_JOB, encoding="utf-8")
    return tmp_path


def test_clean_repository_exits_0(repo: Path) -> None:
    result = run(repo, "validate")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All checks passed: 2 files, 2 objects." in result.stdout
    assert result.stderr == ""


def test_errors_exit_1_and_warnings_alone_exit_0(repo: Path) -> None:
    (repo / "bad.yaml").write_text(GOOD_JOB.replace("name: good", "name: Bad"), encoding="utf-8")
    result = run(repo, "validate")
    assert result.returncode == 1
    assert "bad.yaml:4:" in result.stdout
    assert "error[cel.trainjob.name-format]" in result.stdout
    (repo / "bad.yaml").unlink()
    ttl = RUNTIME.replace("spec:\n  mlPolicy", "spec:\n  ttlSecondsAfterFinished: 5\n  mlPolicy")
    (repo / "runtime.yaml").write_text(ttl, encoding="utf-8")
    result = run(repo, "validate")
    assert result.returncode == 0
    assert "warning[xobj.ttl-short]" in result.stdout


def test_usage_errors_exit_2_on_stderr_with_nothing_on_stdout(repo: Path) -> None:
    for args in (
        ("validate", "missing.yaml"),
        ("validate", "--format", "xml"),
        ("validate", "--env", "prod"),
        ("valdate",),
    ):
        result = run(repo, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stdout == ""
        assert "Traceback" not in result.stderr


def test_a_mistyped_command_gets_a_suggestion(repo: Path) -> None:
    result = run(repo, "valdate")
    assert "Did you mean 'validate'?" in result.stderr


def test_a_mistyped_option_gets_a_suggestion(repo: Path) -> None:
    result = run(repo, "validate", "--fromat", "json")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "No such option '--fromat'. Did you mean '--format'?" in result.stderr


@pytest.mark.parametrize("output_format", ["json", "sarif"])
def test_machine_formats_put_only_the_report_on_stdout(repo: Path, output_format: str) -> None:
    (repo / "bad.yaml").write_text("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n")
    result = run(repo, "validate", "--format", output_format)
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert document
    assert result.stderr == ""


def test_internal_errors_exit_2_without_a_traceback_unless_debugging(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def explode(self: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("trainc.app.Session.validate", explode)
    monkeypatch.chdir(repo)
    from trainc.cli.main import main

    for argv, traceback_shown in ((["validate"], False), (["--debug", "validate"], True)):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert "internal error: RuntimeError: boom" in captured.err
        assert ("Traceback" in captured.err) is traceback_shown


def test_every_command_has_help_with_an_example() -> None:
    runner = CliRunner()
    assert {"validate", "compile", "schemas", "sweep", "init"} <= set(cli.commands)
    for command in ([], *([name] for name in cli.commands)):
        result = runner.invoke(cli, [*command, "--help"])
        assert result.exit_code == 0, command
        assert "Example" in result.output, command
    assert "Exit codes" in runner.invoke(cli, ["--help"]).output


def test_quiet_shows_errors_only_and_verbose_shows_skipped_documents(repo: Path) -> None:
    (repo / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    assert "load.ignored-document" not in run(repo, "validate").stdout
    assert "info[load.ignored-document]" in run(repo, "validate", "-v").stdout
    ttl = RUNTIME.replace("spec:\n  mlPolicy", "spec:\n  ttlSecondsAfterFinished: 5\n  mlPolicy")
    (repo / "runtime.yaml").write_text(ttl, encoding="utf-8")
    assert "xobj.ttl-short" not in run(repo, "validate", "-q").stdout


def test_schemas_check_passes_on_the_repository() -> None:
    root = Path(__file__).resolve().parents[2]
    result = run(root, "schemas", "--check")
    assert result.returncode == 0, result.stderr


def test_schemas_check_fails_on_a_stale_copy(tmp_path: Path) -> None:
    result = run(tmp_path, "schemas", "-o", "out")
    assert result.returncode == 0
    target = next((tmp_path / "out" / "crds").glob("*trainjobs.yaml"))
    target.write_text(target.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    result = run(tmp_path, "schemas", "--check", "-o", "out")
    assert result.returncode == 1
    assert "stale" in result.stderr
