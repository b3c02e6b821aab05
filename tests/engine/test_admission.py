"""The engine's admission: the cluster read once per run, whatever files are named,
schema-checked, reaching forked workers, and part of a cached verdict's key."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.gitrepo import git
from trainc.app import validate_paths
from trainc.cache.store import Store
from trainc.checks.transitions import base as base_revision
from trainc.diagnostics import Severity
from trainc.engine import workers
from trainc.load.defaulted import DefaultedObject
from trainc.resolve import childjobs
from trainc.resolve.childjobs import ChildJob
from trainc.resolve.job import resolve_job
from trainc.resolve.resolved import ResolvedJob

CASE = Path(__file__).parents[1] / "cases" / "psa" / "invalid" / "forbidden"
RESTRICTED = (CASE / "platform" / "namespace.yaml").read_text(encoding="utf-8")
PRIVILEGED = RESTRICTED.replace("restricted", "privileged")


def repository(root: Path) -> Path:
    shutil.copytree(CASE, root)
    (root / "expect.yaml").unlink()
    (root / ".git").mkdir()  # the repository root marker, so discovery stops here
    return root


def codes(root: Path, *paths: Path, **choices: object) -> list[str]:
    report = validate_paths(list(paths), cwd=root, **choices)  # type: ignore[arg-type]
    return [f.code for f in report.diagnostics if f.severity is not Severity.INFO]


def test_a_run_on_named_files_reads_the_cluster_of_the_whole_repository(tmp_path: Path) -> None:
    root = repository(tmp_path / "repo")
    assert codes(root, root / "trainjob.yaml") == ["psa.forbidden"]


def test_a_run_on_named_files_finds_the_cluster_objects_among_other_inputs(
    tmp_path: Path,
) -> None:
    root = repository(tmp_path / "repo")
    (root / "platform" / "namespace.yaml").rename(root / "namespaces.yaml")
    (root / "trainc.yaml").write_text("cluster: {manifests: []}\n", encoding="utf-8")
    assert codes(root) == ["psa.forbidden"]
    assert codes(root, root / "trainjob.yaml") == ["psa.forbidden"]


def test_the_manifests_are_schema_checked_at_their_line(tmp_path: Path) -> None:
    root = repository(tmp_path / "repo")
    (root / "platform" / "quota.yaml").write_text(
        "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: q\n  namespace: ml\n"
        "spec:\n  hardd: {pods: '4'}\n",
        encoding="utf-8",
    )
    report = validate_paths([], cwd=root)
    [invalid] = [f for f in report.diagnostics if f.code == "cluster.invalid-object"]
    assert invalid.file == "platform/quota.yaml"
    assert invalid.line == 6
    assert "ResourceQuota does not match the Kubernetes" in invalid.message
    assert "hardd" in invalid.message
    assert "platform/quota.yaml" in report.sources


@pytest.mark.parametrize(
    "manifest",
    [
        # A kind that is no name: looking its schema up named a directory outside the bundle.
        "kind: \\/Namespace\nmetadata:\n  name: ml\n",
        # An apiVersion that is a mapping: its text made a file name too long to open.
        "apiVersion:\n  kind: ClusterTrainingRuntime\n  metadata: {name: torch}\n"
        f"  spec: {{image: {'x' * 300}}}\nkind: Namespace\nmetadata:\n  name: ml\n",
    ],
)
def test_a_manifest_whose_kind_or_api_version_is_no_name_is_no_crash(
    tmp_path: Path, manifest: str
) -> None:
    """The fuzzer's finds: such a document is no object of a kind kubernetes-validate
    knows, so it is not schema-checked, and the run goes on."""
    root = repository(tmp_path / "repo")
    (root / "platform" / "odd.yaml").write_text(manifest, encoding="utf-8")
    report = validate_paths([], cwd=root)
    assert "psa.forbidden" in [f.code for f in report.diagnostics]


def test_a_cached_verdict_does_not_survive_a_change_of_the_cluster(tmp_path: Path) -> None:
    root = repository(tmp_path / "repo")
    store = Store.open(tmp_path / "cache")
    assert isinstance(store, Store)
    assert codes(root, cache=store) == ["psa.forbidden"]
    assert codes(root, cache=store) == ["psa.forbidden"]
    (root / "platform" / "namespace.yaml").write_text(PRIVILEGED, encoding="utf-8")
    assert codes(root, cache=store) == []


def test_forked_workers_judge_admission(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "MIN_ITEMS_PER_WORKER", 1)
    root = repository(tmp_path / "repo")
    job = (root / "trainjob.yaml").read_text(encoding="utf-8")
    for number in range(4):
        (root / f"trainjob-{number}.yaml").write_text(
            job.replace("name: job", f"name: job-{number}"), encoding="utf-8"
        )
    report = validate_paths([], cwd=root, jobs=2)
    [merged] = [f for f in report.diagnostics if f.code == "psa.forbidden"]
    assert merged.message.startswith("5 TrainJobs (ml/job, ml/job-0, ml/job-1 and 2 more): ")


def test_the_child_jobs_are_built_once_for_the_job_checks_and_admission(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Constructing the child Jobs walks the whole JobSet: the Job checks and every
    admission family share one construction per TrainJob."""
    built: list[int] = []
    construct = childjobs._JobSet.construct

    def counted(jobset: Any, index: int) -> ChildJob:
        built.append(index)
        return construct(jobset, index)

    monkeypatch.setattr(childjobs._JobSet, "construct", counted)
    root = repository(tmp_path / "repo")
    assert codes(root) == ["psa.forbidden"]
    assert built == [0]


def test_with_base_the_deployed_trainjob_is_resolved_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The admission's UPDATEs and the JobSet update checks share the TrainJob resolved
    at the base revision."""
    case = CASE.parents[2] / "vap" / "invalid" / "denied--update"
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    shutil.copytree(case / "base", root, dirs_exist_ok=True)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    shutil.copy(case / "trainjob.yaml", root / "trainjob.yaml")
    resolved_at_base: list[str] = []
    real = resolve_job

    def counted(trainjob: DefaultedObject, *args: Any, **kwargs: Any) -> ResolvedJob:
        resolved_at_base.append(trainjob.name)
        return real(trainjob, *args, **kwargs)

    monkeypatch.setattr(base_revision, "resolve_job", counted)
    assert codes(root, base="HEAD", cache=None) == ["vap.denied"]
    assert resolved_at_base == ["job"]
