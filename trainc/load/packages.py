"""Directories whose files only another tool's build turns into objects: kustomize
directories, Helm charts, and the output of ``trainc compile -o DIR``.

Read file by file, a kustomization's patches look like whole TrainJobs without a
runtimeRef, and a chart's templates are Go template text, not YAML: findings about
objects the cluster never sees. Discovery leaves such a directory out, whole, with one
finding naming the pipeline that renders it (``kustomize build DIR | trainc validate -``),
and so does ``--base`` when it reads a git revision. A directory is recognised by the
file its tool looks for: one of the names kustomize accepts for a kustomization
(https://github.com/kubernetes-sigs/kustomize/blob/master/api/konfig/general.go),
Helm's ``Chart.yaml``, or trainc's ``.trainc-owned``. The repository root is never left
out: it is trainc's, whatever else it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from pathlib import Path, PurePosixPath

from trainc.config.file import OWNERSHIP_FILE_NAME
from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity, finding
from trainc.load.pathnames import os_name
from trainc.records import dataclass

LOAD_KUSTOMIZE_DIRECTORY = Rule(
    "load.kustomize-directory",
    Severity.INFO,
    "a kustomize directory is left out: pipe its build into trainc instead",
    doc=RuleDoc(
        what=(
            "a directory holding `kustomization.yaml`, `kustomization.yml` or "
            "`Kustomization`, the names "
            "[kustomize](https://github.com/kubernetes-sigs/kustomize/"
            "blob/master/api/konfig/general.go) "
            "accepts: its patches are fragments, not objects"
        ),
        fix="`kustomize build DIR \\| trainc validate -`",
        level_note="(warning when the directory or a file in it was named)",
    ),
)

LOAD_HELM_CHART = Rule(
    "load.helm-chart",
    Severity.INFO,
    "a Helm chart is left out: pipe its rendering into trainc instead",
    doc=RuleDoc(
        what="a directory holding `Chart.yaml`: its templates are Go template text",
        fix="`helm template NAME DIR \\| trainc validate -`",
        level_note="(warning when named)",
    ),
)

LOAD_COMPILED_OUTPUT = Rule(
    "load.compiled-output",
    Severity.INFO,
    "the output of trainc compile is not read as input",
    doc=RuleDoc(
        what="a directory written by `trainc compile -o DIR` (it holds `.trainc-owned`)",
        fix="set `compile.output` in `trainc.yaml` (or exclude it with `inputs.exclude`)",
    ),
)


KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
HELM_CHART_FILE = "Chart.yaml"
_MARKERS = (OWNERSHIP_FILE_NAME, *KUSTOMIZATION_FILES, HELM_CHART_FILE)


@dataclass(frozen=True, slots=True)
class Package:
    """A directory (repo-relative) that discovery leaves to the tool that builds it."""

    directory: str
    marker: str

    def finding(self, *, named: bool) -> Diagnostic:
        """Why the directory's files were not read, and how to check them instead.

        A directory met while walking is an INFO finding (``-v`` shows it); one the
        command line named, or that holds a named file, is a warning: the user asked for
        files to be checked, and none of them was.
        """
        directory = self.directory
        if self.marker == OWNERSHIP_FILE_NAME:
            return finding(
                LOAD_COMPILED_OUTPUT.code,
                f"the output of trainc compile (it holds {OWNERSHIP_FILE_NAME}); not read as input",
                file=directory,
                hint="set compile.output in trainc.yaml, or add the directory to inputs.exclude",
            )
        if self.marker == HELM_CHART_FILE:
            code = LOAD_HELM_CHART.code
            what = f"a Helm chart ({HELM_CHART_FILE}): its templates become objects"
            pipeline = f"helm template {PurePosixPath(directory).name} {directory}"
        else:
            code = LOAD_KUSTOMIZE_DIRECTORY.code
            what = (
                f"a kustomize directory ({self.marker}): its resources and patches become objects"
            )
            pipeline = f"kustomize build {directory}"
        return finding(
            code,
            f"{what} only in `{pipeline}`, so its files are not read one by one",
            file=directory,
            hint=f"check what it renders: {pipeline} | trainc validate -",
            severity=Severity.WARNING if named else None,
        )


def package_of(directory: str, names: Container[str]) -> Package | None:
    """The package ``directory`` is, given the names of its entries; None for the root."""
    if not directory:
        return None
    marker = next((name for name in _MARKERS if name in names), None)
    return Package(directory, marker) if marker is not None else None


def enclosing_package(path: str, package_at: Callable[[str], Package | None]) -> Package | None:
    """The outermost package among the directories holding ``path`` (not ``path`` itself).

    ``package_at`` tells what a repo-relative directory is: :func:`package_on_disk` for
    the working tree, the mapping of :func:`packages_in` for a git revision. For a path
    named on the command line, such as a kustomization's patch that pre-commit passes
    because it changed.
    """
    parts = path.split("/")[:-1]
    for end in range(1, len(parts) + 1):
        found = package_at("/".join(parts[:end]))
        if found is not None:
            return found
    return None


def package_on_disk(root: Path, directory: str) -> Package | None:
    """The package the repository directory ``directory`` is, looking at its files."""
    folder = root / os_name(directory)
    return package_of(directory, {name for name in _MARKERS if (folder / name).is_file()})


def packages_in(paths: Iterable[str]) -> dict[str, Package]:
    """The packages, by directory, that a listing of every repo-relative file shows."""
    markers: dict[str, set[str]] = {}
    for path in paths:
        directory, _, name = path.rpartition("/")
        if name in _MARKERS:
            markers.setdefault(directory, set()).add(name)
    found = (package_of(directory, names) for directory, names in markers.items())
    return {package.directory: package for package in found if package is not None}
