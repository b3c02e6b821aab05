"""The compile's output sinks: each form equal to the in-memory layout, nothing visible early."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from tests.emit.trees import file_contents, snapshot
from tests.support.compiled import Collected
from trainc.emit.layout import JobOutput, layout, render_stream
from trainc.emit.selection import Selection
from trainc.emit.sinks import DirectoryCheck, DirectoryOutput, OutputSink, StreamOutput
from trainc.emit.writer import NEW_SUFFIX, OWNERSHIP_FILE, check_tree
from trainc.errors import UsageError
from trainc.model.json import JsonObject


def _obj(kind: str, name: str, namespace: str | None = "team-a", **extra: str) -> JsonObject:
    metadata: JsonObject = {"name": name, "annotations": {"trainc.dev/source": f"jobs/{name}"}}
    if namespace is not None:
        metadata["namespace"] = namespace
    api = "jobset.x-k8s.io/v1alpha2" if kind == "JobSet" else "v1"
    return {"apiVersion": api, "kind": kind, "metadata": metadata, **extra}


JOBS = (
    JobOutput("team-a", "alpha", (_obj("JobSet", "alpha"), _obj("ConfigMap", "alpha-hosts"))),
    JobOutput("team-a", "beta", (_obj("JobSet", "beta"),)),
    JobOutput("team-b", "gamma", (_obj("PersistentVolumeClaim", "data", "team-b"),)),
)
SHARED = (_obj("ServiceAccount", "sweeper", "trainc-system"), _obj("CronJob", "sweeper", "x"))


def _run(sink: OutputSink[Any], root: Path, *, finish: bool = True) -> None:
    """Drive ``sink`` as a compile does."""
    sink.prepare(root, "rendered", Selection())
    try:
        for job in JOBS:
            sink.add(sink.render(job))
        if finish:
            sink.complete(SHARED)
    finally:
        sink.close()


def test_directory_output_writes_exactly_the_layout(tmp_path: Path) -> None:
    sink = DirectoryOutput(None, [])
    _run(sink, tmp_path)

    assert sink.directory == tmp_path / "rendered"
    files = layout(JOBS, SHARED)
    assert file_contents(tmp_path / "rendered") == {
        **files,
        OWNERSHIP_FILE: "".join(f"{path}\n" for path in sorted(files)).encode(),
    }
    assert sink.result is not None
    assert OWNERSHIP_FILE in sink.result.changed


def test_nothing_is_visible_before_finish_and_nothing_stays_without_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _run(DirectoryOutput(out, []), tmp_path)
    before = snapshot(out)

    sink = DirectoryOutput(out, [])
    sink.prepare(tmp_path, None, Selection())
    sink.add(sink.render(JobOutput("team-c", "delta", (_obj("JobSet", "delta", "team-c"),))))
    assert snapshot(out) == before  # staged beside it, not in it
    assert (tmp_path / f".out{NEW_SUFFIX}").is_dir()
    sink.close()

    assert snapshot(out) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out"]


def test_a_foreign_directory_is_refused_when_opened(tmp_path: Path) -> None:
    write_here = tmp_path / "out"
    write_here.mkdir()
    (write_here / "notes.md").write_text("mine")
    sink = DirectoryOutput(write_here, [])
    with pytest.raises(UsageError, match=r"has no \.trainc-owned"):
        _run(sink, tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out"]


def test_directory_check_agrees_with_check_tree(tmp_path: Path) -> None:
    out = tmp_path / "out"
    missing = DirectoryCheck(out, [])
    _run(missing, tmp_path)
    assert missing.problems == check_tree(out, layout(JOBS, SHARED))
    assert missing.problems
    assert all(line.startswith("missing ") for line in missing.problems)

    _run(DirectoryOutput(out, []), tmp_path)
    (out / "team-a" / "beta.yaml").write_text("edited by hand\n")
    (out / "team-a" / "old.yaml").write_text("")
    stale = DirectoryCheck(out, [])
    _run(stale, tmp_path)
    assert stale.problems == ["stale team-a/beta.yaml", "extra team-a/old.yaml"]


def test_stream_output_is_the_canonical_stream_of_every_object(tmp_path: Path) -> None:
    out = io.BytesIO()
    _run(StreamOutput(out), tmp_path)
    objects = [*(obj for job in JOBS for obj in job.objects), *SHARED]
    assert out.getvalue() == render_stream(objects).encode()


def test_unfinished_outputs_write_and_keep_nothing(tmp_path: Path) -> None:
    out = io.BytesIO()
    _run(StreamOutput(out), tmp_path, finish=False)
    assert out.getvalue() == b""
    collected = Collected()
    _run(collected, tmp_path, finish=False)
    assert (collected.jobs, collected.files, collected.stream) == ([], {}, "")


def test_collected_output_shows_both_forms(tmp_path: Path) -> None:
    collected = Collected()
    _run(collected, tmp_path)
    assert collected.files == layout(JOBS, SHARED)
    assert collected.stream == render_stream([*(o for j in JOBS for o in j.objects), *SHARED])


@pytest.mark.parametrize("sink_type", [DirectoryOutput, DirectoryCheck])
def test_a_directory_must_be_chosen_and_may_not_overlap_the_inputs(
    tmp_path: Path, sink_type: type[DirectoryOutput] | type[DirectoryCheck]
) -> None:
    with pytest.raises(UsageError, match="choose where the manifests go"):
        sink_type(None, []).prepare(tmp_path, None, Selection())
    (tmp_path / "jobs").mkdir()
    with pytest.raises(UsageError, match="is inside the input"):
        sink_type(tmp_path / "jobs" / "out", [tmp_path / "jobs"]).prepare(
            tmp_path, None, Selection()
        )


def test_a_compile_without_objects_still_writes_its_empty_kustomization(tmp_path: Path) -> None:
    sink = DirectoryOutput(tmp_path / "out", [])
    sink.prepare(tmp_path, None, Selection())
    sink.complete(())
    sink.close()
    assert file_contents(tmp_path / "out") == {
        "kustomization.yaml": layout((), ())["kustomization.yaml"],
        OWNERSHIP_FILE: b"kustomization.yaml\n",
    }


@pytest.mark.parametrize("given", [None, Path("rendered")])
def test_a_selection_into_the_configured_directory_keeps_the_other_jobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: Path | None
) -> None:
    monkeypatch.chdir(tmp_path)
    whole = DirectoryOutput(None, [])
    whole.prepare(tmp_path, "rendered", Selection())
    for job in JOBS:  # one source a file, as every TrainJob's output has
        whole.add(whole.render(JobOutput(job.namespace, job.name, job.objects[:1])))
    whole.complete(SHARED)
    whole.close()
    before = file_contents(tmp_path / "rendered")
    alpha = JobOutput("team-a", "alpha", (_obj("JobSet", "alpha", "team-a", changed="yes"),))
    selection = Selection(("jobs/alpha",))

    check = DirectoryCheck(given, [tmp_path / "jobs"])
    check.prepare(tmp_path, "rendered", selection)
    check.add(check.render(alpha))
    check.complete(SHARED)
    sink = DirectoryOutput(given, [tmp_path / "jobs"])
    sink.prepare(tmp_path, "rendered", selection)
    assert sink.kept_namespaces() == {"team-a", "team-b"}
    sink.add(sink.render(alpha))
    sink.complete(SHARED)
    sink.close()

    assert check.problems == ["stale team-a/alpha.yaml"]
    after = file_contents(tmp_path / "rendered")
    assert {path for path in after if after[path] != before.get(path)} == {"team-a/alpha.yaml"}
    assert after == {**before, "team-a/alpha.yaml": layout([alpha], ())["team-a/alpha.yaml"]}


def test_a_selection_elsewhere_is_the_whole_output(tmp_path: Path) -> None:
    _run(DirectoryOutput(None, []), tmp_path)
    sink = DirectoryOutput(tmp_path / "out", [])
    sink.prepare(tmp_path, "rendered", Selection(("jobs/alpha",)))
    assert sink.kept_namespaces() == frozenset()
    sink.complete(())
    sink.close()
    assert set(file_contents(tmp_path / "out")) == {"kustomization.yaml", OWNERSHIP_FILE}
