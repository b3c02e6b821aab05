"""What a compile of some paths may replace in the repository's output directory.

``trainc compile jobs/vision/yolo.yaml`` compiles the TrainJobs of that file, nothing
else. Into a directory of the caller's choosing (``-o DIR``, ``-o -``) that selection is
the whole output. Into the repository's own ``compile.output``, the directory a GitOps
tool deploys and prunes, writing only the selection would delete every other
TrainJob's manifests, and with them the trainings running from them. There a compile of
some paths is an update instead:

- the files of TrainJobs whose source lies in the selection are replaced by what the
  selection compiles to now (a TrainJob renamed or removed in a selected file loses its
  old file);
- every other TrainJob's file stays exactly as it is, whether or not its source changed:
  only a compile of the whole repository judges those;
- the shared objects (the sweeper's CronJob and RBAC, the Namespaces) are computed for
  the namespaces of every TrainJob file the directory then holds, the kept ones
  included, so the sweeper still covers every JobSet the directory deploys. When the
  kept files are current this is exactly what a compile of the whole repository writes.

Which TrainJob a file came from is read back from the file itself: its path gives the
namespace (:func:`~trainc.emit.layout.job_file_namespace`) and its header the source
file (:func:`~trainc.emit.layout.job_file_source`). A file whose header names no single
source is kept: a compile of some paths never removes what it cannot attribute.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from trainc.emit.layout import job_file_namespace, job_file_source


@dataclass(frozen=True, slots=True)
class Selection:
    """The paths a compile was given, as the ``trainc.dev/source`` annotation names files:
    repository-relative, ``""`` for the root, ``<stdin>`` for the standard input. None
    given, or the root: the whole repository."""

    paths: tuple[str, ...] = ()

    @property
    def whole(self) -> bool:
        """Whether the compile covers the whole repository: no paths, or its root."""
        return not self.paths or "" in self.paths

    def covers(self, source: str) -> bool:
        """Whether the TrainJob file ``source`` is one of the paths or lies under one."""
        return self.whole or any(
            path == source or source.startswith(f"{path}/") for path in self.paths
        )


@dataclass(frozen=True, slots=True)
class KeptFile:
    """A TrainJob's file that a compile of some paths leaves as it is."""

    namespace: str
    source: str | None
    """The TrainJob file it was generated from; None when its header does not say."""


def kept_files(
    previous: Iterable[str], first_line: Callable[[str], str], selection: Selection
) -> dict[str, KeptFile]:
    """The files among ``previous`` (an output directory's, relative paths) that belong to
    TrainJobs outside ``selection``, by path; ``first_line`` reads a file's header."""
    kept: dict[str, KeptFile] = {}
    for path in previous:
        namespace = job_file_namespace(path)
        if namespace is None:
            continue
        source = job_file_source(first_line(path))
        if source is None or not selection.covers(source):
            kept[path] = KeptFile(namespace, source)
    return kept
