"""The benchmark runner: measures trainc against its speed targets and writes RESULTS.md.

For each size N it generates a repository (bench.generate), then times, each in a fresh
process (bench/README.md says exactly how):

- ``trainc validate`` and ``trainc compile -o DIR`` three ways: with an empty cache
  directory (cold), again after one TrainJob changed (warm), and with ``--no-cache``; the
  warm compile's output must equal the uncached compile's byte for byte, and the warm
  validation's findings the uncached one's, or the runner stops;
- the floor (bench/floor.py), and check-jsonschema on the same TrainJob files against
  trainc's generated TrainJob schema (up to N = 10,000);
- ``trainc validate FILE`` on one changed file (the pre-commit case), with and without
  ``inputs.runtimes``, warm and cold, alternating with check-jsonschema on the same file:
  the median of several runs, each after a fresh edit, one warm-up run first; then the
  same with ``inputs.runtimes`` and a preloaded server (``trainc server start``) running,
  in a new private runtime directory, stopped afterwards whatever happened (skipped
  for a trainc without ``server``);
- Argo CD's ``generate`` (the command of ``deploy/argocd/plugin.yaml``, its cache named by
  ``TRAINC_CACHE_DIR`` as the sidecar's is), on a fresh copy of the repository each time
  as Argo CD's CMP server extracts one: cold, then warm on the unchanged repository; the
  warm output must equal the cold one byte for byte, or the runner stops;

then one sweeper pass, dry and real, over TTL waves of 1,000 and 10,000 JobSets held by
the stand-in API server (bench.sweeper). Every command must succeed: a failing run
measures nothing, so the runner stops and shows its output. Caches live in the work
directory, never in the user's cache.

Usage, from the repository root (bench/README.md explains the rows)::

    pip install -r bench/requirements.txt
    python -m bench.run --sizes 1000 10000 --out bench/RESULTS.md --readme README.md
    python -m bench.run --large ...     # N = 100,000 as well (about an hour)
"""

from __future__ import annotations

import argparse
import compileall
import dataclasses
import datetime
import hashlib
import importlib.util
import itertools
import json
import os
import re
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ruamel.yaml import YAML

from bench import sweeper
from bench.generate import CONFIG, CONFIG_COMMENT, CONFIG_TEXT, edit_job, generate
from bench.measure import Sample, executable, machine, run
from bench.report import Runs, SingleFile, SizeResult, render, summary
from bench.results import say, store
from bench.yamltext import render as render_yaml

REPO = Path(__file__).resolve().parents[1]
SCHEMA = "schemas/jsonschema/trainer.kubeflow.org/trainjob_v1alpha1.json"
FLOOR = REPO / "bench/floor.py"
REQUIREMENTS = "pip install -r bench/requirements.txt"
#: The size ``--large`` adds: opt-in, an hour of the machine and about 2 GB of disk.
LARGE = 100_000
#: check-jsonschema runs up to this size: beyond, its file list outgrows the command
#: line's limit and its run would take about 20 minutes at N = 100,000.
CHECK_JSONSCHEMA_MAX = 10_000
#: The environment a measured process must not inherit: it would pick or disable a cache
#: behind the runner's back (each command names its cache on the command line).
CACHE_VARIABLES = ("TRAINC_CACHE_DIR", "TRAINC_NO_CACHE")
#: The Argo CD plugin whose ``generate`` command the runner times.
PLUGIN = REPO / "deploy/argocd/plugin.yaml"
#: The bench's server stops by itself after this long without a command, should the
#: runner be killed before it stops it.
SERVER_IDLE_SECONDS = 300
#: How long the runner waits for a stopped server to exit.
SERVER_STOP_SECONDS = 10.0
_T = TypeVar("_T")


class BenchError(Exception):
    """A missing tool, a failed run or outputs that differ: the message says what."""


