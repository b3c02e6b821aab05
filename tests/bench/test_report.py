"""The targets table judges each target of the issue's table from the measurements it is given."""

from __future__ import annotations

import dataclasses

from bench.measure import Sample
from bench.report import Runs, SingleFile, SizeResult, render, summary, targets
from tests.bench.test_run import cells

MB = 1_000_000


def sample(wall: float, memory: int = 100 * MB) -> Sample:
    return Sample(
        argv=(),
        wall=wall,
        cpu=wall,
        peak_memory=memory,
        returncode=0,
        stdout="",
        stderr="",
    )


def hook(*walls: float, check: float = 0.4) -> SingleFile:
    """One-changed-file runs: warm ones of ``walls``, check-jsonschema at ``check`` s."""
    return SingleFile(
        warm=tuple(sample(wall) for wall in walls),
        cold=(sample(0.4),),
        check_jsonschema=(sample(check),),
    )


def result(jobs: int = 10_000, /, **changes: object) -> SizeResult:
    """A size where every target is met: floor 10 s."""
    measured = SizeResult(
        jobs=jobs,
        input_bytes=16 * MB,
        output_files=jobs + 12,
        output_bytes=43 * MB,
        cache_files=jobs,
        cache_bytes=20 * MB,
        validate=Runs(cold=sample(3.0), warm=sample(0.09), uncached=sample(2.9)),
        compile=Runs(cold=sample(9.0), warm=sample(0.25), uncached=sample(8.5)),
        floor_seconds=10.0,
        floor_identical=jobs + 12,
        check_jsonschema=sample(50.0),
        single_file=hook(0.1, 0.11, 0.5),
        single_file_anywhere=hook(0.14),
        single_file_served=hook(0.05, 0.06, 0.3),
        argocd=Runs(cold=sample(10.0), warm=sample(0.15)),
    )
    return dataclasses.replace(measured, **changes)  # type: ignore[arg-type]


#: The first words of each target, in the table's order: the issue's rows, then throughput.
TARGETS = (
    "one changed file, N = 10,000, no `inputs.runtimes`: median",
    "one changed file, N = 10,000, no `inputs.runtimes` / check-jsonschema on it",
    "one changed file, N = 10,000, with `inputs.runtimes`: median",
    "one changed file, N = 10,000, with `inputs.runtimes` / check-jsonschema on it",
    "hook `validate FILE`, warm, preloaded server (`trainc server start`), N = 10,000, with "
    "`inputs.runtimes`: median",
    "hook `validate FILE`, warm, preloaded server (`trainc server start`), N = 10,000, with "
    "`inputs.runtimes` / check-jsonschema on it",
    "compile again after changing one file (warm cache) / cold",
    "validate again after changing one file (warm cache) / cold",
    "Argo CD `generate`, repository unchanged (warm cache) / cold",
    "`trainc compile` peak memory (PSS, workers included), N = 10,000",
    "`trainc compile` / floor",
    "`trainc validate` / floor",
    "check-jsonschema / `trainc validate`",
)


def test_all_met() -> None:
    found = targets([result(1000), result()])
    assert all(target.met for target in found), found
    assert all("N = 10,000" in target.name for target in found)  # judged at 10,000
    assert [t.name[: len(name)] for t, name in zip(found, TARGETS, strict=True)] == list(TARGETS)


def test_each_target_fails_on_its_own_measurement() -> None:
    slow: dict[str, dict[str, object]] = {
        TARGETS[0]: {"single_file_anywhere": hook(0.16, check=1.0)},
        TARGETS[1]: {"single_file_anywhere": hook(0.14, check=0.34)},
        TARGETS[2]: {"single_file": hook(0.151, check=1.0)},
        TARGETS[3]: {"single_file": hook(0.1, check=0.24)},
        TARGETS[4]: {"single_file_served": hook(0.151, check=1.0)},
        TARGETS[5]: {"single_file_served": hook(0.1, check=0.24)},
        TARGETS[6]: {"compile": Runs(cold=sample(9.0), warm=sample(0.28))},
        TARGETS[7]: {"validate": Runs(cold=sample(3.0), warm=sample(0.1))},
        TARGETS[8]: {"argocd": Runs(cold=sample(10.0), warm=sample(0.21))},
        TARGETS[9]: {"compile": Runs(cold=sample(9.0), warm=sample(0.2, memory=151 * MB))},
        TARGETS[10]: {"compile": Runs(cold=sample(10.5), warm=sample(0.2))},
        TARGETS[11]: {"validate": Runs(cold=sample(4.1), warm=sample(0.1))},
        TARGETS[12]: {"check_jsonschema": sample(29.0)},
    }
    for name, changes in slow.items():
        found = targets([result(**changes)])
        failed = [target.name for target in found if target.met is False]
        assert failed == [failed[0]], (name, failed)
        assert failed[0].startswith(name), (name, failed)


