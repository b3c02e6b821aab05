"""The Argo CD health check of JobSets (deploy/argocd/jobset-health.lua), run in Lua 5.1.

Argo CD evaluates health checks with gopher-lua, a Lua 5.1: the script gets the live object
as the global ``obj`` (decoded from its JSON) and returns a table with ``status`` and
``message``. The cases in ``tests/argocd_health/health_test.yaml`` are laid out as Argo
CD's own ``resource_customizations`` tests are, one JobSet per file and the health
expected of it; the same Lua file is what the kustomize component installs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.test_argocd import DEPLOY, EXAMPLES, kustomize_with_argo_cd, load

lua51 = pytest.importorskip("lupa.lua51")

SCRIPT = DEPLOY / "jobset-health.lua"
CASES = Path(__file__).parent / "argocd_health"
#: argocd-cm's key for a health check: resource.customizations.health.<group>_<kind>.
KEY = "resource.customizations.health.jobset.x-k8s.io_JobSet"
#: The statuses Argo CD knows (gitops-engine's health package).
STATUSES = {"Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"}


def health(obj: dict[str, Any]) -> dict[str, str]:
    """What Argo CD shows for ``obj``: the script run with ``obj`` as the global ``obj``."""
    runtime = lua51.LuaRuntime(register_eval=False, register_builtins=False)
    runtime.globals()["obj"] = runtime.table_from(obj, recursive=True)
    result = runtime.execute(SCRIPT.read_text(encoding="utf-8"))
    return {key: result[key] for key in ("status", "message") if result[key] is not None}


def cases() -> list[Any]:
    tests = load(CASES / "health_test.yaml")["tests"]
    return [pytest.param(case, id=Path(case["inputPath"]).stem) for case in tests]


@pytest.mark.parametrize("case", cases())
def test_each_jobset_state_has_its_health(case: dict[str, Any]) -> None:
    expected = case["healthStatus"]
    assert expected["status"] in STATUSES
    assert health(load(CASES / case["inputPath"])) == expected


def test_every_fixture_is_a_case() -> None:
    listed = {case["inputPath"] for case in load(CASES / "health_test.yaml")["tests"]}
    present = {path.relative_to(CASES).as_posix() for path in (CASES / "testdata").iterdir()}
    assert listed == present


def test_a_compiled_jobset_progresses_until_the_controller_reports() -> None:
    """What trainc emits (no status yet) is Progressing, never Healthy before it ran."""
    jobsets = [
        document
        for path in sorted((EXAMPLES / "rendered").rglob("*.yaml"))
        for document in YAML(typ="safe").load_all(path.read_text(encoding="utf-8"))
        if isinstance(document, dict) and document.get("kind") == "JobSet"
    ]
    assert jobsets
    for jobset in jobsets:
        status = health(jobset)["status"]
        suspended = jobset["spec"].get("suspend") is True
        assert status == ("Suspended" if suspended else "Progressing"), jobset["metadata"]


def test_a_failure_wins_over_every_other_condition() -> None:
    failed = load(CASES / "testdata" / "failed.yaml")
    failed["spec"]["suspend"] = True
    failed["status"]["conditions"].append(
        {"type": "Completed", "status": "True", "reason": "AllJobsCompleted", "message": ""}
    )
    assert health(failed)["status"] == "Degraded"


def test_the_component_references_the_script_under_argo_cds_key() -> None:
    kustomization = load(DEPLOY / "kustomization.yaml")
    generators = {generator["name"]: generator for generator in kustomization["configMapGenerator"]}
    argocd_cm = generators["argocd-cm"]
    assert argocd_cm["behavior"] == "merge"
    assert argocd_cm["files"] == [f"{KEY}={SCRIPT.name}"]


def test_kustomize_merges_exactly_the_script_into_argocd_cm(tmp_path: Path) -> None:
    merged = kustomize_with_argo_cd(tmp_path)["argocd-cm"]
    # Argo CD reads argocd-cm by that exact name: no hash suffix, its own keys kept.
    assert merged["metadata"]["labels"]["app.kubernetes.io/part-of"] == "argocd"
    assert merged["data"] == {
        "url": "https://argocd.example.com",
        KEY: SCRIPT.read_text(encoding="utf-8"),
    }
