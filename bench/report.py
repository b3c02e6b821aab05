"""The results as Markdown: one column per repository size, then the targets.

Every rate is jobs (or files) divided by the wall time of the whole process, interpreter
start included; every ratio is a quotient of wall times. The targets (their goals are
:mod:`bench.targets`) are judged at N = 10,000 (or the largest size measured, when 10,000
was not), compile's memory also at N = 100,000 when it was measured, and the sweeper's on
its waves; every verdict is computed here from the measurements.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bench import sweeper
from bench.measure import Sample
from bench.targets import (
    ARGOCD_UNCHANGED_RATIO,
    CHECK_JSONSCHEMA_SLOWER,
    COMPILE_FLOOR_RATIO,
    COMPILE_MEMORY,
    MB,
    RERUN_RATIO,
    SINGLE_FILE_SECONDS,
    SINGLE_FILE_VS_CHECK_JSONSCHEMA,
    VALIDATE_FLOOR_RATIO,
    Target,
    table,
)

REFERENCE_JOBS = 10_000  # the size the targets name
#: The hook's runs in a fork of a process that has imported trainc (docs/server.md).
SERVED = "preloaded server (`trainc server start`)"
#: Why a run has no served rows: the only reason the runner skips them.
NO_SERVER = "not measured: this trainc has no `trainc server`"


@dataclass(frozen=True, slots=True)
class Runs:
    """A whole-repository command: with an empty cache (cold), again after one TrainJob
    changed (warm), and with ``--no-cache``. Only ``cold`` for a trainc without a cache."""

    cold: Sample
    warm: Sample | None = None
    uncached: Sample | None = None

    @property
    def peak_memory(self) -> int:
        """The highest peak of the runs, in bytes."""
        return max(s.peak_memory for s in (self.cold, self.warm, self.uncached) if s is not None)


@dataclass(frozen=True, slots=True)
class SingleFile:
    """The one-changed-file runs: with the warm cache (none without a cache), cold, and
    check-jsonschema on the same file, alternating with them."""

    warm: tuple[Sample, ...]
    cold: tuple[Sample, ...]
    check_jsonschema: tuple[Sample, ...]

    @property
    def judged(self) -> tuple[str, tuple[Sample, ...]]:
        """The runs a target judges, and what they are: warm when there is a cache."""
        return ("warm cache", self.warm) if self.warm else ("no cache", self.cold)


@dataclass(frozen=True, slots=True)
class SizeResult:
    """Everything measured on one synthetic repository of ``jobs`` TrainJobs."""

    jobs: int
    input_bytes: int
    output_files: int
    output_bytes: int
    cache_files: int | None  # compile's cache directory at the end; None without a cache
    cache_bytes: int | None
    validate: Runs
    compile: Runs
    floor_seconds: float  # floor process wall time less its untimed preparation
    floor_identical: int  # output files the floor wrote byte for byte as trainc did
    check_jsonschema: Sample | None  # None above the size the runner runs it at
    single_file: SingleFile  # trainc.yaml says where runtimes live
    single_file_anywhere: SingleFile  # it does not: every file is read
    single_file_served: SingleFile | None  # with it, while a preloaded server runs; None
    # for a trainc without `trainc server`
    argocd: Runs  # Argo CD's generate: cold, then warm on the unchanged repository


def render(
    results: Sequence[SizeResult],
    passes: Sequence[sweeper.Pass],
    *,
    machine: Mapping[str, str],
    command: str,
    date: str,
) -> str:
    """The Markdown block RESULTS.md keeps: context, measurements, sweeper, targets."""
    cached = all(r.compile.warm is not None for r in results)
    cache = (
        "each command names its cache: cold runs start from an empty `--cache-dir`, warm "
        "runs follow a change of one TrainJob, `--no-cache` runs use none"
        if cached
        else "this trainc has no cache: each command ran once, as it is (the cold rows)"
    )
    lines = [
        f"Measured {date} with `{command}`.",
        "",
        *(f"- **{key}**: {value}" for key, value in machine.items()),
        f"- **cache**: {cache}",
        "",
    ]
    if results:
        lines.extend([*_measurements(results), ""])
    if passes:
        lines.extend(["Sweeper, one pass over a TTL wave (stand-in API server):", ""])
        lines.extend([*sweeper.table(passes), ""])
    judged = [*(targets(results) if results else []), *sweeper.targets(passes)]
    lines.extend(table("target", judged))
    return "\n".join(lines) + "\n"


def summary(
    results: Sequence[SizeResult], passes: Sequence[sweeper.Pass], *, date: str, cores: str
) -> str:
    """README's Performance block: each target's verdict from the same run as the block
    RESULTS.md keeps, which has the measurements behind each and what bounds a target
    not met."""
    judged = [*(targets(results) if results else []), *sweeper.targets(passes)]
    lines = [
        f"Measured {date} by `python -m bench.run` on a {cores}-core machine;",
        "[bench/RESULTS.md](bench/RESULTS.md) has the whole run, and what bounds each",
        "target not met.",
        "",
        *table("target", judged),
    ]
    return "\n".join(lines) + "\n"


def _measurements(results: Sequence[SizeResult]) -> list[str]:
    rows: list[tuple[str, Callable[[SizeResult], str]]] = [
        ("input: TrainJob files, total size", lambda r: f"{r.jobs:,}, {_mb(r.input_bytes)}"),
        *_runs_rows("validate", lambda r: r.validate),
        *_runs_rows("compile -o DIR", lambda r: r.compile),
        ("output: files, total size", lambda r: f"{r.output_files:,}, {_mb(r.output_bytes)}"),
        ("compile's cache directory at the end: files, size", _cache),
        ("floor, PyYAML C load + dump: wall (jobs/s)", lambda r: _rate(r.floor_seconds, r.jobs)),
        ("floor: files byte-identical to trainc's", lambda r: f"{r.floor_identical:,}"),
        ("compile (cold) / floor", lambda r: _ratio(r.compile.cold.wall, r.floor_seconds)),
        ("validate (cold) / floor", lambda r: _ratio(r.validate.cold.wall, r.floor_seconds)),
        ("compile: warm / cold", lambda r: _warm_ratio(r.compile)),
        ("validate: warm / cold", lambda r: _warm_ratio(r.validate)),
        ("check-jsonschema: wall (files/s)", _check_jsonschema),
        ("check-jsonschema / validate (cold)", _check_jsonschema_ratio),
        (
            "`trainc validate FILE`, `inputs.runtimes` set, warm: median [min-max]",
            lambda r: _spread(r.single_file.warm),
        ),
        ("the same, cold", lambda r: _spread(r.single_file.cold)),
        (
            "`trainc validate FILE`, no `inputs.runtimes` (every file read), warm",
            lambda r: _spread(r.single_file_anywhere.warm),
        ),
        ("the same, cold", lambda r: _spread(r.single_file_anywhere.cold)),
        (
            f"`trainc validate FILE`, `inputs.runtimes` set, {SERVED}, warm",
            lambda r: _served(r, lambda runs: _spread(runs.warm)),
        ),
        ("the same, cold", lambda r: _served(r, lambda runs: _spread(runs.cold))),
        (
            "check-jsonschema on the same file, alternating with them: median [min-max]",
            _check_jsonschema_on_the_file,
        ),
        (
            "`trainc validate FILE` / check-jsonschema FILE, with (without) `inputs.runtimes`",
            _single_file_ratios,
        ),
        (
            f"the same, `inputs.runtimes` set, {SERVED}",
            lambda r: _served(r, lambda runs: f"{_hook_ratio(runs):.2f}x"),
        ),
        (
            "Argo CD `generate`, cold: wall (jobs/s), CPU, peak memory",
            lambda r: _run(r.argocd.cold, r.jobs),
        ),
        ("the same, warm, repository unchanged", lambda r: _run(r.argocd.warm, r.jobs)),
        ("Argo CD `generate`: warm / cold", lambda r: _warm_ratio(r.argocd)),
    ]
    header = "| | " + " | ".join(f"N = {r.jobs:,}" for r in results) + " |"
    lines = [header, "|---" * (len(results) + 1) + "|"]
    lines.extend(
        f"| {name} | " + " | ".join(cell(r) for r in results) + " |" for name, cell in rows
    )
    return lines


def _runs_rows(
    command: str, pick: Callable[[SizeResult], Runs]
) -> list[tuple[str, Callable[[SizeResult], str]]]:
    """Wall (jobs/s), CPU and peak memory of a command's cold, warm and uncached runs."""
    what = "wall (jobs/s), CPU, peak memory"
    return [
        (f"`trainc {command}`, cold: {what}", lambda r: _run(pick(r).cold, r.jobs)),
        ("the same, warm, one TrainJob changed", lambda r: _run(pick(r).warm, r.jobs)),
        ("the same, `--no-cache`", lambda r: _run(pick(r).uncached, r.jobs)),
    ]


