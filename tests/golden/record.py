"""What trainc outputs for every golden entry, and the committed record of it.

A layout refactor that moves modules must not change behaviour. The record pins,
for every case of the case corpus, every fuzz seed and ``examples/``, the bytes of
``validate --format json`` (paths from the repository root) and, when the entry
compiles, of ``compile -o -``. Only their sha256 is committed: the outputs would make
the repository heavy for a diff that ``python -m tests.golden show`` gives on demand,
on this branch and on the one before the move.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from tempfile import TemporaryDirectory

from tests.fuzz.harness import written
from tests.fuzz.seeds import EXAMPLES, Seed, seeds
from tests.fuzz.strategies import Repo
from tests.test_cases import ALL_CASES, Case, materialise
from trainc import __version__
from trainc.app import compile_paths, validate_paths
from trainc.emit.sinks import StreamOutput
from trainc.errors import UsageError
from trainc.report.base import ReporterOptions, ReportInput, make_reporter

RECORD = Path(__file__).with_name("outputs.json")
UPDATE_OPTION = "--update-golden"
VALIDATE = "validate.json"
COMPILE = "compile.yaml"

#: A repository on disk: its root, and the revision validation compares with (``--base``).
Checkout = tuple[Path, str | None]
#: Each output of an entry by name; a compile that fails has none (``compile -o -``
#: writes nothing then), so its absence is recorded too.
Outputs = dict[str, bytes]


@dataclass(frozen=True, slots=True)
class Entry:
    """One repository of the record: its id, and how to write it out."""

    id: str
    checkout: Callable[[], AbstractContextManager[Checkout]]


@contextmanager
def _case(case: Case) -> Iterator[Checkout]:
    with TemporaryDirectory(prefix="trainc-golden-") as directory:
        root = Path(directory) / "repo"
        yield root, materialise(case, root)


@contextmanager
def _seed(seed: Seed) -> Iterator[Checkout]:
    with written(Repo(seed.name, {path: file.text for path, file in seed.files.items()})) as root:
        yield root, None


@contextmanager
def _examples() -> Iterator[Checkout]:
    yield EXAMPLES, None


def entries() -> dict[str, Entry]:
    """Every entry by id: ``case/<case>``, ``seed/<seed>`` and ``examples``."""
    found = [
        *(Entry(f"case/{case.id}", partial(_case, case)) for case in ALL_CASES),
        *(Entry(f"seed/{seed.name}", partial(_seed, seed)) for seed in seeds()),
        Entry("examples", _examples),
    ]
    return {entry.id: entry for entry in found}


def outputs(entry: Entry) -> Outputs:
    """The bytes trainc writes for ``entry``, each as the command line writes them."""
    with entry.checkout() as (root, base):
        validation = validate_paths([], cwd=root, base=base, jobs=1)
        report = io.StringIO()
        make_reporter("json", ReporterOptions()).write(
            ReportInput(
                diagnostics=validation.diagnostics,
                sources=validation.sources,
                files_checked=validation.files,
                objects_checked=validation.objects,
                policy_files_checked=validation.policy_files,
                version=__version__,
            ),
            report,
        )
        found = {VALIDATE: report.getvalue().encode()}
        stream = io.BytesIO()
        try:
            compiled = compile_paths([], cwd=root, sink=StreamOutput(stream), jobs=1)
        except UsageError:  # deploy: TrainJob: nothing is compiled
            return found
        if compiled.exit_code == 0:
            found[COMPILE] = stream.getvalue()
        return found


def digests(found: Outputs) -> dict[str, str]:
    """What the record keeps of ``found``: each output's sha256."""
    return {name: hashlib.sha256(data).hexdigest() for name, data in sorted(found.items())}


def read_record() -> dict[str, dict[str, str]]:
    """The committed record; empty when there is none yet."""
    if not RECORD.is_file():
        return {}
    record: dict[str, dict[str, str]] = json.loads(RECORD.read_text(encoding="utf-8"))
    return record


def render_record(record: dict[str, dict[str, str]]) -> str:
    """The record's text: one line per entry, sorted, so a change reads well in git."""
    lines = [
        f"{json.dumps(key)}: {json.dumps(record[key], sort_keys=True)}" for key in sorted(record)
    ]
    return "{\n" + ",\n".join(lines) + "\n}\n"
