"""``trainc compile PATH`` in a repository whose ``compile.output`` holds every TrainJob.

A team adopting trainc found that ``trainc compile jobs/vision/yolo.yaml`` rewrote
``rendered/`` with that one job, deleting the 13 others' manifests and a namespace's
sweeper RBAC (a GitOps prune then deletes running trainings). Into the configured
directory a compile of some paths now updates the files of those paths' TrainJobs and
keeps every other file, the sweeper computed for every namespace the directory deploys;
``-o DIR`` and ``-o -`` get the selection alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.cli.conftest import Invoke
from tests.emit.trees import snapshot
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write

CONFIG = """\
apiVersion: trainc.dev/v1alpha1
kind: Config
compile:
  output: rendered
sweeper:
  image: registry.example.com/trainc:0.1.0
  namespace: trainc-system
"""

#: 14 TrainJobs by file: (namespace, name). ``audio`` has one job, so its sweeper Role
#: and RoleBinding exist only while that job's file is in the output.
JOBS = {
    **{f"jobs/vision/{name}.yaml": ("vision", name) for name in ("yolo", "resnet", "vit", "detr")},
    **{f"jobs/research/r{index}.yaml": ("research", f"r{index}") for index in range(6)},
    "jobs/llm/llama.yaml": ("llm", "llama"),
    "jobs/llm/bert.yaml": ("llm", "bert"),
    "jobs/llm/gpt.yaml": ("llm", "gpt"),
    "jobs/audio/whisper.yaml": ("audio", "whisper"),
}
YOLO = "jobs/vision/yolo.yaml"


def trainjob(namespace: str, name: str, *, deadline: int = 3600) -> str:
    """A TrainJob on the ``torch`` runtime in ``namespace``."""
    return trainjob_yaml(name, deadline=deadline).replace(
        f"  name: {name}\n", f"  name: {name}\n  namespace: {namespace}\n"
    )


@pytest.fixture
def repo(tmp_path: Path, invoke: Invoke) -> Path:
    """The team's repository, compiled whole into ``rendered/``."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, "trainc.yaml", CONFIG)
    write(tmp_path, "runtimes/torch.yaml", TORCH_RUNTIME)
    for path, (namespace, name) in JOBS.items():
        write(tmp_path, path, trainjob(namespace, name))
    assert invoke(tmp_path, "compile").code == 0
    return tmp_path


def rendered(repo: Path) -> dict[str, bytes]:
    return {path: data for path, (data, _) in snapshot(repo / "rendered").items() if data != b"/"}


def job_files(tree: dict[str, bytes]) -> set[str]:
    return {path for path in tree if not path.startswith("_shared") and "/" in path}