def targets(results: Sequence[SizeResult]) -> list[Target]:
    """The targets for trainc's commands, judged on ``results`` (not empty): the paths
    users wait on first (the hook, a re-run, Argo CD's refresh, memory), then throughput."""
    ref = next((r for r in results if r.jobs == REFERENCE_JOBS), None)
    ref = ref or max(results, key=lambda r: r.jobs)
    n = f"N = {ref.jobs:,}"
    found = [
        *_single_file_targets(ref, n),
        _rerun_target(
            f"compile again after changing one file (warm cache) / cold, {n}",
            ref.compile,
            "output byte-identical",
        ),
        _rerun_target(
            f"validate again after changing one file (warm cache) / cold, {n}",
            ref.validate,
            "same findings",
        ),
        _argocd_target(ref, n),
    ]
    for result in results:
        if result is ref or result.jobs in COMPILE_MEMORY:
            goal = COMPILE_MEMORY.get(result.jobs, COMPILE_MEMORY[REFERENCE_JOBS])
            peak = result.compile.peak_memory
            found.append(
                Target(
                    f"`trainc compile` peak memory (PSS, workers included), N = {result.jobs:,}",
                    _mb(peak),
                    f"<= {_mb(goal)}",
                    peak <= goal,
                )
            )
    floor = ref.floor_seconds
    found += [
        _at_most(
            f"`trainc compile` / floor, {n}", ref.compile.cold.wall / floor, COMPILE_FLOOR_RATIO
        ),
        _at_most(
            f"`trainc validate` / floor, {n}", ref.validate.cold.wall / floor, VALIDATE_FLOOR_RATIO
        ),
        _check_jsonschema_target(ref, n),
    ]
    return found