@dataclass(frozen=True, slots=True)
class Setup:
    """What every size is measured with: the tools, trainc's source, and the run counts."""

    trainc: str
    check_jsonschema: str
    source: Path  # the trainc checkout measured: its schemas, and its code when not REPO
    package: Path  # the trainc package the measured processes import
    code: str  # the digest of that package's modules when the run began
    env: Mapping[str, str]  # for the measured processes
    cached: bool  # the measured trainc has --cache-dir and --no-cache
    served: bool  # the measured trainc has `trainc server`
    seed: int
    runs: int
    repeat: int


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: measure every size and the sweeper, print the block, store it."""
    options = _parser().parse_args(argv)
    sizes = sorted(set(options.sizes) | ({LARGE} if options.large else set()))
    try:
        setup = _setup(options)
        results = [_measure_size(n, options.work / f"n{n}", setup) for n in sizes]
        code_unchanged(setup)
    except BenchError as error:
        sys.stderr.write(f"bench: {error}\n")
        return 1
    passes = [found for n in sorted(set(options.jobsets)) for found in sweeper.measure(n)]
    command = "python -m bench.run " + shlex.join(sys.argv[1:] if argv is None else argv)
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    block = render(results, passes, machine=machine(setup.source), command=command, date=date)
    sys.stdout.write(block)
    if options.out is not None:
        store(options.out, options.section, block)
    if options.readme is not None:
        cores = str(len(os.sched_getaffinity(0)))
        store(options.readme, "performance", summary(results, passes, date=date, cores=cores))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--sizes", type=int, nargs="+", default=[1000, 10000], help="numbers of TrainJobs")
    add("--large", action="store_true", help=f"measure N = {LARGE:,} as well (opt-in: slow)")
    add(
        "--jobsets",
        type=int,
        nargs="*",
        default=[1000, 10000],
        help="JobSets of the sweeper's TTL waves (none: no sweeper pass)",
    )
    add("--out", type=Path, help="Markdown file to store the results in (e.g. bench/RESULTS.md)")
    add("--section", default="results", help="name of the block replaced in --out")
    add(
        "--readme",
        type=Path,
        help="also store the targets' verdicts in this file's `performance` block (README.md)",
    )
    add("--runs", type=int, default=7, help="timed runs of each one-changed-file case")
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
    package = _measured_package(source)
    env = _measured_environment(package, source, options.work.resolve())
    cached = _has_cache(trainc, env)
    if not cached:
        say("this trainc has no --cache-dir: measuring it without a cache, no warm runs")
    served = has_server(trainc, env)
    if not served:
        say("this trainc has no `trainc server`: the preloaded server's row is not measured")
    return Setup(
        trainc=trainc,
        check_jsonschema=check,
        source=(source or REPO).resolve(),
        package=package,
        code=code_digest(package),
        env=env,
        cached=cached,
        served=served,
        seed=options.seed,
        runs=options.runs,
        repeat=options.repeat,
    )


def _measured_package(source: Path | None) -> Path:
    """The trainc package the measured processes import: ``source``'s, else the installed."""
    if source is not None:
        return source / "trainc"
    spec = importlib.util.find_spec("trainc")
    if spec is None or not spec.submodule_search_locations:
        raise BenchError("trainc is not importable here: pip install -e '.[test]'")
    return Path(next(iter(spec.submodule_search_locations)))


def code_digest(package: Path) -> str:
    """A digest of the package's modules, names and bytes."""
    digest = hashlib.sha256()
    for module in sorted(package.rglob("*.py")):
        digest.update(module.relative_to(package).as_posix().encode() + b"\0")
        digest.update(module.read_bytes())
    return digest.hexdigest()


def code_unchanged(setup: Setup) -> None:
    """Stop when trainc's code changed during the run: every cache key holds that code, so
    a warm run after the change misses its cache and measures a cold one."""
    if code_digest(setup.package) != setup.code:
        raise BenchError(
            f"trainc's code ({setup.package}) changed during the run, so the warm runs missed "
            "their cache: leave the checkout alone while it runs, or measure a clone with "
            "--trainc-source"
        )