def test_compiling_one_file_keeps_the_other_jobs_and_the_sweeper(
    repo: Path, invoke: Invoke
) -> None:
    before = rendered(repo)
    assert len(job_files(before)) == len(JOBS) == 14
    assert "_shared/audio/role-trainc-sweeper.yaml" in before

    write(repo, YOLO, trainjob("vision", "yolo", deadline=7200))
    result = invoke(repo, "compile", YOLO)

    assert result.code == 0, result.err
    after = rendered(repo)
    changed = {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
    assert changed == {"vision/yolo.yaml"}
    assert b"7200" in after["vision/yolo.yaml"]
    assert "Compiled 1 TrainJob into" in result.err
    assert "the files of 13 other TrainJobs were kept as they were" in result.err
    assert "`trainc compile` without paths compiles every TrainJob" in result.err
    # Exactly what compiling the whole repository writes.
    assert invoke(repo, "compile", "--check").code == 0


def test_compiling_an_unchanged_file_changes_nothing(repo: Path, invoke: Invoke) -> None:
    before = snapshot(repo / "rendered")

    assert invoke(repo, "compile", YOLO).code == 0
    assert invoke(repo, "compile", "jobs/vision/", "-q").code == 0

    assert snapshot(repo / "rendered") == before


def test_a_job_moved_to_a_new_namespace_gets_the_sweeper_there(repo: Path, invoke: Invoke) -> None:
    write(repo, "jobs/audio/whisper.yaml", trainjob("speech", "whisper"))

    assert invoke(repo, "compile", "jobs/audio/whisper.yaml").code == 0

    after = rendered(repo)
    assert "speech/whisper.yaml" in after
    assert "audio/whisper.yaml" not in after
    assert "_shared/speech/role-trainc-sweeper.yaml" in after
    assert "_shared/audio/role-trainc-sweeper.yaml" not in after
    cron_job = YAML(typ="safe").load(after["_shared/trainc-system/cronjob-trainc-sweeper.yaml"])
    args = cron_job["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["args"]
    swept = [args[index + 1] for index, arg in enumerate(args) if arg == "--namespace"]
    assert swept == ["llm", "research", "speech", "vision"]
    assert invoke(repo, "compile", "--check").code == 0


def test_a_job_renamed_or_removed_in_a_named_path_loses_its_file(
    repo: Path, invoke: Invoke
) -> None:
    write(repo, YOLO, trainjob("vision", "yolo-v8"))
    (repo / "jobs/vision/detr.yaml").unlink()

    assert invoke(repo, "compile", "jobs/vision").code == 0

    files = job_files(rendered(repo))
    assert "vision/yolo-v8.yaml" in files
    assert not files & {"vision/yolo.yaml", "vision/detr.yaml"}
    assert len(files) == 13
    assert invoke(repo, "compile", "--check").code == 0


def test_other_jobs_are_not_judged_or_rewritten(repo: Path, invoke: Invoke) -> None:
    write(repo, "jobs/llm/gpt.yaml", trainjob("llm", "gpt", deadline=60))
    before = rendered(repo)["llm/gpt.yaml"]

    assert invoke(repo, "compile", YOLO).code == 0

    assert rendered(repo)["llm/gpt.yaml"] == before
    assert invoke(repo, "compile", "--check", YOLO).code == 0
    whole = invoke(repo, "compile", "--check")
    assert whole.code == 1
    assert "stale llm/gpt.yaml" in whole.err


def test_a_copy_that_keeps_the_name_is_refused_not_written_over_the_original(
    repo: Path, invoke: Invoke
) -> None:
    before = snapshot(repo / "rendered")
    write(repo, "jobs/vision/yolo-v2.yaml", trainjob("vision", "yolo", deadline=60))

    copied = invoke(repo, "compile", "jobs/vision/yolo-v2.yaml")

    assert copied.code == 1
    assert "jobs/vision/yolo-v2.yaml:4:3: error[xobj.duplicate-object]" in copied.err
    assert snapshot(repo / "rendered") == before


def test_a_job_moved_to_a_file_compiled_alone_is_refused(repo: Path, invoke: Invoke) -> None:
    before = snapshot(repo / "rendered")
    (repo / YOLO).rename(repo / "jobs/vision/yolo-v8.yaml")

    moved = invoke(repo, "compile", "jobs/vision/yolo-v8.yaml")

    assert moved.code == 2
    assert "refusing to replace vision/yolo.yaml" in moved.err
    assert "it was compiled from jobs/vision/yolo.yaml" in moved.err
    assert "Traceback" not in moved.err
    assert snapshot(repo / "rendered") == before
    assert invoke(repo, "compile", "jobs/vision/").code == 0
    assert invoke(repo, "compile", "--check").code == 0


def test_check_with_paths_compares_the_selection_and_the_shared_objects(
    repo: Path, invoke: Invoke
) -> None:
    current = invoke(repo, "compile", "--check", YOLO)
    assert current.code == 0, current.err
    assert "(1 TrainJob; the files of 13 other TrainJobs were not compared)" in current.err

    write(repo, YOLO, trainjob("speech", "yolo"))
    stale = invoke(repo, "compile", "--check", YOLO)

    assert stale.code == 1
    lines = [line.split(": ", 1)[1] for line in stale.err.splitlines() if "rendered: " in line]
    assert lines == [
        "stale .trainc-owned",
        "missing _shared/speech/role-trainc-sweeper.yaml",
        "missing _shared/speech/rolebinding-trainc-sweeper.yaml",
        "stale _shared/trainc-system/cronjob-trainc-sweeper.yaml",
        "stale kustomization.yaml",
        "missing speech/yolo.yaml",
        "extra vision/yolo.yaml",
    ]
    assert f"Run `trainc compile {YOLO}` to update it." in stale.err


def test_output_elsewhere_gets_only_the_selection(repo: Path, invoke: Invoke) -> None:
    assert invoke(repo, "compile", YOLO, "-o", "out").code == 0
    assert job_files(rendered(repo)) != set()
    written = {path for path, (data, _) in snapshot(repo / "out").items() if data != b"/"}
    assert job_files(dict.fromkeys(written, b"")) == {"vision/yolo.yaml"}
    assert "_shared/vision/role-trainc-sweeper.yaml" in written
    assert "_shared/research/role-trainc-sweeper.yaml" not in written

    streamed = invoke(repo, "compile", YOLO, "-o", "-")
    names = [d["metadata"]["name"] for d in YAML(typ="safe").load_all(streamed.out)]
    assert "yolo" in names
    assert not {"resnet", "whisper"} & set(names)


def test_naming_the_configured_directory_with_o_is_the_same_update(
    repo: Path, invoke: Invoke
) -> None:
    before = snapshot(repo / "rendered")

    assert invoke(repo / "jobs", "compile", "vision/yolo.yaml", "-o", "../rendered/").code == 0

    assert snapshot(repo / "rendered") == before


def test_emitted_namespaces_cover_the_kept_jobs_too(repo: Path, invoke: Invoke) -> None:
    emit = CONFIG.replace("  output: rendered\n", "  output: rendered\n  namespaces: Emit\n")
    write(repo, "trainc.yaml", emit)
    assert invoke(repo, "compile").code == 0
    before = snapshot(repo / "rendered")
    assert "_shared/namespace-audio.yaml" in before

    assert invoke(repo, "compile", YOLO).code == 0

    assert snapshot(repo / "rendered") == before