def _single_file_targets(ref: SizeResult, n: str) -> list[Target]:
    """The hook's median, and its share of check-jsonschema's on the same file: without a
    server (the rows since the hook was first measured), then with one."""
    return [
        *_hook_targets(f"one changed file, {n}, no `inputs.runtimes`", ref.single_file_anywhere),
        *_hook_targets(f"one changed file, {n}, with `inputs.runtimes`", ref.single_file),
        *_hook_targets(
            f"hook `validate FILE`, warm, {SERVED}, {n}, with `inputs.runtimes`",
            ref.single_file_served,
        ),
    ]


def _hook_targets(name: str, runs: SingleFile | None) -> list[Target]:
    """The two targets of one way of running the hook; not measured when ``runs`` is None
    (a trainc without a server)."""
    median_goal = f"<= {_ms(SINGLE_FILE_SECONDS)}"
    ratio_goal = f"<= {SINGLE_FILE_VS_CHECK_JSONSCHEMA:.1f}x"
    median_name, ratio_name = f"{name}: median", f"{name} / check-jsonschema on it, same run"
    if runs is None:
        return [
            Target(median_name, NO_SERVER, median_goal, None),
            Target(ratio_name, NO_SERVER, ratio_goal, None),
        ]
    how, samples = runs.judged
    median, ratio = _median(samples), _hook_ratio(runs)
    return [
        Target(median_name, f"{_ms(median)} ({how})", median_goal, median <= SINGLE_FILE_SECONDS),
        Target(
            ratio_name,
            f"{ratio:.2f}x ({how})",
            ratio_goal,
            ratio <= SINGLE_FILE_VS_CHECK_JSONSCHEMA,
        ),
    ]