def test_without_a_cache_the_warm_targets_are_not_measured_and_single_files_judged_cold() -> None:
    plain = result(
        compile=Runs(cold=sample(9.0)),
        validate=Runs(cold=sample(3.0)),
        argocd=Runs(cold=sample(10.0)),
        single_file=SingleFile(warm=(), cold=(sample(0.119),), check_jsonschema=(sample(0.4),)),
        single_file_anywhere=SingleFile(
            warm=(), cold=(sample(0.2),), check_jsonschema=(sample(0.4),)
        ),
    )
    found = targets([plain])
    unmeasured = [t.name.split(",")[0] for t in found if t.met is None]
    assert unmeasured == [
        "compile again after changing one file (warm cache) / cold",
        "validate again after changing one file (warm cache) / cold",
        "Argo CD `generate`",
    ]
    singles = [t for t in found if t.name.startswith("one changed file")]
    assert [(t.measured, t.met) for t in singles] == [
        ("200 ms (no cache)", False),
        ("0.50x (no cache)", False),
        ("119 ms (no cache)", True),
        ("0.30x (no cache)", True),
    ]


def test_memory_is_judged_at_100000_too_with_its_own_limit() -> None:
    found = targets([result(), result(100_000, compile=Runs(cold=sample(90.0, 290 * MB)))])
    memory = [(t.name, t.measured, t.goal, t.met) for t in found if "peak memory" in t.name]
    assert memory == [
        (
            "`trainc compile` peak memory (PSS, workers included), N = 10,000",
            "100.0 MB",
            "<= 150.0 MB",
            True,
        ),
        (
            "`trainc compile` peak memory (PSS, workers included), N = 100,000",
            "290.0 MB",
            "<= 300.0 MB",
            True,
        ),
    ]


def test_check_jsonschema_skipped_is_not_measured() -> None:
    found = targets([result(check_jsonschema=None)])
    (check,) = (t for t in found if t.name.startswith("check-jsonschema"))
    assert check.met is None
    block = render([result(check_jsonschema=None)], [], machine={}, command="c", date="d")
    assert "| check-jsonschema: wall (files/s) | skipped at this size |" in block
    assert "| not measured |" in block


def test_the_rows_show_the_ratios_the_targets_judge() -> None:
    served = hook(0.05, 0.06, 0.3, check=0.6)
    rows = cells(render([result(single_file_served=served)], [], machine={}, command="c", date="d"))
    hook_ratio = "`trainc validate FILE` / check-jsonschema FILE, with (without) `inputs.runtimes`"
    assert rows[hook_ratio] == ["0.27x (0.35x)"]  # 0.11 s and 0.14 s over 0.4 s
    with_server = "the same, `inputs.runtimes` set, preloaded server (`trainc server start`)"
    assert rows[with_server] == ["0.10x"]  # 0.06 s over its own run's 0.6 s
    server = "preloaded server (`trainc server start`)"
    assert rows[f"`trainc validate FILE`, `inputs.runtimes` set, {server}, warm"] == [
        "60 ms [50 ms-300 ms]"
    ]
    # check-jsonschema on the file: the runs alongside each way, the server's included
    check = "check-jsonschema on the same file, alternating with them: median [min-max]"
    assert rows[check] == ["400 ms [400 ms-600 ms]"]
    assert rows["Argo CD `generate`: warm / cold"] == ["0.01x"]


def test_the_readme_summary_holds_each_verdict_of_the_same_run() -> None:
    measured = [result(jobs=10_000, compile=Runs(cold=sample(9.0), warm=sample(2.0)))]
    text = summary(measured, [], date="2026-11-28 12:00 UTC", cores="2")
    assert text.startswith("Measured 2026-11-28 12:00 UTC by `python -m bench.run` on a 2-core")
    rows = [line for line in text.splitlines() if line.startswith("| ") and "measured" not in line]
    assert [row.split(" | ")[0][2:] for row in rows] == [t.name for t in targets(measured)]
    rerun = next(row for row in rows if row.startswith("| compile again"))
    assert rerun.endswith("| **not met** |")
    assert sum(row.endswith("| met |") for row in rows) == len(rows) - 1


def test_a_trainc_without_a_server_has_its_rows_and_targets_not_measured() -> None:
    # An older commit, measured with --trainc-source, has no `trainc server`: the runner
    # skips the row, and the report says why instead of judging it.
    older = result(single_file_served=None)
    found = targets([older])
    unmeasured = [(t.name, t.measured, t.status) for t in found if t.met is None]
    why = "not measured: this trainc has no `trainc server`"
    assert unmeasured == [
        (TARGETS[4], why, "not measured"),
        (f"{TARGETS[5]}, same run", why, "not measured"),
    ]
    assert all(t.met for t in found if t.met is not None)  # the rest still judged
    rows = cells(render([older], [], machine={}, command="c", date="d"))
    served = [name for name in rows if "preloaded server" in name and "hook" not in name]
    assert len(served) == 2  # its warm row, and its ratio to check-jsonschema
    assert all(rows[name] == [why] for name in served)
    assert rows["the same, cold"] == [why]  # the last row of that name: the served one
    # check-jsonschema's runs on the file are those of the two ways that ran
    check = "check-jsonschema on the same file, alternating with them: median [min-max]"
    assert rows[check] == ["400 ms [400 ms-400 ms]"]
