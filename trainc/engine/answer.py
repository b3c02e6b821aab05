"""The stored answer of ``compile -o -`` over an unchanged repository (Argo CD's refresh).

Argo CD's repo server runs ``trainc compile -o -`` at every refresh of an Application,
mostly over a repository nothing changed in since the last one. A compile that found
nothing to report keeps, in its pack, the stream it wrote and its counts, keyed by
everything its output depends on: the cache's scope (trainc, its settings), every input
file's path and digest, and the text of every other file it read (trainc.yaml, the
policies, the cluster's manifests: :func:`~trainc.engine.repository.context_digest`).
The next compile of the same repository first stats its inputs against the stat index
(:mod:`trainc.cache.stat_index`): when the same files are all unchanged, it reads those
few other files, and when the key is kept, writes the stored stream; it neither loads
nor judges anything. Any finding (a warning too) leaves no answer: the report then has
lines to quote, and the run is made in full.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from trainc.config.warnings import check_config
from trainc.engine.admission import read_run_cluster
from trainc.engine.cache import Cache
from trainc.engine.file_pass import stat_input
from trainc.engine.report import ValidationReport
from trainc.engine.repository import Run, Validated, context_digest, found_inputs
from trainc.load.source import SourceFile
from trainc.policy.apply import load_policies

ANSWERS = "answers"
STREAMS = "streams"


@dataclass(frozen=True, slots=True)
class Answer:
    """What a clean ``compile -o -`` wrote (kept raw, as its own entry under the same key
    in :data:`STREAMS`), and what its report counted."""

    sources: tuple[str, ...]
    files: int
    objects: int
    jobs: int

    def report(self, run: Run, untracked: tuple[str, ...]) -> ValidationReport:
        """The report the run made: no findings, so the files' texts are never quoted."""
        sources = {path: SourceFile(path, "") for path in self.sources}
        return ValidationReport(
            (), sources, self.files, self.objects, root=run.config.root, untracked=untracked
        )


def stored_answer(run: Run, cache: Cache | None) -> tuple[Answer, bytes, tuple[str, ...]] | None:
    """The answer kept for the run's repository as it is now, its stream, and the files
    git does not track (for the report); None when an input may have changed or none is
    kept."""
    index = cache.index if cache is not None else None
    if cache is None or index is None:
        return None
    found = found_inputs(run)
    if found.diagnostics or set(found.paths) != set(index.previous):
        return None
    root = os.path.join(run.config.root, "")  # noqa: PTH118 - see stat_input
    for path in found.paths:
        info = stat_input(root, path)
        if info is None or index.unchanged(path, info) is None:
            return None
    key = answer_key(cache, _read_besides(run, found.paths), found.paths)
    answer = cache.load(ANSWERS, key, Answer) if key is not None else None
    stream = cache.store.get(STREAMS, key) if key is not None and answer is not None else None
    return (answer, stream, found.untracked) if answer is not None and stream is not None else None


def keep_answer(cache: Cache | None, validated: Validated, stream: bytes, jobs: int) -> None:
    """Keep a clean compile's stream as the answer to the same repository next time."""
    if cache is None or validated.report.diagnostics:
        return
    key = answer_key(cache, validated.context, validated.inputs)
    if key is None:
        return
    report = validated.report
    cache.store.put(STREAMS, key, stream)
    cache.save(ANSWERS, key, Answer(tuple(report.sources), report.files, report.objects, jobs))


def answer_key(cache: Cache, context: str, inputs: Sequence[str]) -> str | None:
    """The key of the answer to these inputs (each with its digest in the stat index) and
    this ``context``; None when an input has no digest (it could not be read)."""
    index = cache.index
    if index is None:
        return None
    parts = [ANSWERS, context]
    for path in inputs:
        known = index.current.get(path)
        if known is None:
            return None
        parts += (path, known[1])
    return cache.key(parts)


def _read_besides(run: Run, inputs: Sequence[str]) -> str:
    """:func:`~trainc.engine.repository.context_digest` of what the run would read
    besides its inputs, read as the run reads it."""
    config, document = run.config, run.loaded_config.document
    cluster = read_run_cluster(config, inputs={}, config_document=document)
    sources = {
        **run.loaded_config.sources,
        **check_config(config, document).sources,
        **load_policies(config, config_document=document).sources,
        **(cluster.sources if cluster else {}),
    }
    return context_digest(sources, inputs)