def _rerun_target(name: str, runs: Runs, same: str) -> Target:
    """A warm re-run over the cold run (the runner has already stopped if they differ)."""
    goal = f"<= {RERUN_RATIO:.2f}x, {same}"
    if runs.warm is None:
        return Target(name, "this trainc has no cache", goal, None)
    ratio = runs.warm.wall / runs.cold.wall
    return Target(name, f"{ratio:.3f}x, {same}", goal, ratio <= RERUN_RATIO)


def _argocd_target(ref: SizeResult, n: str) -> Target:
    name = f"Argo CD `generate`, repository unchanged (warm cache) / cold, {n}"
    goal = f"<= {ARGOCD_UNCHANGED_RATIO:.2f}x, output byte-identical"
    warm = ref.argocd.warm
    if warm is None:
        return Target(name, "this trainc has no cache", goal, None)
    ratio = warm.wall / ref.argocd.cold.wall
    return Target(name, f"{ratio:.3f}x, byte-identical", goal, ratio <= ARGOCD_UNCHANGED_RATIO)


def _at_most(name: str, ratio: float, goal: float) -> Target:
    return Target(name, f"{ratio:.2f}x", f"<= {goal:.1f}x", ratio <= goal)


def _check_jsonschema_target(ref: SizeResult, n: str) -> Target:
    name, goal = f"check-jsonschema / `trainc validate`, {n}", f">= {CHECK_JSONSCHEMA_SLOWER:.0f}x"
    if ref.check_jsonschema is None:
        return Target(name, "not run at this size", goal, None)
    ratio = ref.check_jsonschema.wall / ref.validate.cold.wall
    return Target(name, f"{ratio:.2f}x", goal, ratio >= CHECK_JSONSCHEMA_SLOWER)


def _single_file_ratios(result: SizeResult) -> str:
    ratios = [_hook_ratio(runs) for runs in (result.single_file, result.single_file_anywhere)]
    return f"{ratios[0]:.2f}x ({ratios[1]:.2f}x)"


def _hook_ratio(runs: SingleFile) -> float:
    """The judged runs' median over check-jsonschema's on the same file, same run."""
    return _median(runs.judged[1]) / _median(runs.check_jsonschema)


def _check_jsonschema_on_the_file(result: SizeResult) -> str:
    """check-jsonschema's runs on the hook's file, of every way the hook ran."""
    ways = (result.single_file, result.single_file_anywhere, result.single_file_served)
    return _spread([s for runs in ways if runs is not None for s in runs.check_jsonschema])


def _served(result: SizeResult, cell: Callable[[SingleFile], str]) -> str:
    """A cell of the served runs, or why there are none."""
    runs = result.single_file_served
    return NO_SERVER if runs is None else cell(runs)


def _median(samples: Sequence[Sample]) -> float:
    return statistics.median(sample.wall for sample in samples)


def _run(sample: Sample | None, jobs: int) -> str:
    if sample is None:
        return "-"
    return f"{_rate(sample.wall, jobs)}, {sample.cpu:.2f} s, {_mb(sample.peak_memory)}"


def _cache(result: SizeResult) -> str:
    if result.cache_files is None or result.cache_bytes is None:
        return "-"
    return f"{result.cache_files:,}, {_mb(result.cache_bytes)}"


def _warm_ratio(runs: Runs) -> str:
    return "-" if runs.warm is None else _ratio(runs.warm.wall, runs.cold.wall)


def _check_jsonschema(result: SizeResult) -> str:
    sample = result.check_jsonschema
    return "skipped at this size" if sample is None else _rate(sample.wall, result.jobs)


def _check_jsonschema_ratio(result: SizeResult) -> str:
    sample = result.check_jsonschema
    return "-" if sample is None else _ratio(sample.wall, result.validate.cold.wall)


def _ratio(numerator: float, denominator: float) -> str:
    return f"{numerator / denominator:.2f}x"


def _rate(seconds: float, count: int) -> str:
    return f"{seconds:.2f} s ({count / seconds:,.0f}/s)"


def _spread(samples: Sequence[Sample]) -> str:
    if not samples:
        return "-"
    walls = [sample.wall for sample in samples]
    return f"{_ms(_median(samples))} [{_ms(min(walls))}-{_ms(max(walls))}]"


def _mb(size: int) -> str:
    return f"{size / MB:,.1f} MB"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"
