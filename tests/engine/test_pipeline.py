"""The order of validation: a TrainJob is judged on what it resolves to, once, after its inputs."""

from __future__ import annotations

from pathlib import Path

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.config.read import load_config
from trainc.engine.job_pass import JobStages
from trainc.engine.pipeline import PassChoices, validate_objects
from trainc.load.inputs import load_inputs
from trainc.policy.apply import load_policies

NO_IMAGE = TORCH_RUNTIME.replace("                      image: pytorch/pytorch:2.13.0\n", "")


def _run(root: Path, seen: list[tuple[str, bool]] | None = None) -> list[tuple[str, str | None]]:
    config = load_config(cwd=root).config
    assert config is not None

    outcome = validate_objects(
        load_inputs([root], config=config).objects,
        config,
        load_policies(config),
        choices=PassChoices(stages=JobStages(keep=True)),
    )
    if seen is not None:
        seen.extend((kept.resolved.name, kept.clean) for kept in outcome.kept)
    return sorted((d.code, d.file) for d in outcome.diagnostics if d.is_error)


def test_the_jobs_of_a_trainjob_are_judged_once_it_and_its_runtime_are_valid(
    tmp_path: Path,
) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", NO_IMAGE)
    write(tmp_path, "a.yaml", trainjob_yaml("a"))

    assert _run(tmp_path) == [("pod.image", "runtime.yaml")]


def test_an_input_the_api_server_refuses_first_hides_the_findings_about_its_jobs(
    tmp_path: Path,
) -> None:
    (tmp_path / ".git").mkdir()
    write(
        tmp_path,
        "runtime.yaml",
        NO_IMAGE.replace("      network:\n", "      network:\n        subdomain: Not_A_Label\n"),
    )
    write(tmp_path, "a.yaml", trainjob_yaml("a"))

    # The JobSet webhook refuses the subdomain: the Jobs (no image) never exist.
    assert _run(tmp_path) == [("xobj.jobset-subdomain", "runtime.yaml")]


def test_trainjobs_are_resolved_in_name_order_and_told_when_the_run_is_clean(
    tmp_path: Path,
) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "runtime.yaml", TORCH_RUNTIME)
    write(tmp_path, "z.yaml", trainjob_yaml("zeta"))
    write(tmp_path, "b.yaml", trainjob_yaml("beta"))
    bad = TORCH_RUNTIME.replace("name: torch", "name: bare").replace(
        "                      image: pytorch/pytorch:2.13.0\n", ""
    )
    write(tmp_path, "bare.yaml", bad)
    write(tmp_path, "m.yaml", trainjob_yaml("mid", runtime="bare"))
    seen: list[tuple[str, bool]] = []

    assert _run(tmp_path, seen) == [("pod.image", "bare.yaml")]
    assert seen == [("beta", True), ("mid", False), ("zeta", False)]
