"""``trainc validate`` of a repository whose cluster policy calls Kubernetes' CEL libraries
(quantity, CIDR, URL): evaluated as the API server of the configured release does."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.cli.conftest import Invoke

CASE = Path(__file__).parents[1] / "cases" / "vap" / "invalid" / "denied--libraries"


def repository(tmp_path: Path, version: str | None = None) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(CASE, root)
    (root / ".git").mkdir()
    (root / "expect.yaml").unlink()
    if version is not None:
        config = root / "trainc.yaml"
        config.write_text(config.read_text() + f'kubernetesVersion: "{version}"\n')
    return root


def test_library_policy_is_evaluated_and_denies(invoke: Invoke, tmp_path: Path) -> None:
    outcome = invoke(repository(tmp_path), "validate")
    assert outcome.code == 1
    refused = (
        "ValidatingAdmissionPolicy 'data-in-cluster' with binding 'data-in-cluster' "
        "denied request: "
    )
    assert f"{refused}a container may use at most 64Gi of memory" in outcome.out
    assert f"{refused}training data must come from the in-cluster object store" in outcome.out
    assert "vap.not-evaluated" not in outcome.out


def test_a_release_without_the_cidr_library_fails_to_compile_it(
    invoke: Invoke, tmp_path: Path
) -> None:
    # CIDR and IP came with Kubernetes 1.30; quantity with 1.28.
    outcome = invoke(repository(tmp_path, "1.29"), "validate")
    assert outcome.code == 1
    assert "a container may use at most 64Gi of memory" in outcome.out
    assert "compilation error: " in outcome.out
    assert "undeclared reference to 'cidr'" in outcome.out
    assert "vap.not-evaluated" not in outcome.out
