"""The results as Markdown: one column per repository size, then the targets of issue 6.

Every rate is jobs (or files) divided by the wall time of the whole process, interpreter
start included; every ratio is a quotient of wall times. Targets are judged at the
largest size measured; the linearity target compares the largest with the smallest.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bench.measure import Sample

MB = 1_000_000
THROUGHPUT_TARGET = 5_000  # TrainJobs per second, compile with validation, at N = 10,000
LINEARITY_SLACK = 1.1  # 10k/1k <= 11x: time may grow 10 % faster than N
RSS_TARGET = 300 * MB
FLOOR_TARGET = 3.0  # trainc compile within 3x of the floor
CHECK_JSONSCHEMA_TARGET = 3.0  # validation at least 3x faster than check-jsonschema
SINGLE_FILE_TARGET = 0.250  # seconds, one changed file, interpreter start included


@dataclass(frozen=True, slots=True)
class SizeResult:
    """Everything measured on one synthetic repository of ``jobs`` TrainJobs."""

    jobs: int
    input_bytes: int
    output_files: int
    output_bytes: int
    validate: Sample
    compile: Sample
    floor_seconds: float  # floor process wall time less its untimed preparation
    floor_identical: int  # output files the floor wrote byte for byte as trainc did
    check_jsonschema: Sample
    single_file: tuple[Sample, ...]  # trainc.yaml says where runtimes live
    single_file_anywhere: tuple[Sample, ...]  # it does not: every file is read

    @property
    def single_file_median(self) -> float:
        """Median wall time of the one-changed-file runs, in seconds."""
        return statistics.median(sample.wall for sample in self.single_file)

    @property
    def single_file_anywhere_median(self) -> float:
        """The same without ``inputs.runtimes``, in seconds."""
        return statistics.median(sample.wall for sample in self.single_file_anywhere)


@dataclass(frozen=True, slots=True)
class Target:
    """One target of issue 6: what was measured, the goal, and whether it was met."""

    name: str
    measured: str
    goal: str
    met: bool


def render(
    results: Sequence[SizeResult], *, machine: Mapping[str, str], command: str, date: str
) -> str:
    """The Markdown block RESULTS.md keeps: context, measurements, targets."""
    lines = [
        f"Measured {date} with `{command}`.",
        "",
        *(f"- **{key}**: {value}" for key, value in machine.items()),
        "",
        *_measurements(results),
        "",
        "| target (issue 6) | measured | goal | status |",
        "|---|---|---|---|",
        *(
            f"| {t.name} | {t.measured} | {t.goal} | {'met' if t.met else '**not met**'} |"
            for t in targets(results)
        ),
    ]
    return "\n".join(lines) + "\n"


def _measurements(results: Sequence[SizeResult]) -> list[str]:
    rows: list[tuple[str, Callable[[SizeResult], str]]] = [
        ("input: TrainJob files, total size", lambda r: f"{r.jobs:,}, {_mb(r.input_bytes)}"),
        ("`trainc validate`: wall (jobs/s)", lambda r: _rate(r.validate.wall, r.jobs)),
        ("`trainc validate`: CPU, peak RSS", lambda r: _cpu_rss(r.validate)),
        ("`trainc compile -o DIR`: wall (jobs/s)", lambda r: _rate(r.compile.wall, r.jobs)),
        ("`trainc compile -o DIR`: CPU, peak RSS", lambda r: _cpu_rss(r.compile)),
        ("output: files, total size", lambda r: f"{r.output_files:,}, {_mb(r.output_bytes)}"),
        ("floor, PyYAML C load + dump: wall (jobs/s)", lambda r: _rate(r.floor_seconds, r.jobs)),
        ("floor: files byte-identical to trainc's", lambda r: f"{r.floor_identical:,}"),
        ("compile / floor", lambda r: f"{r.compile.wall / r.floor_seconds:.1f}x"),
        ("check-jsonschema: wall (files/s)", lambda r: _rate(r.check_jsonschema.wall, r.jobs)),
        (
            "check-jsonschema / validate",
            lambda r: f"{r.check_jsonschema.wall / r.validate.wall:.2f}x",
        ),
        (
            "`trainc validate FILE`, one changed file: median [min-max]",
            lambda r: _spread(r.single_file),
        ),
        (
            "the same without `inputs.runtimes` (every file read)",
            lambda r: _spread(r.single_file_anywhere),
        ),
    ]
    header = "| | " + " | ".join(f"N = {r.jobs:,}" for r in results) + " |"
    lines = [header, "|---" * (len(results) + 1) + "|"]
    lines.extend(
        f"| {name} | " + " | ".join(cell(r) for r in results) + " |" for name, cell in rows
    )
    return lines


def targets(results: Sequence[SizeResult]) -> list[Target]:
    """The targets of issue 6, judged at the largest N (linearity: largest vs smallest)."""
    big = max(results, key=lambda r: r.jobs)
    n = f"N = {big.jobs:,}"
    found = [
        _at_least(
            f"`trainc compile` (validation included), {n}",
            big.jobs / big.compile.wall,
            THROUGHPUT_TARGET,
            "jobs/s",
        ),
        _at_least(
            f"`trainc validate`, {n}", big.jobs / big.validate.wall, THROUGHPUT_TARGET, "jobs/s"
        ),
    ]
    small = min(results, key=lambda r: r.jobs)
    if small.jobs < big.jobs:
        limit = LINEARITY_SLACK * big.jobs / small.jobs
        label = f"{big.jobs:,}/{small.jobs:,} time ratio"
        for command, pick in (("compile", _compile_wall), ("validate", _validate_wall)):
            ratio = pick(big) / pick(small)
            found.append(
                Target(
                    f"`trainc {command}`: {label}",
                    f"{ratio:.1f}x",
                    f"<= {limit:.1f}x",
                    ratio <= limit,
                )
            )
    for command, sample in (("compile", big.compile), ("validate", big.validate)):
        found.append(
            Target(
                f"`trainc {command}` peak RSS, {n}",
                _mb(sample.peak_rss),
                f"<= {_mb(RSS_TARGET)}",
                sample.peak_rss <= RSS_TARGET,
            )
        )
    floor_ratio = big.compile.wall / big.floor_seconds
    found.append(
        Target(
            f"`trainc compile` / floor, {n}",
            f"{floor_ratio:.1f}x",
            f"<= {FLOOR_TARGET:.0f}x",
            floor_ratio <= FLOOR_TARGET,
        )
    )
    speedup = big.check_jsonschema.wall / big.validate.wall
    found.append(
        Target(
            f"check-jsonschema / `trainc validate`, {n}",
            f"{speedup:.2f}x",
            f">= {CHECK_JSONSCHEMA_TARGET:.0f}x",
            speedup >= CHECK_JSONSCHEMA_TARGET,
        )
    )
    for how, single in (
        ("`inputs.runtimes` set", big.single_file_median),
        ("every file read", big.single_file_anywhere_median),
    ):
        found.append(
            Target(
                f"`trainc validate FILE`, one changed file, {how}, {n}",
                _ms(single),
                f"<= {_ms(SINGLE_FILE_TARGET)}",
                single <= SINGLE_FILE_TARGET,
            )
        )
    return found


def _at_least(name: str, value: float, goal: float, unit: str) -> Target:
    return Target(name, f"{value:,.0f} {unit}", f">= {goal:,} {unit}", value >= goal)


def _compile_wall(result: SizeResult) -> float:
    return result.compile.wall


def _validate_wall(result: SizeResult) -> float:
    return result.validate.wall


def _rate(seconds: float, count: int) -> str:
    return f"{seconds:.2f} s ({count / seconds:,.0f}/s)"


def _cpu_rss(sample: Sample) -> str:
    return f"{sample.cpu:.2f} s, {_mb(sample.peak_rss)}"


def _spread(samples: Sequence[Sample]) -> str:
    walls = [sample.wall for sample in samples]
    return f"{_ms(statistics.median(walls))} [{_ms(min(walls))}-{_ms(max(walls))}]"


def _mb(size: int) -> str:
    return f"{size / MB:,.1f} MB"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"
