"""The benchmark runner: measures trainc against the targets of issue 6 and writes RESULTS.md.

For each size N it generates a repository (bench.generate), then times, each in a fresh
process: ``trainc validate``, ``trainc compile -o DIR``, the floor (bench/floor.py),
check-jsonschema on the same TrainJob files against trainc's generated TrainJob schema,
and ``trainc validate FILE`` on one changed file (the pre-commit case; the median of
several runs, each after a fresh edit, one warm-up run first). Every command must succeed:
a failing run measures nothing, so the runner stops and shows its output.

Usage, from the repository root (bench/README.md explains the columns)::

    pip install -r bench/requirements.txt
    python -m bench.run --sizes 1000 10000 --out bench/RESULTS.md
"""

from __future__ import annotations

import argparse
import compileall
import dataclasses
import datetime
import importlib.util
import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from bench.generate import CONFIG, CONFIG_COMMENT, CONFIG_TEXT, generate
from bench.measure import Sample, executable, machine, run
from bench.report import SizeResult, render
from bench.results import say, store
from bench.yamltext import render as render_yaml

REPO = Path(__file__).resolve().parents[1]
SCHEMA = "schemas/jsonschema/trainer.kubeflow.org/trainjob_v1alpha1.json"
FLOOR = REPO / "bench/floor.py"
REQUIREMENTS = "pip install -r bench/requirements.txt"
_T = TypeVar("_T")


class BenchError(Exception):
    """A missing tool or a failed run: the message says what to do."""


@dataclass(frozen=True, slots=True)
class Setup:
    """What every size is measured with: the tools, trainc's source, and the run counts."""

    trainc: str
    check_jsonschema: str
    source: Path  # the trainc checkout measured: its schemas, and its code when not REPO
    env: Mapping[str, str]  # for the measured processes
    seed: int
    runs: int
    repeat: int


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: measure every size, print the block, and store it in ``--out``."""
    options = _parser().parse_args(argv)
    try:
        setup = _setup(options)
        results = [
            _measure_size(n, options.work / f"n{n}", setup) for n in sorted(set(options.sizes))
        ]
    except BenchError as error:
        sys.stderr.write(f"bench: {error}\n")
        return 1
    command = "python -m bench.run " + shlex.join(sys.argv[1:] if argv is None else argv)
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    block = render(results, machine=machine(setup.source), command=command, date=date)
    sys.stdout.write(block)
    if options.out is not None:
        store(options.out, options.section, block)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--sizes", type=int, nargs="+", default=[1000, 10000], help="numbers of TrainJobs")
    add("--out", type=Path, help="Markdown file to store the results in (e.g. bench/RESULTS.md)")
    add("--section", default="results", help="name of the block replaced in --out")
    add("--runs", type=int, default=7, help="timed runs of the one-changed-file case")
    add("--repeat", type=int, default=1, help="runs of each whole-repository command (median)")
    add("--work", type=Path, default=REPO / "bench/.work", help="scratch directory")
    add("--seed", type=int, default=0, help="generator seed")
    add(
        "--trainc-source",
        type=Path,
        help="measure the trainc of this checkout (put first on PYTHONPATH), e.g. a clone "
        "of an older commit; default: the trainc installed here",
    )
    return parser


def _setup(options: argparse.Namespace) -> Setup:
    """The tools and trainc's source; a clear message when something is missing."""
    missing = [name for name in ("yaml",) if importlib.util.find_spec(name) is None]
    trainc, check = executable("trainc"), executable("check-jsonschema")
    missing += [
        name for name, path in (("trainc", trainc), ("check-jsonschema", check)) if not path
    ]
    if missing or trainc is None or check is None:
        raise BenchError(f"missing {', '.join(missing)}: install trainc and run `{REQUIREMENTS}`")
    source: Path | None = options.trainc_source
    if source is not None and not (source / "trainc/__init__.py").is_file():
        raise BenchError(f"--trainc-source {source}: no trainc package there")
    return Setup(
        trainc=trainc,
        check_jsonschema=check,
        source=(source or REPO).resolve(),
        env=_measured_environment(source),
        seed=options.seed,
        runs=options.runs,
        repeat=options.repeat,
    )


def _measured_environment(source: Path | None) -> dict[str, str]:
    """The environment of the measured processes: trainc as an installed tool runs.

    pip writes the bytecode of the packages it installs, so a user's pre-commit hook never
    compiles trainc's modules; an editable checkout, or an environment that sets
    PYTHONDONTWRITEBYTECODE, would recompile all of them at every start and measure that
    instead. The bytecode is written here, once, before anything is timed.
    """
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    if source is not None:
        env["PYTHONPATH"] = str(source.resolve())
        package = source / "trainc"
    else:
        spec = importlib.util.find_spec("trainc")
        if spec is None or not spec.submodule_search_locations:
            raise BenchError("trainc is not importable here: pip install -e '.[test]'")
        package = Path(next(iter(spec.submodule_search_locations)))
    compileall.compile_dir(package, quiet=1)
    return env