def _measured_environment(package: Path, source: Path | None, work: Path) -> dict[str, str]:
    """The environment of the measured processes: trainc as an installed tool runs.

    pip writes the bytecode of the packages it installs, so a user's pre-commit hook never
    compiles trainc's modules; an editable checkout, or an environment that sets
    PYTHONDONTWRITEBYTECODE, would recompile all of them at every start and measure that
    instead. The bytecode is written here, once, before anything is timed. The user's
    cache settings are dropped and the default cache home points into ``work``: a run
    that names no cache still never reads or fills the user's. The runtime directory
    points there too, where no server runs: a user's preloaded server (docs/server.md)
    would otherwise run the commands measured without one.
    """
    dropped = {"PYTHONDONTWRITEBYTECODE", *CACHE_VARIABLES}
    env = {name: value for name, value in os.environ.items() if name not in dropped}
    env["XDG_CACHE_HOME"] = str(work / "xdg-cache")
    env["XDG_RUNTIME_DIR"] = str(work / "xdg-runtime-without-server")
    if source is not None:
        env["PYTHONPATH"] = str(source.resolve())
    compileall.compile_dir(package, quiet=1)
    return env


def _has_cache(trainc: str, env: Mapping[str, str]) -> bool:
    """Whether the measured trainc's compile has the cache options (older commits do not)."""
    helped = _checked(run([trainc, "compile", "--help"], cwd=REPO, env=env), "trainc --help")
    return "--cache-dir" in helped.stdout and "--no-cache" in helped.stdout


def has_server(trainc: str, env: Mapping[str, str]) -> bool:
    """Whether the measured trainc has the preloaded server (older commits do not: click
    refuses the unknown command)."""
    helped = run([trainc, "server", "--help"], cwd=REPO, env=env)
    return helped.returncode == 0 and "start" in helped.stdout


