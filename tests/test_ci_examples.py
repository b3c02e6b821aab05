"""The CI examples and guides hold real trainc commands, so they cannot rot.

Each workflow must have the shape its comments and ``docs/ci.md`` describe, and every
``trainc`` command line in it is run, as the workflow would, against a git copy of
``examples/`` and must succeed; a command redirected to a file must produce a report of
that format. Commands in the guides' shell blocks are parsed by the real command line.
"""

from __future__ import annotations

import json
import platform
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

import trainc
from trainc.cli.main import cli, main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CI = EXAMPLES / "ci"
GUIDES = (ROOT / "docs" / "ci.md", ROOT / "docs" / "flux.md")
WORKFLOWS = ("github-actions.yml", "gitlab-ci.yml", "flux-render.yml")

#: What the CI systems would put in for the expressions and variables trainc commands
#: use; an unknown one fails the test, so a new placeholder gets a value here.
_BASE_BRANCH = "main"
_EXPRESSIONS = {"github.base_ref": _BASE_BRANCH}
_VARIABLES = {"CI_MERGE_REQUEST_DIFF_BASE_SHA": "HEAD"}

_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")
_SEPARATORS = re.compile(r"&&|\|\||;|\|")


def _load(name: str) -> Any:
    return YAML(typ="safe").load((CI / name).read_text(encoding="utf-8"))


def _github_scripts(workflow: Mapping[str, Any]) -> Iterator[str]:
    for job in workflow["jobs"].values():
        yield from (step["run"] for step in job["steps"] if "run" in step)


def _gitlab_scripts(pipeline: Mapping[str, Any]) -> Iterator[str]:
    for job in pipeline.values():
        yield from (*job.get("before_script", ()), *job.get("script", ()))


def _scripts(name: str) -> list[str]:
    document = _load(name)
    return list(_gitlab_scripts(document) if name == "gitlab-ci.yml" else _github_scripts(document))


def trainc_commands(scripts: list[str]) -> list[str]:
    """Every ``trainc ...`` command of the shell ``scripts``, continuation lines joined."""
    lines = [line for script in scripts for line in script.replace("\\\n", " ").splitlines()]
    segments = [segment.strip() for line in lines for segment in _SEPARATORS.split(line)]
    return [segment for segment in segments if segment.split()[:1] == ["trainc"]]


def _substitute(command: str) -> str:
    def expression(match: re.Match[str]) -> str:
        assert match[1] in _EXPRESSIONS, f"no value for ${{{{ {match[1]} }}}} in {command!r}"
        return _EXPRESSIONS[match[1]]

    def variable(match: re.Match[str]) -> str:
        assert match[1] in _VARIABLES, f"no value for ${match[1]} in {command!r}"
        return _VARIABLES[match[1]]

    return _VARIABLE.sub(variable, _EXPRESSION.sub(expression, command))


