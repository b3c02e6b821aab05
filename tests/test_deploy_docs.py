"""docs/deploy.md, the guide a platform team follows: what it names exists, what it runs parses.

The guide's commands are checked against trainc itself (each ``trainc ...`` line parses
with trainc's own command line), its ``trainc.yaml`` snippets against the config schema,
its sweeper commands against the CronJob the example repository compiles to, and its links
(and the README's links into it) against the files and headings they name.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import click
import pytest
from ruamel.yaml import YAML

from tests.support.manifests import write
from trainc.cli.main import cli
from trainc.config.read import load_config
from trainc.scaffold import FILES

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "deploy.md"
TEXT = GUIDE.read_text(encoding="utf-8")
EXAMPLES = ROOT / "examples"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", TEXT, flags=re.DOTALL)


def commands(program: str) -> list[list[str]]:
    """The ``program`` command lines of the guide's shell blocks, as argv lists.

    A pipeline counts with its first command only: what it pipes into is not ``program``.
    """
    lines = (line.strip() for block in blocks("sh") for line in block.splitlines())
    found = []
    for line in lines:
        argv = shlex.split(line, comments=True)
        if argv[:1] == [program]:
            found.append(argv[: argv.index("|")] if "|" in argv else argv)
    return found


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to ``-``."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    return {slug(heading) for heading in re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)}


@pytest.mark.parametrize("argv", commands("trainc"), ids=shlex.join)
def test_every_trainc_command_parses(argv: list[str]) -> None:
    """Parsed as trainc parses it, without running: a subcommand and its options, or
    options of trainc itself (``--version`` exits the parse, as it should)."""
    first, *args = argv[1:]
    if first.startswith("-"):
        with pytest.raises(click.exceptions.Exit) as exited:
            cli.make_context("trainc", argv[1:])
        assert exited.value.exit_code == 0
        return
    command = cli.get_command(click.Context(cli), first)
    assert command is not None, f"no command trainc {first}"
    with click.Context(cli) as parent:
        command.make_context(first, list(args), parent=parent)


def test_the_guide_runs_the_commands_it_promises() -> None:
    run = [shlex.join(argv) for argv in commands("kubectl")]
    assert "kubectl apply -k rendered/" in run
    assert any(
        line.startswith("kubectl -n trainc-system create job --from=cronjob/") for line in run
    )
    assert any(" logs job/" in line for line in run)


def test_kubectl_apply_k_names_the_directory_compile_writes() -> None:
    # `trainc compile` with no -o writes compile.output, which trainc init sets to rendered.
    assert YAML(typ="safe").load(FILES["trainc.yaml"])["compile"]["output"] == "rendered"
    assert (EXAMPLES / "rendered" / "kustomization.yaml").is_file()


def test_the_sweeper_job_is_made_from_the_cronjob_compile_emits() -> None:
    (create,) = [argv for argv in commands("kubectl") if "create" in argv]
    namespace = create[create.index("-n") + 1]
    source = next(arg for arg in create if arg.startswith("--from=cronjob/"))
    name = source.removeprefix("--from=cronjob/")
    path = EXAMPLES / "rendered" / "_shared" / namespace / f"cronjob-{name}.yaml"
    (cron_job,) = YAML(typ="safe").load_all(path.read_text(encoding="utf-8"))
    assert (cron_job["kind"], cron_job["metadata"]["name"]) == ("CronJob", name)
    # Every later command names the Job the first one created.
    job = create[-1]
    followers = [argv for argv in commands("kubectl") if namespace in argv and argv != create]
    assert followers
    assert all(f"job/{job}" in argv or job in argv for argv in followers)


def test_the_rendered_directory_builds_with_kustomize(tmp_path: Path) -> None:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed")
    result = subprocess.run(
        ["kubectl", "kustomize", str(EXAMPLES / "rendered")],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    kinds = {document["kind"] for document in YAML(typ="safe").load_all(result.stdout)}
    assert {"JobSet", "CronJob"} <= kinds


@pytest.mark.parametrize("snippet", blocks("yaml"))
def test_every_trainc_yaml_snippet_is_a_valid_config(tmp_path: Path, snippet: str) -> None:
    write(tmp_path, "trainc.yaml", snippet)
    loaded = load_config(cwd=tmp_path)
    assert loaded.diagnostics == ()
    assert loaded.config is not None


def test_the_emit_snippet_turns_namespaces_on(tmp_path: Path) -> None:
    (snippet,) = [block for block in blocks("yaml") if "namespaces:" in block]
    write(tmp_path, "trainc.yaml", snippet)
    config = load_config(cwd=tmp_path).config
    assert config is not None
    assert config.compile.emit_namespaces


LINK = re.compile(r"\]\(([^)\s]+)\)")


def _prose(markdown: str) -> str:
    """The text links can be in: code blocks and code spans dropped (``](`` in a regex is none)."""
    without_blocks = re.sub(r"^```.*?^```", "", markdown, flags=re.DOTALL | re.MULTILINE)
    return re.sub(r"`[^`\n]*`", "", without_blocks)


@pytest.mark.parametrize(
    "document",
    [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))],
    ids=lambda path: path.name,
)
def test_local_links_name_files_and_headings_that_exist(document: Path) -> None:
    text = _prose(document.read_text(encoding="utf-8"))
    for target in LINK.findall(text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        resolved = (document.parent / path).resolve() if path else document
        assert resolved.exists(), f"{document.name}: {target}"
        if anchor and resolved.suffix == ".md":
            assert anchor in anchors(resolved), f"{document.name}: {target}"
