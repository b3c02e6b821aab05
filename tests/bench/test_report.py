"""The targets table judges the speed and memory targets from the measurements it is given."""

from __future__ import annotations

import dataclasses

from bench.measure import Sample
from bench.report import Runs, SingleFile, SizeResult, render, targets

MB = 1_000_000


def sample(wall: float, memory: int = 100 * MB) -> Sample:
    return Sample(
        argv=(), wall=wall, cpu=wall, peak_memory=memory, returncode=0, stdout="", stderr=""
    )


def result(jobs: int = 10_000, /, **changes: object) -> SizeResult:
    """A size where every speed and memory target is met: floor 10 s."""
    measured = SizeResult(
        jobs=jobs,
        input_bytes=16 * MB,
        output_files=jobs + 12,
        output_bytes=43 * MB,
        cache_files=jobs,
        cache_bytes=20 * MB,
        validate=Runs(cold=sample(3.0), warm=sample(0.2), uncached=sample(2.9)),
        compile=Runs(cold=sample(9.0), warm=sample(0.8), uncached=sample(8.5)),
        floor_seconds=10.0,
        floor_identical=jobs + 12,
        check_jsonschema=sample(50.0),
        single_file=SingleFile(warm=(sample(0.1), sample(0.11), sample(0.5)), cold=(sample(0.4),)),
        single_file_anywhere=SingleFile(warm=(sample(0.14),), cold=(sample(0.9),)),
    )
    return dataclasses.replace(measured, **changes)  # type: ignore[arg-type]


def test_all_met() -> None:
    found = targets([result(1000), result()])
    assert all(target.met for target in found), found
    assert all("N = 10,000" in target.name for target in found)  # judged at 10,000
    assert len(found) == 7


def test_each_target_fails_on_its_own_measurement() -> None:
    slow: dict[str, dict[str, object]] = {
        "`trainc compile` / floor": {"compile": Runs(cold=sample(10.5), warm=sample(0.8))},
        "`trainc validate` / floor": {"validate": Runs(cold=sample(4.1), warm=sample(0.2))},
        "check-jsonschema / `trainc validate`": {"check_jsonschema": sample(29.0)},
        "compile again after changing one file (warm cache) / cold": {
            "compile": Runs(cold=sample(9.0), warm=sample(0.95))
        },
        "one changed file": {"single_file": SingleFile(warm=(sample(0.13),), cold=())},
        "`trainc compile` peak memory": {
            "compile": Runs(cold=sample(9.0), warm=sample(0.8, memory=151 * MB))
        },
    }
    for name, changes in slow.items():
        found = targets([result(**changes)])
        failed = [target.name for target in found if target.met is False]
        assert len(failed) == 1, (name, failed)
        assert failed[0].startswith(name), (name, failed)


def test_without_a_cache_the_warm_target_is_not_measured_and_single_files_judged_cold() -> None:
    plain = result(
        compile=Runs(cold=sample(9.0)),
        validate=Runs(cold=sample(3.0)),
        single_file=SingleFile(warm=(), cold=(sample(0.119),)),
        single_file_anywhere=SingleFile(warm=(), cold=(sample(0.2),)),
    )
    found = {target.name.split(",")[0]: target for target in targets([plain])}
    warm = found["compile again after changing one file (warm cache) / cold"]
    assert warm.met is None
    assert warm.status == "not measured"
    singles = [t for t in targets([plain]) if t.name.startswith("one changed file")]
    assert [(t.measured, t.met) for t in singles] == [
        ("200 ms (no cache)", False),
        ("119 ms (no cache)", True),
    ]


def test_memory_is_judged_at_100000_too_with_its_own_limit() -> None:
    found = targets([result(), result(100_000, compile=Runs(cold=sample(90.0, 199 * MB)))])
    memory = [(t.name, t.goal, t.met) for t in found if "peak memory" in t.name]
    assert memory == [
        ("`trainc compile` peak memory, N = 10,000", "<= 150.0 MB", True),
        ("`trainc compile` peak memory, N = 100,000", "<= 200.0 MB", True),
    ]


def test_check_jsonschema_skipped_is_not_measured() -> None:
    found = targets([result(check_jsonschema=None)])
    (check,) = (t for t in found if t.name.startswith("check-jsonschema"))
    assert check.met is None
    block = render([result(check_jsonschema=None)], [], machine={}, command="c", date="d")
    assert "| check-jsonschema: wall (files/s) | skipped at this size |" in block
    assert "| not measured |" in block
