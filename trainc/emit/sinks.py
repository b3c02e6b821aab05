"""Where a compile's output goes, one TrainJob at a time.

A compile hands each TrainJob's checked objects to an :class:`OutputSink` as soon as
they are built, and lets them go: at N = 10,000 jobs, holding every built object and
its rendered text until the end cost more memory than validating the whole repository.
The sink turns them into its form (files of the directory layout, or one stream) and
keeps only what it must.

The protocol, driven by the engine's compile (:mod:`trainc.engine.compile`):

1. :meth:`~OutputSink.prepare` once the input validated without errors, with the
   repository root, trainc.yaml's ``compile.output`` and the paths compiled: a sink that
   needs a place decides it then, and refuses a bad one (UsageError) before any job is
   built;
2. :meth:`~OutputSink.add` for each job, in (namespace, name) order, with what
   :meth:`~OutputSink.render` made of it: rendering is pure (it reads only the job and
   touches no state), so a compile runs it in its worker processes and only the
   rendered form, text, crosses back to the process that writes;
3. :meth:`~OutputSink.complete` with the objects that belong to no job (the sweeper's),
   only when the whole compile had no error: that is when output becomes visible. They
   cover the namespaces of the jobs added and of those :meth:`~OutputSink.kept_namespaces`
   names (:mod:`trainc.emit.selection`);
4. :meth:`~OutputSink.close`, always: without :meth:`~OutputSink.complete`, whatever
   was staged is thrown away, so an error halfway through writes nothing.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import BinaryIO, Protocol, TypeAlias, TypeVar

from trainc.cache.store import Store
from trainc.emit.layout import (
    KUSTOMIZATION,
    JobOutput,
    job_file,
    kustomization,
    shared_files,
)
from trainc.emit.order import sort_key
from trainc.emit.selection import KeptFile, Selection, kept_files
from trainc.emit.writer import TreeCheck, TreeWriter, WriteResult, validate_output_location
from trainc.emit.yamlout import dump_yaml
from trainc.errors import CompilerBug, UsageError, os_errors_as_usage
from trainc.model.json import JsonObject

Rendered = TypeVar("Rendered")

#: One rendered YAML document and the key of its place in the canonical order.
Document: TypeAlias = tuple[tuple[int, str, str, str, str], str]


class OutputSink(Protocol[Rendered]):
    """Receives a compile's output; see the module docstring for the order of calls.

    ``render_key`` names the form :meth:`render` makes: two sinks with the same key
    render the same job to equal data, so a cache may keep one's rendering for the other.
    """

    render_key: str

    def prepare(self, root: Path, default_output: str | None, selection: Selection) -> None:
        """Get ready, before the first job; ``default_output`` is relative to ``root``."""

    def kept_namespaces(self) -> frozenset[str]:
        """The namespaces of TrainJobs outside the selection whose earlier output the sink
        keeps (after :meth:`prepare`): the shared objects must still cover them."""

    def render(self, job: JobOutput) -> Rendered:
        """One TrainJob's objects, already checked, in the form this sink keeps:
        picklable, and made without touching the sink (a worker process may call it)."""

    def add(self, rendered: Rendered) -> None:
        """Take the next TrainJob's :meth:`render` ed output."""

    def complete(self, shared: Sequence[JsonObject]) -> None:
        """Take the shared objects and make the output visible: the compile succeeded."""

    def close(self) -> None:
        """Release what the sink holds; without :meth:`complete`, discard the output."""


class StreamOutput:
    """``compile -o -``: one YAML stream, written to ``out`` when the compile succeeded.

    The stream is in canonical order across all jobs, so it can only be written at the
    end; each object is rendered as it arrives and only its text is kept.
    """

    render_key = "stream-documents"

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._documents: list[Document] = []
        #: The bytes :meth:`complete` wrote, for a cache to keep (:mod:`trainc.engine.answer`).
        self.written: bytes | None = None

    def prepare(self, root: Path, default_output: str | None, selection: Selection) -> None:
        """Nothing to prepare: the stream goes where it was told."""

    def kept_namespaces(self) -> frozenset[str]:
        """None: the stream holds only the selection (``-o -`` with paths)."""
        return frozenset()

    def render(self, job: JobOutput) -> list[Document]:
        """Each of the job's objects as one document, with its place in the order."""
        return _documents(job.objects)

    def add(self, rendered: list[Document]) -> None:
        """Keep the job's documents; they are written at :meth:`complete`."""
        self._documents.extend(rendered)

    def complete(self, shared: Sequence[JsonObject]) -> None:
        """Write every document, in canonical order, and flush them."""
        self._documents.extend(_documents(shared))
        self._documents.sort(key=lambda document: document[0])  # stable: build order breaks ties
        self.written = "---\n".join(text for _, text in self._documents).encode()
        self._documents = []
        self.write(self.written)

    def write(self, stream: bytes) -> None:
        """Write a whole stream (:meth:`complete`'s) and flush it."""
        with os_errors_as_usage("write to", getattr(self._out, "name", "the output stream")):
            self._out.write(stream)
            self._out.flush()

    def close(self) -> None:
        """Drop whatever was rendered and not written."""
        self._documents = []


def _documents(objects: Sequence[JsonObject]) -> list[Document]:
    return [(sort_key(obj), dump_yaml([obj])) for obj in objects]


class _Tree(Protocol):
    """A :class:`~trainc.emit.writer.TreeWriter` or :class:`~trainc.emit.writer.TreeCheck`."""

    def add(self, path: str, data: bytes) -> None: ...

    def previous(self) -> list[str]: ...

    def first_line(self, path: str) -> str: ...

    def carry(self, path: str) -> None: ...