def _argv(command: str) -> tuple[list[str], str | None]:
    """trainc's arguments, and the file stdout is redirected to (if any)."""
    words = shlex.split(_substitute(command), comments=True)
    assert words[0] == "trainc"
    if ">" in words:
        at = words.index(">")
        assert len(words) == at + 2, command
        return words[1:at], words[at + 1]
    assert not any(word.startswith(">") for word in words), command
    return words[1:], None


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository holding examples/, with ``origin/main`` at its one commit."""
    path = tmp_path_factory.mktemp("ci") / "repo"
    shutil.copytree(EXAMPLES, path)
    git = ["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for args in (
        ["init", "--quiet"],
        ["add", "--all"],
        ["commit", "--quiet", "--message", "examples"],
        ["update-ref", f"refs/remotes/origin/{_BASE_BRANCH}", "HEAD"],
    ):
        subprocess.run([*git, *args], check=True, capture_output=True)
    return path


def _run(
    repo: Path, args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    monkeypatch.chdir(repo)
    with pytest.raises(SystemExit) as exited:
        main(args)
    captured = capsys.readouterr()
    assert isinstance(exited.value.code, int)
    return exited.value.code, captured.out, captured.err


def _check_report(target: str, output: str) -> None:
    """The redirected stdout is a whole report in the format its file name says."""
    if target.endswith(".sarif"):
        assert json.loads(output)["version"] == "2.1.0"
    elif target.endswith(".xml"):
        assert ET.fromstring(output).tag in ("testsuites", "testsuite")  # noqa: S314 - our own output
    else:
        pytest.fail(f"unexpected redirect target {target}")


@pytest.mark.parametrize("name", WORKFLOWS)
def test_every_trainc_command_runs_cleanly_on_the_examples(
    name: str,
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    commands = trainc_commands(_scripts(name))
    assert commands, f"{name} runs no trainc command"
    for command in commands:
        args, target = _argv(command)
        code, out, err = _run(repo, args, monkeypatch, capsys)
        assert code == 0, f"{command}: exit {code}\n{out}{err}"
        if target is not None:
            _check_report(target, out)


def test_github_workflow_annotates_uploads_sarif_and_checks_against_the_base() -> None:
    workflow = _load("github-actions.yml")
    assert set(workflow["on"]) == {"push", "pull_request"}
    [job] = workflow["jobs"].values()
    assert job["permissions"]["security-events"] == "write"
    steps = job["steps"]
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0
    python = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert python["with"]["python-version"] == "3.11"
    upload = next(s for s in steps if "codeql-action/upload-sarif@" in s.get("uses", ""))
    runs = {step.get("name"): step.get("run", "") for step in steps}
    assert f"--format sarif > {upload['with']['sarif_file']}" in "\n".join(runs.values())
    commands = trainc_commands(list(runs.values()))
    assert "trainc validate --format github" in commands
    assert "trainc validate --base origin/${{ github.base_ref }} --format github" in commands
    assert "trainc compile --check" in commands
    base_step = next(s for s in steps if "--base" in s.get("run", ""))
    assert base_step["if"] == "github.event_name == 'pull_request'"


def test_gitlab_job_reports_junit_and_checks_the_output() -> None:
    [job] = _load("gitlab-ci.yml").values()
    assert job["artifacts"]["when"] == "always"
    report = job["artifacts"]["reports"]["junit"]
    assert f"trainc validate --format junit > {report}" in job["script"]
    assert "trainc compile --check" in job["script"]
    assert job["variables"]["GIT_DEPTH"] == "0"


def test_flux_workflow_commits_rendered_or_pushes_it_as_an_oci_artifact() -> None:
    jobs = _load("flux-render.yml")["jobs"]
    assert set(jobs) == {"commit-rendered", "push-oci"}
    assert jobs["commit-rendered"]["permissions"]["contents"] == "write"
    assert jobs["push-oci"]["permissions"]["packages"] == "write"
    push = "\n".join(_github_scripts({"jobs": {"push-oci": jobs["push-oci"]}}))
    assert "trainc compile -o rendered" in push
    for flag in ("--path=./rendered", "--source=", "--revision="):
        assert flag in push


def _shell_blocks(text: str) -> Iterator[str]:
    yield from re.findall(r"```(?:sh|console|bash)\n(.*?)```", text, flags=re.DOTALL)


@pytest.mark.parametrize("guide", GUIDES, ids=lambda path: path.name)
def test_commands_in_the_guides_parse(guide: Path) -> None:
    blocks = [block.replace("$ ", "") for block in _shell_blocks(guide.read_text("utf-8"))]
    commands = trainc_commands(blocks)
    assert commands, f"{guide.name} shows no trainc command"
    for command in commands:
        args, _ = _argv(command)
        name, *rest = args
        assert name in cli.commands, command
        cli.commands[name].make_context(name, rest)  # raises on an unknown option


@pytest.mark.parametrize("guide", GUIDES, ids=lambda path: path.name)
def test_manifests_in_the_guides_are_yaml(guide: Path) -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", guide.read_text("utf-8"), flags=re.DOTALL)
    for block in blocks:
        assert list(YAML(typ="safe").load_all(block))


_STEP_OUTPUT = re.compile(r"\$\{\{ steps\.([\w-]+)\.outputs\.(\w+) \}\}")


@pytest.mark.parametrize("name", ["github-actions.yml", "flux-render.yml"])
def test_github_workflows_cache_the_directory_trainc_uses_before_running_it(name: str) -> None:
    for job in _load(name)["jobs"].values():
        steps = job["steps"]
        (at,) = [i for i, s in enumerate(steps) if s.get("uses", "").startswith("actions/cache@")]
        cache = steps[at]["with"]
        named = _STEP_OUTPUT.fullmatch(cache["path"])
        assert named is not None, cache["path"]
        step_id, output = named.groups()
        locate = next(step for step in steps[:at] if step.get("id") == step_id)
        assert f'echo "{output}=$(trainc cache dir)" >> "$GITHUB_OUTPUT"' in locate["run"]
        first_run = min(i for i, s in enumerate(steps) if trainc_commands([s.get("run", "")]))
        assert at < first_run
        # Every run saves anew (a cache is never updated) and restores the newest with
        # the same trainc, Python and trainc.yaml.
        (restore,) = cache["restore-keys"].splitlines()
        assert cache["key"] == restore + "${{ github.run_id }}"
        assert "hashFiles('trainc.yaml')" in restore
        assert f"steps.{step_id}.outputs.build" in restore


def test_the_cache_key_names_the_trainc_and_python_that_ran() -> None:
    """The ``build=`` line of the workflow, run: a key part actions/cache accepts (no
    commas) that changes with trainc's and Python's versions."""
    steps = _load("github-actions.yml")["jobs"]["trainc"]["steps"]
    (line,) = [
        line
        for step in steps
        for line in step.get("run", "").splitlines()
        if line.startswith('echo "build=')
    ]
    script = re.fullmatch(r"""echo "build=\$\(python -c '(.*)'\)" >> "\$GITHUB_OUTPUT\"""", line)
    assert script is not None, line
    done = subprocess.run(
        [sys.executable, "-c", script[1]], capture_output=True, text=True, check=True
    )
    build = done.stdout.strip()
    assert build == f"{trainc.__version__}-py{platform.python_version()}"
    assert "," not in build


def test_gitlab_job_caches_the_directory_trainc_uses_inside_the_project() -> None:
    [job] = _load("gitlab-ci.yml").values()
    cache_dir = job["variables"]["TRAINC_CACHE_DIR"]
    # GitLab caches only paths inside the project directory.
    relative = cache_dir.removeprefix("$CI_PROJECT_DIR/")
    assert relative != cache_dir
    assert job["cache"]["paths"] == [relative]
    assert job["cache"]["key"]["files"] == ["trainc.yaml"]
    (install,) = [line for line in job["before_script"] if line.startswith("pip install")]
    pinned = re.search(r"@v([\w.]+)\"", install)
    assert pinned is not None
    assert job["cache"]["key"]["prefix"] == f"trainc-{pinned[1]}"
