"""Per-TrainJob work on every core, in the order one process would do it.

Resolving, checking, building and rendering one TrainJob reads only what the run
prepared before (schemas, CEL programs, the runtime index, the policies) and the job
itself, so a run with many TrainJobs hands them to forked worker processes. Forked,
because the workers then start with everything prepared, nothing pickled: only each
item (a number, or a small handle such as where a TrainJob's whole object is) goes to a
worker and only its result (findings, rendered text) comes back. What differs per item
travels with the task rather than being looked up in the memory the workers share with
the run's process: a forked worker reading an object of its parent writes that object's
reference count, and the kernel then copies the whole page into the worker, so a worker
indexing the run's per-TrainJob objects would in time copy most of them
(docs/performance.md). Results are yielded in submission order, so whatever the number
of workers the caller sees the sequence one process would produce, and at most a few
chunks are in flight, so memory does not grow with the repository.

A small run, a single usable core, or a platform other than Linux stays in one process:
a pool costs tens of milliseconds to start, Windows has no ``fork``, and macOS's
system libraries are not safe to use in a forked child (its default is ``spawn``,
which would re-import and re-prepare everything in every worker).
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import pickle
import signal
import sys
import traceback
from collections import deque
from collections.abc import Callable, Generator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from trainc.errors import CompilerBug, UsageError

if TYPE_CHECKING:
    from multiprocessing.pool import ApplyResult

Item = TypeVar("Item")
Result = TypeVar("Result")

#: How many items a worker should have before a pool pays for its start (a fork, and
#: the copy-on-write pages the worker touches); below, the run stays in one process.
MIN_ITEMS_PER_WORKER = 50

#: Chunks handed to each worker at a time: enough to keep it busy while the parent
#: consumes, few enough that results do not pile up in memory.
_CHUNKS_IN_FLIGHT_PER_WORKER = 3

#: The largest chunk: one result message per chunk, and results return a chunk at a time.
_MAX_CHUNK = 32

#: The work of each running :func:`ordered` call, by token: set before the fork, so the
#: workers inherit it and tasks carry only the token and a chunk of items.
_WORK: dict[int, Callable[[Any], object]] = {}
_tokens = itertools.count()

#: prctl(2) option: the signal a process gets when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity mask, not the machine's count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def check_jobs(jobs: int) -> int:
    """``jobs`` when it is a worker count; a usage error otherwise (``--jobs 0``)."""
    if jobs < 1:
        raise UsageError(f"--jobs {jobs}: give at least 1 (the number of processes to use)")
    return jobs


def workers_for(items: int, jobs: int) -> int:
    """How many worker processes ``items`` items deserve with ``jobs`` allowed; 1 means
    the run stays in its own process."""
    if not sys.platform.startswith("linux"):
        return 1
    return max(1, min(jobs, items // MIN_ITEMS_PER_WORKER))


def ordered(
    work: Callable[[Item], Result], items: Sequence[Item], *, jobs: int
) -> Generator[Result, None, None]:
    """``work(item)`` for each of ``items``, in their order.

    With more than one worker (see :func:`workers_for`), ``work`` runs in forked
    processes: it may read anything the process holds when this generator starts, and
    must return picklable data; what it changes stays in the worker. The items, which
    must pickle, are sent to the workers a chunk at a time. An exception it
    raises is raised here, as itself, after the results of the items before it, as one
    process would raise it. The workers are ended
    when the generator finishes, fails or is closed (an interrupt included).
    """
    count = len(items)
    workers = workers_for(count, jobs)
    if workers == 1:
        yield from (work(item) for item in items)
        return
    # Imported only for a pool: a run that stays in one process (pre-commit's) starts
    # without multiprocessing and what it brings (sockets, threads, pickling).
    import multiprocessing  # noqa: PLC0415

    token = next(_tokens)
    _WORK[token] = work
    chunk = max(1, min(_MAX_CHUNK, count // (workers * 8)))
    # Objects made before the fork are only read by the workers: out of the collector's
    # sight, a collection in a worker does not copy every page it visits. What the run
    # froze itself (entries read back, :mod:`trainc.cache.collection`) stays frozen.
    frozen_before = gc.get_freeze_count()
    gc.freeze()
    # Ctrl-C waits while the pool starts: one arriving before the pool is whole would
    # leave its workers to no one, and one reaching a worker before it ignores interrupts
    # would kill it mid-start. It is taken below, where the pool is ended.
    interrupts = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pool = multiprocessing.get_context("fork").Pool(
            workers, initializer=_start_worker, initargs=(os.getpid(),)
        )
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, interrupts)
        raise
    finally:
        if not frozen_before:
            gc.unfreeze()
        del _WORK[token]
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, interrupts)
        pending: deque[ApplyResult[tuple[list[object], Exception | None]]] = deque()
        chunks = (list(items[start : start + chunk]) for start in range(0, count, chunk))
        for part in itertools.islice(chunks, workers * _CHUNKS_IN_FLIGHT_PER_WORKER):
            pending.append(pool.apply_async(_run_chunk, (token, part)))
        while pending:
            results, error = pending.popleft().get()
            for part in itertools.islice(chunks, 1):
                pending.append(pool.apply_async(_run_chunk, (token, part)))
            yield from cast("list[Result]", results)
            if error is not None:
                raise error
    finally:  # also on an exception, an interrupt, or a caller that stops early
        pool.terminate()
        pool.join()


def _run_chunk(token: int, items: list[object]) -> tuple[list[object], Exception | None]:
    """``items`` done by the work ``token`` names, in a worker: the results up to the
    first error, and that error (picklable, its traceback as a note)."""
    work = _WORK[token]
    results: list[object] = []
    try:
        for item in items:
            results.append(work(item))  # noqa: PERF401 - kept up to an error
    except Exception as error:  # noqa: BLE001 - sent to the parent, which raises it
        return results, _portable(error)
    return results, None


def _portable(error: Exception) -> Exception:
    """``error`` as the parent can receive it: with the worker's traceback as a note
    (``--debug`` shows it), or, when it cannot be pickled, a CompilerBug naming it."""
    error.add_note("".join(traceback.format_exception(error)).rstrip())
    try:
        pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes, just made
    except Exception:  # noqa: BLE001 - any failure to travel
        return CompilerBug(f"{type(error).__name__} in a worker process: {error}")
    return error


def _start_worker(parent: int) -> None:
    """Leave interrupts to the parent, and die with it.

    Ctrl-C reaches every process of the terminal's group: the parent stops the pool,
    the workers must not die mid-message first. A parent killed outright (SIGKILL, or
    SIGTERM, which Python does not catch) runs no cleanup: the kernel then ends the
    workers, so none is left behind waiting for work.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked while forked
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    import ctypes  # noqa: PLC0415 - only workers call into libc

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