def _measure_size(jobs: int, work: Path, setup: Setup) -> SizeResult:
    repo, output, reference = work / "repo", work / "compiled", work / "compiled-without-cache"
    shutil.rmtree(work, ignore_errors=True)
    say(f"N={jobs}: generating {repo}")
    generated = generate(repo, jobs=jobs, seed=setup.seed)
    _commit_all(repo)
    bench = _Repository(repo, repo / generated.jobs[len(generated.jobs) // 2], setup)
    trainc, caches = setup.trainc, work / "cache"
    validate = bench.whole(
        "trainc validate", [trainc, "validate", "--format", "json"], cache=caches / "validate"
    )
    same_findings(validate)
    compiled = bench.whole(
        "trainc compile", [trainc, "compile"], cache=caches / "compile", outputs=(output, reference)
    )
    if setup.cached:
        same_trees(output, reference)
    floor, identical = _floor(repo, output, work / "floor", setup.repeat)
    check = None
    if jobs <= CHECK_JSONSCHEMA_MAX:
        schema = str(setup.source / SCHEMA)
        check_argv = [setup.check_jsonschema, "--schemafile", schema, *generated.jobs]
        check = bench.timed("check-jsonschema", check_argv, _emptied())
    else:
        say(f"  check-jsonschema: skipped above N = {CHECK_JSONSCHEMA_MAX:,}")
    # Warm: the cache the whole-repository validations filled, as a developer's would be.
    single = bench.single_file(caches, label="`inputs.runtimes` set")
    # The same run where trainc.yaml does not say where runtimes live: all files are read.
    config = repo / "trainc.yaml"
    unscoped = {key: value for key, value in CONFIG.items() if key != "inputs"}
    config.write_text(render_yaml(unscoped, comment=CONFIG_COMMENT))
    anywhere = bench.single_file(caches, label="no `inputs.runtimes`")
    config.write_text(CONFIG_TEXT)
    served = bench.served_single_file(caches) if setup.served else None
    argocd = bench.argocd_generate(cache=caches / "argocd")
    outputs = _files(output)
    cache = _files(caches / "compile") if setup.cached else None
    return SizeResult(
        jobs=jobs,
        input_bytes=sum((repo / path).stat().st_size for path in generated.jobs),
        output_files=len(outputs),
        output_bytes=sum(path.stat().st_size for path in outputs),
        cache_files=None if cache is None else len(cache),
        cache_bytes=None if cache is None else sum(path.stat().st_size for path in cache),
        validate=validate,
        compile=compiled,
        floor_seconds=floor,
        floor_identical=identical,
        check_jsonschema=check,
        single_file=single,
        single_file_anywhere=anywhere,
        single_file_served=served,
        argocd=argocd,
    )


class _Repository:
    """One generated repository, the TrainJob the runs change, and how commands are timed."""

    def __init__(self, root: Path, changed: Path, setup: Setup) -> None:
        self.root, self.changed, self.setup = root, changed, setup
        self._original = changed.read_text()
        self._revisions = itertools.count(1)

    def edit(self) -> None:
        """Change the TrainJob's meaning again: no cache holds the new version."""
        self.changed.write_text(edit_job(self._original, next(self._revisions)))

    def timed(self, label: str, argv: list[str], before: Callable[[], object]) -> Sample:
        """The median (by wall time) of ``repeat`` runs, each after ``before``, with the
        highest peak memory of them."""
        samples = []
        for _ in range(max(self.setup.repeat, 1)):
            before()
            sample = _checked(run(argv, cwd=self.root, env=self.setup.env), label)
            say(f"  {label}: {sample.wall:.2f} s, {sample.peak_memory / 1e6:.0f} MB")
            samples.append(sample)
        return _highest_memory(_middle(samples, key=lambda s: s.wall), samples)

    def whole(
        self,
        label: str,
        argv: list[str],
        *,
        cache: Path,
        outputs: tuple[Path, Path] | None = None,
    ) -> Runs:
        """A whole-repository command: cold, then warm after an edit, then without a cache.

        Cold runs start from an empty cache directory (and compile into an empty output
        directory); each warm run follows a fresh edit of one TrainJob and finds the cache
        and the output the runs before left; the uncached run sees the tree the last warm
        run saw and compiles into the second of ``outputs``, so the two can be compared.
        A trainc without a cache is measured once, as it is.
        """
        output, reference = outputs if outputs is not None else (None, None)

        def command(into: Path | None, *options: str) -> list[str]:
            return [*argv, *(["-o", str(into)] if into is not None else []), *options]

        if not self.setup.cached:
            return Runs(cold=self.timed(label, command(output), _emptied(output)))
        cached = command(output, "--cache-dir", str(cache))
        return Runs(
            cold=self.timed(f"{label}, empty cache", cached, _emptied(cache, output)),
            warm=self.timed(f"{label}, warm, one TrainJob changed", cached, self.edit),
            uncached=self.timed(
                f"{label}, --no-cache", command(reference, "--no-cache"), _emptied(reference)
            ),
        )

    def single_file(
        self, caches: Path, *, label: str, env: Mapping[str, str] | None = None
    ) -> SingleFile:
        """``trainc validate FILE`` as the pre-commit hook runs it: ``runs`` timed runs
        after one warm-up, each after a fresh edit of the file, in ``env`` (default the
        measured processes' environment).

        Warm runs use the cache of the whole-repository validations (``caches/validate``);
        cold runs, and check-jsonschema on the same file, alternate with them, the cold
        ones each from an empty cache. A trainc without a cache gives cold runs only.
        """
        env = self.setup.env if env is None else env
        file = self.changed.relative_to(self.root).as_posix()
        argv = [self.setup.trainc, "validate", file]
        warm_cache, cold_cache = caches / "validate", caches / "single-file-cold"
        schema = str(self.setup.source / SCHEMA)
        ways = [([self.setup.check_jsonschema, "--schemafile", schema, file], _emptied())]
        ways.append((argv, _emptied()))
        if self.setup.cached:
            ways[1:] = [
                ([*argv, "--cache-dir", str(warm_cache)], _emptied()),
                ([*argv, "--cache-dir", str(cold_cache)], _emptied(cold_cache)),
            ]
        samples: list[list[Sample]] = [[] for _ in ways]
        for attempt in range(self.setup.runs + 1):
            for (command, before), found in zip(ways, samples, strict=True):
                before()
                self.edit()
                sample = _checked(run(command, cwd=self.root, env=env), label)
                if attempt:
                    found.append(sample)
        check, *warm, cold = (tuple(found) for found in samples)
        result = SingleFile(warm=warm[0] if warm else (), cold=cold, check_jsonschema=check)
        ways_said = (("warm", result.warm), ("cold", result.cold), ("check-jsonschema", check))
        for way, runs in ways_said:
            if runs:
                median = statistics.median(sample.wall for sample in runs)
                say(f"  trainc validate FILE, {label}, {way}: median {median:.3f} s")
        return result

    def served_single_file(self, caches: Path) -> SingleFile:
        """:meth:`single_file` with ``inputs.runtimes`` while a preloaded server runs.

        The server's directory is ``$XDG_RUNTIME_DIR/trainc`` (docs/server.md), so a fresh
        private runtime directory gives the bench a server of its own: a user's server is
        neither used nor stopped. It is a new temporary directory (mode 0700), not one in
        the work directory: a Unix socket's path has at most 107 bytes, which a checkout's
        path can use up. The client runs a command itself whenever the server refuses it,
        silently, so the server's log must show every trainc run, or the row would time
        processes of their own; the server is stopped even when a run fails.
        """
        with tempfile.TemporaryDirectory(prefix="trainc-bench-") as runtime:
            env = {**self.setup.env, "XDG_RUNTIME_DIR": runtime}
            server = [self.setup.trainc, "server"]
            idle = ["--idle-timeout", str(SERVER_IDLE_SECONDS)]
            start = run([*server, "start", *idle], cwd=self.root, env=env)
            pid = _server_pid(_checked(start, "trainc server start").stdout)
            try:
                result = self.single_file(caches, label="`inputs.runtimes` set, server", env=env)
            finally:
                _stop_server(server, pid, cwd=self.root, env=env)
            log = (Path(runtime) / "trainc" / "server.log").read_text()
        served = sum(line.startswith("command ") for line in log.splitlines())
        expected = (self.setup.runs + 1) * (2 if self.setup.cached else 1)
        if served != expected:
            raise BenchError(
                f"the preloaded server ran {served} of the {expected} `trainc validate FILE` "
                "runs; the client ran the others itself, so the row would not measure the "
                f"server. Its log:\n{log[-3000:]}"
            )
        return result

    def argocd_generate(self, *, cache: Path) -> Runs:
        """Argo CD's ``generate`` of the repository: cold, then warm while it is unchanged.

        Argo CD's CMP server extracts the Application's files into a new temporary
        directory for every generation and runs the plugin's command there
        (https://github.com/argoproj/argo-cd/blob/master/cmpserver/plugin/plugin.go), the
        files written anew, with new times
        (https://github.com/argoproj/argo-cd/blob/master/util/io/files/tar.go). So each run
        here gets a fresh copy (untimed), and the cache the sidecar's environment names.
        The cold run starts from an empty cache; each warm run finds what the runs before
        left, and must print the cold run's output byte for byte.
        """
        argv = [self.setup.trainc, *plugin_command()[1:]]
        env = {**self.setup.env, "TRAINC_CACHE_DIR": str(cache)}
        shutil.rmtree(cache, ignore_errors=True)

        def timed(label: str) -> Sample:
            # Like the CMP server's work directory: a new one under the temporary directory,
            # outside any git repository; without .git, as docs/argocd.md advises.
            with tempfile.TemporaryDirectory(prefix="trainc-bench-cmp-") as scratch:
                copy = Path(scratch) / "app"
                ignore = shutil.ignore_patterns(".git")
                shutil.copytree(self.root, copy, ignore=ignore, copy_function=shutil.copyfile)
                sample = _checked(run(argv, cwd=copy, env=env), label)
            say(f"  {label}: {sample.wall:.2f} s, {sample.peak_memory / 1e6:.0f} MB")
            return sample

        cold = timed("Argo CD generate, empty cache")
        if not self.setup.cached:
            return Runs(cold=cold)
        warm = [timed("Argo CD generate, warm, unchanged") for _ in range(self.setup.repeat)]
        if any(sample.stdout != cold.stdout for sample in warm):
            raise BenchError("Argo CD generate printed other manifests warm than cold")
        return Runs(cold=cold, warm=_highest_memory(_middle(warm, key=lambda s: s.wall), warm))


def _server_pid(started: str) -> int:
    """The pid in ``trainc server start``'s line (``trainc server: started, pid N, ...``)."""
    found = re.search(r"\bpid (\d+)\b", started)
    if found is None:
        raise BenchError(f"`trainc server start` named no pid: {started!r}")
    return int(found.group(1))


def _stop_server(server: list[str], pid: int, *, cwd: Path, env: Mapping[str, str]) -> None:
    """Stop the bench's server and wait until its process ``pid`` has exited; say so if
    it has not.

    Runs in a ``finally``: it raises nothing, so the error that ended the runs, if one
    did, is the one the runner reports.
    """
    run([*server, "stop"], cwd=cwd, env=env)
    deadline = time.monotonic() + SERVER_STOP_SECONDS
    while _running(pid):
        if time.monotonic() > deadline:
            say(f"  the bench's server, pid {pid}, still runs after `trainc server stop`")
            return
        time.sleep(0.05)


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs: it exists and is no zombie (the server is no child of
    the runner: whoever adopted it reaps it, if anyone does)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"  # the state follows the command's name


def _commit_all(repo: Path) -> None:
    """Make ``repo`` a git repository with every file committed, as a GitOps repository is:
    trainc reads only the files git tracks, and the work directory may sit in a checkout."""
    git = executable("git")
    if git is None:
        raise BenchError("git is not installed: the generated repository must be one")
    who = ["-c", "user.name=trainc bench", "-c", "user.email=bench@localhost"]
    for argv in (["init", "-q"], ["add", "-A"], [*who, "commit", "-q", "-m", "generated"]):
        _checked(run([git, *argv], cwd=repo), f"git {argv[-1]}")


def plugin_command() -> list[str]:
    """The ``generate`` command of trainc's Argo CD plugin, as ``plugin.yaml`` declares it."""
    spec = YAML(typ="safe").load(PLUGIN.read_text(encoding="utf-8"))["spec"]
    command = spec["generate"]["command"]
    if not (isinstance(command, list) and all(isinstance(part, str) for part in command)):
        raise BenchError(f"{PLUGIN}: spec.generate.command is not a list of strings")
    return [*command, *spec["generate"].get("args", [])]


def _highest_memory(sample: Sample, samples: Sequence[Sample]) -> Sample:
    """``sample`` with the highest peak memory of ``samples``."""
    return dataclasses.replace(sample, peak_memory=max(s.peak_memory for s in samples))


def _emptied(*directories: Path | None) -> Callable[[], None]:
    """What empties ``directories`` (the ones that are not None) before a run."""

    def empty() -> None:
        for directory in directories:
            if directory is not None:
                shutil.rmtree(directory, ignore_errors=True)

    return empty


def same_findings(validate: Runs) -> None:
    """The warm validation reports what the uncached one reports, or the bench stops."""
    if validate.warm is None or validate.uncached is None:
        return
    warm, uncached = (_findings(sample) for sample in (validate.warm, validate.uncached))
    if warm != uncached:
        raise BenchError(
            "the warm validation's findings differ from the uncached one's on the same tree:\n"
            f"warm: {warm}\nwithout cache: {uncached}"
        )


def _findings(sample: Sample) -> tuple[int, object]:
    """The exit code and the diagnostics of a ``--format json`` validation."""
    report = json.loads(sample.stdout)
    return sample.returncode, report.get("diagnostics") if isinstance(report, dict) else report


def same_trees(warm: Path, uncached: Path) -> None:
    """The warm compile wrote exactly the uncached compile's files, or the bench stops."""
    mine, theirs = _contents(warm), _contents(uncached)
    if mine != theirs:
        differ = sorted(p for p in mine.keys() | theirs.keys() if mine.get(p) != theirs.get(p))
        raise BenchError(
            f"the warm compile's output ({warm}) is not byte-identical to the uncached "
            f"compile's ({uncached}) of the same tree: {len(differ)} files differ, e.g. "
            + ", ".join(differ[:5])
        )


def _contents(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in _files(root)}


def _files(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()]


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
