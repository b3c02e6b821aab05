"""Runtimes in the files a run leaves out, looked for only to explain a missing runtime.

Upstream's runtimes come with a ``kustomization.yaml`` (``manifests/base/runtimes``), and a
repository that copies the directory whole gets it left out as a kustomize directory
(:mod:`trainc.load.packages`); a glob in ``inputs.exclude`` can hide a runtime as well.
Every TrainJob on those runtimes then says ``xobj.runtime-not-found``, while the reason is
a note shown only with ``-v``. Reading what was left out is not free (a repository's
excluded trees can be large), so it is done only when a runtime was not found, and only
the files that may define a runtime are parsed (:mod:`trainc.load.prefilter`). Helm
charts are not read: their templates are not YAML until Helm renders them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from trainc.load.discover import discover_files
from trainc.load.globs import path_filter
from trainc.load.input_settings import InputSettings
from trainc.load.inputs import load_file
from trainc.load.packages import KUSTOMIZATION_FILES, LOAD_KUSTOMIZE_DIRECTORY, package_on_disk
from trainc.load.pathnames import os_name, repo_name
from trainc.load.prefilter import may_define_runtime
from trainc.load.reader import read_input
from trainc.model.kinds import RUNTIME_KINDS
from trainc.records import dataclass


@dataclass(frozen=True, slots=True)
class LeftOutRuntime:
    """A runtime defined in a file the run did not read, and what left the file out.

    ``kustomization`` is the file that makes a directory holding it a kustomize
    directory, None when ``inputs.exclude`` left the file out.
    """

    kind: str
    name: str
    path: str
    kustomization: str | None

    def hint(self) -> str:
        """Where the runtime is, and how to let runs read it."""
        where = f"a {self.kind} named {self.name!r} is defined in {self.path}, which trainc "
        if self.kustomization is None:
            return where + (
                "does not read: inputs.exclude in trainc.yaml leaves it out; remove the glob "
                "that matches it"
            )
        directory = self.kustomization.rpartition("/")[0]
        return where + (
            f"does not read: {self.kustomization} makes {directory} a kustomize directory, "
            "read only through its build. Move the runtimes out of it, or delete the "
            "kustomization if nothing builds it; or check the build with the jobs: "
            f"kustomize build {directory} | trainc validate - ."
        )


def left_out_runtimes(config: InputSettings) -> list[LeftOutRuntime]:
    """Every runtime in the repository's kustomize directories and excluded input files."""
    found: list[LeftOutRuntime] = []
    for path, kustomize in _left_out_files(config):
        data = read_input(config.root, path, config.limits)
        if not isinstance(data, bytes) or not may_define_runtime(data):
            continue
        found.extend(
            LeftOutRuntime(obj.kind, obj.name, path, kustomize)
            for obj in load_file(path, data, config).objects
            if obj.kind in RUNTIME_KINDS
        )
    return found


def _left_out_files(config: InputSettings) -> Iterator[tuple[str, str | None]]:
    """(path, kustomize directory or None) of each input file no walk of the run reads."""
    included = path_filter(config.include, ())
    configured = path_filter(config.include, config.exclude)
    walked = discover_files([config.root], root=config.root, select=included)
    for path in walked.files:
        if configured.excludes(path):
            yield path, None
    for finding in walked.diagnostics:
        package = None
        if finding.code == LOAD_KUSTOMIZE_DIRECTORY.code and finding.file is not None:
            package = package_on_disk(config.root, finding.file)
        if package is not None:
            kustomization = f"{package.directory}/{package.marker}"
            yield from ((path, kustomization) for path in _files_under(config, package.directory))


def _files_under(config: InputSettings, directory: str) -> Iterator[str]:
    """The files below ``directory`` (repo-relative) that the include globs select.

    Links are not followed, not even to files: discovery reads a link only while it
    stays inside the repository, and this walk does not check.
    """
    included = path_filter(config.include, ())
    for current, subdirectories, names in os.walk(config.root / os_name(directory)):
        subdirectories.sort()
        prefix = repo_name(Path(current).relative_to(config.root).as_posix())
        for name in sorted(names):
            relative = f"{prefix}/{repo_name(name)}"
            linked = Path(current, name).is_symlink()
            if not linked and name not in KUSTOMIZATION_FILES and included.selects(relative):
                yield relative
