"""What the pre-commit hook's ``trainc validate FILE`` reads of a repository, warm: the
file, trainc.yaml, the policies and the runtime files, once each; no other file of the
repository, and no directory listed that the last run listed unchanged. Counted with
Python's audit events, never timed (speed belongs in bench/)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.generate import CONFIG, CONFIG_COMMENT, generate
from bench.yamltext import render

#: Runs ``trainc validate FILE --cache-dir CACHE`` three times in the repository (the first
#: two fill the cache: the second builds the clash index the first left), with the clock
#: 10 s ahead so that the files are old enough to trust (see trainc.cache.stat_index), and
#: prints what the third run opened and listed there.
_SCRIPT = """
import json, os, sys, time
root = os.path.realpath(".")
opened, listed = [], []

def seen(event, args):
    if event in ("open", "os.scandir", "os.listdir") and isinstance(args[0], (str, os.PathLike)):
        path = os.path.realpath(os.fsdecode(args[0]))
        if path == root or path.startswith(root + os.sep):
            (opened if event == "open" else listed).append(os.path.relpath(path, root))

real_ns = time.time_ns
time.time_ns = lambda: real_ns() + 10**10
from trainc.cli.main import main
codes = []
for run in range(3):
    if run == 2:
        opened.clear(), listed.clear()
        sys.addaudithook(seen)
    try:
        main(["validate", sys.argv[1], "--cache-dir", sys.argv[2]])
    except SystemExit as end:
        codes.append(end.code)
print(json.dumps({"codes": codes, "opened": sorted(opened), "listed": sorted(listed)}))
"""


@pytest.mark.parametrize("runtimes_set", [True, False], ids=["inputs.runtimes", "anywhere"])
def test_a_warm_hook_run_reads_only_what_judging_the_file_needs(
    tmp_path: Path, runtimes_set: bool
) -> None:
    root = tmp_path / "repo"
    generated = generate(root, jobs=40, seed=3)
    if not runtimes_set:
        unscoped = {key: value for key, value in CONFIG.items() if key != "inputs"}
        (root / "trainc.yaml").write_text(render(unscoped, comment=CONFIG_COMMENT))
    named = generated.jobs[len(generated.jobs) // 2]

    completed = subprocess.run(
        [sys.executable, "-c", _SCRIPT, named, str(tmp_path / "cache")],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    run = json.loads(completed.stdout.splitlines()[-1])

    assert run["codes"] == [0, 0, 0], completed.stderr
    runtime_files = sorted(str(path.relative_to(root)) for path in root.glob("runtimes/**/*.yaml"))
    assert len(runtime_files) == 10
    # Each once: the named file, trainc.yaml, the policy, the runtimes (parsed for lookup),
    # and the few TrainJobs whose word filter wrongly holds one of the names a clash
    # needs (see trainc.load.word_filter).
    needed = [named, "trainc.yaml", "policies/team-label.yaml", *runtime_files]
    others = [path for path in run["opened"] if path not in needed]
    assert sorted(set(run["opened"]) - set(others)) == sorted(needed)
    assert len(run["opened"]) == len(set(run["opened"]))
    assert len(others) <= 1, others
    directories = {str(path.relative_to(root)) for path in root.rglob("*") if path.is_dir()}
    assert len(run["listed"]) == len(set(run["listed"]))
    assert set(run["listed"]) <= directories | {"."}
    # No directory of TrainJobs is listed: their listings are kept by the last run
    # (trainc.load.listings); the runtimes' directories are, when inputs.runtimes scopes
    # that walk with other globs, and the policies' directory.
    runtime_directories = {path for path in directories if path.startswith("runtimes")}
    assert set(run["listed"]) == {"policies", *(runtime_directories if runtimes_set else ())}