class _DirectorySink(ABC):
    """Lays jobs out as the files of :mod:`trainc.emit.layout`, each handed on as it comes.

    ``directory`` is ``-o DIR`` (relative to the working directory); None means
    trainc.yaml's ``compile.output`` (relative to the repository root). ``inputs`` are
    the paths compiled: the directory may not overlap them. A compile of some paths into
    ``compile.output`` (``-o`` naming it included) keeps the files of every other
    TrainJob (:mod:`trainc.emit.selection`); into another directory it writes the
    selection alone.
    """

    #: What the sink does to its directory, as an error message says it ("cannot write").
    _action = "write"

    render_key = "job-file"

    def __init__(self, directory: Path | None, inputs: Sequence[Path]) -> None:
        self._given = directory
        self._inputs = tuple(inputs)
        self._paths: list[str] = []
        self._tree: _Tree | None = None
        self.directory: Path | None = None
        """Where the output goes, once :meth:`prepare` decided it."""
        self.kept: dict[str, KeptFile] = {}
        """The files of TrainJobs outside the selection that stay, by path (once prepared)."""

    @abstractmethod
    def _start(self, directory: Path) -> _Tree:
        """The tree the files go to."""

    @abstractmethod
    def _conclude(self) -> None:
        """Every file was added: write or compare what remains."""

    def prepare(self, root: Path, default_output: str | None, selection: Selection) -> None:
        configured = None if default_output is None else root / default_output
        directory = self._given or configured
        if directory is None:
            raise UsageError("choose where the manifests go: -o DIR, or -o - for stdout")
        self.directory = directory
        with self._os_errors():
            validate_output_location(directory, list(self._inputs) or [root], root)
            tree = self._start(directory)
            self._tree = tree
            if not selection.whole and _same_directory(directory, configured):
                self.kept = kept_files(tree.previous(), tree.first_line, selection)

    def kept_namespaces(self) -> frozenset[str]:
        """The namespaces of the TrainJob files kept from before."""
        return frozenset(file.namespace for file in self.kept.values())

    def _os_errors(self) -> AbstractContextManager[None]:
        """A failing system call (no such parent, read-only, disk full) as a usage error."""
        return os_errors_as_usage(self._action, self.directory or Path())

    def _add(self, path: str, data: bytes) -> None:
        if self._tree is None:
            raise CompilerBug("output was added before the sink was prepared")
        with self._os_errors():
            self._tree.add(path, data)
        self._paths.append(path)

    def render(self, job: JobOutput) -> tuple[str, bytes]:
        """The job's file: its path in the directory and its bytes."""
        return job_file(job)

    def add(self, rendered: tuple[str, bytes]) -> None:
        """Hand the job's file to the tree; UsageError when it would replace a kept file."""
        path, data = rendered
        kept = self.kept.get(path)
        if kept is not None:
            owner = "a file trainc cannot attribute" if kept.source is None else kept.source
            raise UsageError(
                f"refusing to replace {path} in {self.directory}: it was compiled from "
                f"{owner}, which is not among the paths compiled; a TrainJob of the same "
                "namespace and name is in both (rename one), or it moved (compile the whole "
                "repository: `trainc compile` without paths)"
            )
        self._add(path, data)

    def complete(self, shared: Sequence[JsonObject]) -> None:
        if self._tree is None:
            raise CompilerBug("output was completed before the sink was prepared")
        for path in self.kept:
            with self._os_errors():
                self._tree.carry(path)
            self._paths.append(path)
        for path, data in shared_files(shared):
            self._add(path, data)
        self._add(KUSTOMIZATION, kustomization(self._paths))
        with self._os_errors():
            self._conclude()

    @abstractmethod
    def close(self) -> None:
        """Release the tree; without :meth:`complete`, what was staged is gone."""


def _same_directory(directory: Path, configured: Path | None) -> bool:
    """Whether ``directory`` is the ``configured`` one, however either is spelled."""
    return configured is not None and os.path.realpath(directory) == os.path.realpath(configured)


class DirectoryOutput(_DirectorySink):
    """``compile -o DIR``: files written into a staging tree, swapped in at the end;
    ``records``, the cache where each write leaves what it wrote
    (:mod:`trainc.emit.tree_index`)."""

    def __init__(
        self, directory: Path | None, inputs: Sequence[Path], records: Store | None = None
    ) -> None:
        super().__init__(directory, inputs)
        self._records = records
        self._writer: TreeWriter | None = None
        self.result: WriteResult | None = None
        """What the write changed, once complete."""

    def _start(self, directory: Path) -> _Tree:
        self._writer = TreeWriter(directory, records=self._records)
        return self._writer

    def _conclude(self) -> None:
        if self._writer is not None:
            self.result = self._writer.commit()

    def close(self) -> None:
        """Remove the staged tree unless committed, and release the directory's lock."""
        if self._writer is not None:
            self._writer.close()


class DirectoryCheck(_DirectorySink):
    """``compile -o DIR --check``: each file compared with the directory as it comes."""

    _action = "check"

    def __init__(self, directory: Path | None, inputs: Sequence[Path]) -> None:
        super().__init__(directory, inputs)
        self._check: TreeCheck | None = None
        self.problems: list[str] | None = None
        """How the directory differs from the output (empty: up to date), once complete."""

    def _start(self, directory: Path) -> _Tree:
        self._check = TreeCheck(directory)
        return self._check

    def _conclude(self) -> None:
        if self._check is not None:
            self.problems = self._check.differences()

    def close(self) -> None:
        """A check only reads: nothing to release."""
