"""``trainc migrate`` as a person and CI run it: diff, --write, stderr, exit codes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import run
from tests.support.manifests import TORCH_RUNTIME, write

V21_TRAINJOB = """\
# Fine-tuning Llama, as the Trainer v2.1 guide wrote it.
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: llama  # one run per dataset
spec:
  runtimeRef:
    name: torch
  # Cost reports group jobs by these.
  labels:
    team: ml
    cost-center: "4711"  # finance wants it quoted
  # A100 nodes only; the V100s run out of memory.
  podTemplateOverrides:
    - targetJobs:
        - name: node
      metadata:
        annotations:
          example.com/owner: ml-platform
      spec:
        nodeSelector:
          gpu: a100
  trainer:
    numNodes: 2
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtimes/torch.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/llama.yaml", V21_TRAINJOB)
    return tmp_path


def test_a_v21_trainjob_migrates_keeps_its_comments_and_validates(repo: Path) -> None:
    result = run(repo, "migrate", "--write", "--manager", "example.com/ml-platform")

    assert (result.returncode, result.stdout) == (0, ""), result.stderr
    assert result.stderr == "1 file rewritten.\n"
    text = (repo / "jobs/llama.yaml").read_text()
    comments = [line.split("#", 1)[1] for line in V21_TRAINJOB.splitlines() if "#" in line]
    assert [comment for comment in comments if comment not in text] == []
    assert 'cost-center: "4711"' in text
    assert "manager: example.com/ml-platform" in text
    validated = run(repo, "validate")
    assert validated.returncode == 0, validated.stdout
    assert "migrate." not in validated.stdout


def test_without_write_it_prints_a_diff_and_exits_1(repo: Path) -> None:
    write(repo, "jobs/a.yaml", V21_TRAINJOB.replace("name: llama", "name: a"))
    before = (repo / "jobs/llama.yaml").read_text()

    result = run(repo, "migrate")

    assert result.returncode == 1
    headers = [line for line in result.stdout.splitlines() if line.startswith(("---", "+++"))]
    assert headers == [
        "--- a/jobs/a.yaml",
        "+++ b/jobs/a.yaml",
        "--- a/jobs/llama.yaml",
        "+++ b/jobs/llama.yaml",
    ]
    assert "-  podTemplateOverrides:\n" in result.stdout
    assert "+  runtimePatches:\n" in result.stdout
    assert result.stderr == "2 files would be rewritten.\n"
    assert (repo / "jobs/llama.yaml").read_text() == before
    assert run(repo, "migrate").stdout == result.stdout  # stable


def test_nothing_to_migrate_exits_0_with_an_empty_diff(repo: Path) -> None:
    assert run(repo, "migrate", "--write").returncode == 0

    result = run(repo, "migrate")

    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr == "0 files would be rewritten.\n"


def test_what_is_left_is_on_stderr_with_file_and_line(repo: Path) -> None:
    write(repo, "jobs/model.yaml.j2", V21_TRAINJOB.replace("name: llama", "name: model"))

    result = run(repo, "migrate", "--write")

    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith("jobs/model.yaml.j2:10:3: error[migrate.overrides]: spec.labels")
    assert lines[2] == (
        "  = note: not rewritten: a Jinja template is YAML only once rendered: edit the "
        "template by hand"
    )
    assert lines[-1] == "1 file rewritten, 2 findings left as is."


def test_a_bad_manager_is_a_usage_error(repo: Path) -> None:
    result = run(repo, "migrate", "--manager", "ml-platform")

    assert result.returncode == 2
    assert result.stderr.startswith("trainc: error: --manager ml-platform:")


def test_help_explains_with_examples(repo: Path) -> None:
    result = run(repo, "migrate", "--help")

    assert result.returncode == 0
    assert "trainc migrate --write" in result.stdout
    assert "Exit codes:" in result.stdout


def _readme_example() -> tuple[str, str]:
    """The worked example of docs/migrate.md: the file, and the diff shown."""
    guide = Path(__file__).resolve().parents[2] / "docs" / "migrate.md"
    section = guide.read_text(encoding="utf-8")
    [source] = re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)
    [diff] = re.findall(r"```diff\n(.*?)```", section, re.DOTALL)
    return source, diff


def test_the_documented_example_prints_the_diff_it_shows(tmp_path: Path) -> None:
    source, diff = _readme_example()
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "jobs/llama.yaml", source)

    result = run(tmp_path, "migrate")

    assert (result.returncode, result.stdout) == (1, diff)
