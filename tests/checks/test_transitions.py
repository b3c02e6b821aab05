"""``--base``: each TrainJob's JobSet against the one it deployed, reported once per edit."""

from __future__ import annotations

from pathlib import Path

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.checks.transitions.base import BaseRevision
from trainc.config.read import load_config
from trainc.diagnostics import Diagnostic
from trainc.engine.job_pass import JobStages
from trainc.engine.pipeline import PassChoices, validate_objects
from trainc.load.inputs import load_inputs
from trainc.policy.apply import load_policies

BUMPED = TORCH_RUNTIME.replace("pytorch:2.13.0", "pytorch:2.14.0")
IMAGE_LINE = next(n for n, line in enumerate(BUMPED.splitlines(), 1) if "2.14.0" in line)


def _validate(
    base: dict[str, str], head: dict[str, str], root: Path, seen: list[bool] | None = None
) -> list[Diagnostic]:
    """Validate ``head``'s files with ``base``'s as the base revision (read as a
    repository of its own: paths relative to its root, as ``git show`` gives them)."""
    for side, files in (("base", base), ("head", head)):
        (root / side / ".git").mkdir(parents=True)
        for name, text in files.items():
            write(root / side, name, text)
    config, base_config = (load_config(cwd=root / side).config for side in ("head", "base"))
    assert config is not None
    assert base_config is not None

    base_objects = load_inputs([root / "base"], config=base_config).objects
    outcome = validate_objects(
        load_inputs([root / "head"], config=config).objects,
        config,
        load_policies(config),
        choices=PassChoices(base=BaseRevision(base_objects, config), stages=JobStages(keep=True)),
    )
    if seen is not None:
        seen.extend(kept.clean for kept in outcome.kept)
    return [d for d in outcome.diagnostics if d.is_error]


def _jobs(count: int) -> dict[str, str]:
    return {f"job-{index}.yaml": trainjob_yaml(f"job-{index}") for index in range(count)}


def test_a_runtime_edit_refused_by_many_jobsets_is_one_finding_naming_them(
    tmp_path: Path,
) -> None:
    base = {"runtime.yaml": TORCH_RUNTIME, **_jobs(7)}

    (finding,) = _validate(base, {**base, "runtime.yaml": BUMPED}, tmp_path)

    assert (finding.code, finding.file, finding.line) == (
        "xobj.jobset-immutable",
        "runtime.yaml",
        IMAGE_LINE,
    )
    assert finding.message == (
        "the 7 deployed JobSets default/job-0, default/job-1, default/job-2, default/job-3, "
        "default/job-4 and 2 more refuse this update: spec.replicatedJobs: field is immutable"
    )


def test_one_deployed_jobset_is_named_alone(tmp_path: Path) -> None:
    base = {"runtime.yaml": TORCH_RUNTIME, **_jobs(1)}

    (finding,) = _validate(base, {**base, "runtime.yaml": BUMPED}, tmp_path)

    assert finding.message.startswith("the deployed JobSet default/job-0 refuses this update: ")


def test_a_refused_update_makes_the_run_unclean_for_its_job(tmp_path: Path) -> None:
    base = {"runtime.yaml": TORCH_RUNTIME, **_jobs(1)}
    seen: list[bool] = []

    _validate(base, {**base, "runtime.yaml": BUMPED}, tmp_path, seen)

    assert seen == [False]


def test_a_trainjob_new_since_the_base_has_nothing_deployed(tmp_path: Path) -> None:
    base = {"runtime.yaml": TORCH_RUNTIME}

    assert _validate(base, {"runtime.yaml": BUMPED, **_jobs(2)}, tmp_path) == []


def test_a_trainjob_whose_own_update_is_refused_is_reported_for_that_alone(
    tmp_path: Path,
) -> None:
    other = TORCH_RUNTIME.replace("name: torch", "name: torch-2").replace("2.13.0", "2.14.0")
    base = {"runtime.yaml": TORCH_RUNTIME, "other.yaml": other, "job.yaml": trainjob_yaml()}
    head = {**base, "job.yaml": trainjob_yaml(runtime="torch-2")}

    (finding,) = _validate(base, head, tmp_path)

    assert finding.code == "cel.trainjob.runtime-ref-immutable"
    assert finding.message == "field is immutable"  # as the CRD words it
    assert finding.hint == (
        'changed spec.runtimeRef.name: "torch" → "torch-2"; to change it, submit the job '
        "under a new metadata.name; rule: self == oldSelf"
    )


def test_a_runtime_whose_own_update_is_refused_says_to_make_a_new_runtime(
    tmp_path: Path,
) -> None:
    base = {"runtime.yaml": TORCH_RUNTIME, **_jobs(1)}
    edited = TORCH_RUNTIME.replace(
        "publishNotReadyAddresses: true", "publishNotReadyAddresses: false"
    )

    (finding,) = _validate(base, {**base, "runtime.yaml": edited}, tmp_path)

    assert (finding.code, finding.message) == ("cel.jobset.network-immutable", "Value is immutable")
    assert finding.hint == (
        "changed spec.template.spec.network.publishNotReadyAddresses: true → false; to change "
        "it, put the change in a new runtime (a new metadata.name) for new TrainJobs, and keep "
        "this one as it is for the jobs already deployed from it; rule: self == oldSelf"
    )


def test_a_trainjob_that_did_not_resolve_at_the_base_deployed_nothing(tmp_path: Path) -> None:
    # At the base the TrainJob named a runtime that did not exist: nothing compiled.
    base = {"job.yaml": trainjob_yaml()}

    assert _validate(base, {"runtime.yaml": BUMPED, **base}, tmp_path) == []