def _measure_size(jobs: int, work: Path, setup: Setup) -> SizeResult:
    repo, output, scratch = work / "repo", work / "compiled", work / "floor"
    shutil.rmtree(work, ignore_errors=True)
    say(f"N={jobs}: generating {repo}")
    generated = generate(repo, jobs=jobs, seed=setup.seed)
    trainc, repeat, env = setup.trainc, setup.repeat, setup.env
    validate = _timed("trainc validate", [trainc, "validate"], repo, repeat, env=env)
    compiled = _timed(
        "trainc compile",
        [trainc, "compile", "-o", str(output)],
        repo,
        repeat,
        env=env,
        before=lambda: shutil.rmtree(output, ignore_errors=True),
    )
    floor, identical = _floor(repo, output, scratch, repeat)
    schema = str(setup.source / SCHEMA)
    check = _timed(
        "check-jsonschema",
        [setup.check_jsonschema, "--schemafile", schema, *generated.jobs],
        repo,
        repeat,
        env=env,
    )
    changed = repo / generated.jobs[len(generated.jobs) // 2]
    argv = [trainc, "validate", changed.relative_to(repo).as_posix()]
    single = _single_file(argv, repo, changed, setup)
    # The same run where trainc.yaml does not say where runtimes live: all files are read.
    config = repo / "trainc.yaml"
    unscoped = {key: value for key, value in CONFIG.items() if key != "inputs"}
    config.write_text(render_yaml(unscoped, comment=CONFIG_COMMENT))
    anywhere = _single_file(argv, repo, changed, setup, label="no inputs.runtimes")
    config.write_text(CONFIG_TEXT)
    outputs = [path for path in output.rglob("*") if path.is_file()]
    return SizeResult(
        jobs=jobs,
        input_bytes=sum((repo / path).stat().st_size for path in generated.jobs),
        output_files=len(outputs),
        output_bytes=sum(path.stat().st_size for path in outputs),
        validate=validate,
        compile=compiled,
        floor_seconds=floor,
        floor_identical=identical,
        check_jsonschema=check,
        single_file=single,
        single_file_anywhere=anywhere,
    )


def _timed(
    label: str,
    argv: list[str],
    cwd: Path,
    repeat: int,
    *,
    env: Mapping[str, str] | None = None,
    before: Callable[[], object] | None = None,
) -> Sample:
    """The median (by wall time) of ``repeat`` runs, with the highest peak RSS of them."""
    samples = []
    for _ in range(max(repeat, 1)):
        if before is not None:
            before()
        sample = _checked(run(argv, cwd=cwd, env=env), label)
        say(f"  {label}: {sample.wall:.2f} s, {sample.peak_rss / 1e6:.0f} MB")
        samples.append(sample)
    median = _middle(samples, key=lambda s: s.wall)
    return dataclasses.replace(median, peak_rss=max(s.peak_rss for s in samples))


def _floor(repo: Path, output: Path, scratch: Path, repeat: int) -> tuple[float, int]:
    """Floor seconds (process wall less its untimed preparation) and identical files."""
    runs: list[tuple[float, int]] = []
    for _ in range(max(repeat, 1)):
        shutil.rmtree(scratch, ignore_errors=True)
        sample = _checked(
            run([sys.executable, str(FLOOR), str(repo), str(output), str(scratch)], cwd=REPO),
            "floor",
        )
        summary = _json(sample.stdout)
        runs.append((sample.wall - float(summary["prepare_seconds"]), int(summary["identical"])))
        say(f"  floor: {runs[-1][0]:.2f} s")
    return _middle(runs, key=lambda r: r[0])


def _single_file(
    argv: list[str], repo: Path, changed: Path, setup: Setup, *, label: str = ""
) -> tuple[Sample, ...]:
    """``runs`` timed runs after one warm-up, each after a fresh edit of ``changed``.

    The edit rewrites a comment line: the file's bytes and mtime change, its meaning
    does not, so no run can be served from an unchanged-file cache.
    """
    original = changed.read_text()
    samples = []
    for attempt in range(setup.runs + 1):
        changed.write_text(f"# bench: edit {attempt}\n{original}")
        sample = _checked(run(argv, cwd=repo, env=setup.env), "trainc validate FILE")
        if attempt:
            samples.append(sample)
    changed.write_text(original)
    median = _middle(samples, key=lambda s: s.wall).wall
    say(f"  trainc validate FILE{f' ({label})' if label else ''}: median {median:.3f} s")
    return tuple(samples)


def _middle(items: Sequence[_T], *, key: Callable[[_T], float]) -> _T:
    """The median item by ``key`` (the upper one of an even count): a run that happened."""
    return sorted(items, key=key)[len(items) // 2]


def _checked(sample: Sample, label: str) -> Sample:
    if sample.returncode:
        raise BenchError(
            f"{label} exited with {sample.returncode}: {shlex.join(sample.argv[:6])} ...\n"
            f"{sample.stdout[-3000:]}{sample.stderr[-3000:]}"
        )
    return sample


def _json(text: str) -> dict[str, float]:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise BenchError(f"floor printed {text!r}, not a JSON object")
    return data


if __name__ == "__main__":
    sys.exit(main())
