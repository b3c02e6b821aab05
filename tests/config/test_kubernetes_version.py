"""trainc.yaml's kubernetesVersion must name a release trainc knows the rules of
(``"1.20"`` and ``"1.40"`` were accepted in silence while the docs said 1.29 to 1.36)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.checks.workload.version import (
    KNOWN_RELEASES,
    NEWEST_RELEASE,
    OLDEST_RELEASE,
    nearest_release,
    parse_version,
)
from trainc.config.settings import DEFAULT_KUBERNETES_VERSION


def _repo(root: Path, version: str) -> Path:
    (root / ".git").mkdir()
    write(root, "trainc.yaml", f'kind: Config\nkubernetesVersion: "{version}"\n')
    write(root, "runtime.yaml", TORCH_RUNTIME)
    write(root, "jobs/a.yaml", trainjob_yaml("a"))
    return root


@pytest.mark.parametrize("version", ["1.20", "1.28", "1.37", "1.40"])
def test_a_release_outside_the_known_range_fails_validate_and_compile(
    tmp_path: Path, version: str
) -> None:
    root = _repo(tmp_path, version)
    checked = run(root, "validate")
    assert checked.returncode == 1, checked.stdout
    assert (
        f"trainc.yaml:2:1: error[config.invalid]: kubernetesVersion '{version}' is not a "
        "release trainc knows the rules of (Kubernetes 1.29 to 1.36)"
    ) in checked.stdout
    assert "help: name your cluster's release (the newest trainc knows is '1.36')" in (
        checked.stdout
    )
    compiled = run(root, "compile", "-o", "-")
    assert compiled.returncode == 1
    assert compiled.stdout == ""


@pytest.mark.parametrize("version", ["1.29", "1.33", "1.36"])
def test_a_known_release_passes(tmp_path: Path, version: str) -> None:
    checked = run(_repo(tmp_path, version), "validate")
    assert checked.returncode == 0, checked.stdout


def test_the_range_the_docs_state_is_the_one_enforced() -> None:
    assert KNOWN_RELEASES == "1.29 to 1.36"
    docs = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
    assert "for releases 1.29 to 1.36" in docs.read_text(encoding="utf-8")
    default = parse_version(DEFAULT_KUBERNETES_VERSION)
    assert nearest_release(default) == default
    assert nearest_release((1, 28)) == OLDEST_RELEASE
    assert nearest_release((1, 40)) == NEWEST_RELEASE
