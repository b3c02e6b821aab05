"""The files of trainc.yaml's ``cluster.manifests``, read as what they are.

The cluster's own objects (Namespaces, ValidatingAdmissionPolicies and their parameters,
LimitRanges, ResourceQuotas, PriorityClasses, Kueue's queues) are not inputs to compile:
their documents are parsed whole and handed to the admission checks, never classified as
trainer objects. A GitOps repository often holds some of them among its inputs too (its
Namespaces, say), and they count as well; those are found in the inputs' sources, which
the run has already read, so that no file is read twice.

Everything here but :func:`find_cluster_files` and :func:`read_cluster_file` is pure:
it takes sources already read and returns documents.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Final

from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic, sort_diagnostics
from trainc.load.discover import discover_files
from trainc.load.documents import Document
from trainc.load.globs import literal_directory, path_filter
from trainc.load.reader import decode_input, read_input
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import JsonObject, get_path

#: The kinds of the cluster's objects that admission reads, by name. Kueue's and the
#: policies' parameter kinds are matched on the document's ``apiVersion`` by the checks;
#: here a name is enough to tell which input files are worth parsing again.
CLUSTER_KINDS: Final = frozenset(
    {
        "Namespace",
        "LimitRange",
        "ResourceQuota",
        "PriorityClass",
        "RuntimeClass",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "ResourceFlavor",
        "ClusterQueue",
        "LocalQueue",
        "Cohort",
        "WorkloadPriorityClass",
    }
)

_TEMPLATE_SUFFIX: Final = ".j2"


@dataclass(frozen=True, slots=True)
class ClusterFiles:
    """The files ``cluster.manifests`` selects (sorted, repository-relative), the globs
    that select none, and what discovery refused (a link out of the repository)."""

    paths: tuple[str, ...]
    unmatched: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...] = ()


def find_cluster_files(root: Path, globs: tuple[str, ...]) -> ClusterFiles:
    """The files under ``root`` that ``globs`` select, walking only where they can match.

    Discovery is the inputs' own (:func:`~trainc.load.discover.discover_files`): links
    stay inside the repository, and kustomize directories and Helm charts are left out
    with the finding that says how to check them.
    """
    if not globs:
        return ClusterFiles((), ())
    select = path_filter(globs, ())
    starts = {root / literal_directory(glob) for glob in globs}
    found = discover_files(
        sorted(start for start in starts if start.is_dir()), root=root, select=select
    )
    unmatched = tuple(
        glob for glob in globs if not any(path_filter((glob,), ()).selects(p) for p in found.files)
    )
    return ClusterFiles(found.files, unmatched, found.diagnostics)


def read_cluster_file(
    root: Path, path: str, limits: InputLimits, values: JsonObject | None = None
) -> SourceFile | Diagnostic:
    """One cluster manifest's text (a ``.j2`` file rendered with ``values``), or why not."""
    data = read_input(root, path, limits)
    if isinstance(data, Diagnostic):
        return data
    text = decode_input(path, data)
    if isinstance(text, Diagnostic):
        return text
    source = SourceFile(path=path, text=text)
    if not path.endswith(_TEMPLATE_SUFFIX):
        return source
    # jinja2 is imported only when a template is actually read (startup time).
    from trainc.load.template import render_template  # noqa: PLC0415

    return render_template(path, text, values or {}, limits)


@dataclass(frozen=True, slots=True)
class ClusterDocuments:
    """The documents the cluster's objects come from.

    ``manifests`` are every document of the ``cluster.manifests`` files, in path order;
    ``inputs`` the documents of other input files that may hold an object of a cluster
    kind (the checks keep only those). ``sources`` are the files read here that were no
    inputs, for reporters to quote; ``diagnostics`` what reading and parsing found.
    """

    manifests: tuple[Document, ...] = ()
    inputs: tuple[Document, ...] = ()
    sources: Mapping[str, SourceFile] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()


#: A ``kind:`` naming a cluster kind, in YAML or JSON: files without one are not parsed.
_KIND = re.compile(
    r"""["']?kind["']?\s*:\s*["']?(?:""" + "|".join(sorted(CLUSTER_KINDS)) + r""")\b"""
)


def may_hold_cluster_object(text: str, kinds: Iterable[str] = ()) -> bool:
    """Whether ``text`` names a cluster kind (or one of ``kinds``) as a ``kind``."""
    if _KIND.search(text):
        return True
    extra = [kind for kind in kinds if kind not in CLUSTER_KINDS]
    if not extra:
        return False
    names = "|".join(re.escape(kind) for kind in sorted(set(extra)))
    return re.search(rf"""["']?kind["']?\s*:\s*["']?(?:{names})\b""", text) is not None


def param_kinds(documents: Iterable[Document]) -> tuple[str, ...]:
    """The kinds the ValidatingAdmissionPolicies among ``documents`` take as parameters."""
    found = []
    for document in documents:
        data = document.data
        if isinstance(data, dict) and data.get("kind") == "ValidatingAdmissionPolicy":
            kind = get_path(data, ("spec", "paramKind", "kind"))
            if isinstance(kind, str) and kind:
                found.append(kind)
    return tuple(dict.fromkeys(found))


def cluster_documents(
    files: ClusterFiles,
    *,
    inputs: Mapping[str, SourceFile],
    read: Callable[[str], SourceFile | Diagnostic],
    limits: InputLimits,
    kinds: Iterable[str] = (),
) -> ClusterDocuments:
    """The documents of ``files`` and those of the ``inputs`` that may hold cluster objects.

    ``inputs`` are the sources the run read as input files (``LoadResult.sources``); a
    cluster manifest among them is taken from there rather than read again, and is not
    scanned a second time as an input. ``read`` reads a manifest that is no input (see
    :func:`read_cluster_file`). ``kinds`` are more kinds worth finding among the inputs;
    the parameter kinds of the policies (ConfigMaps, say) are always added, whether the
    policy is among the manifests or among the inputs: the inputs are scanned again for
    the parameter kinds their own policies name.
    """
    manifests: list[Document] = []
    found: list[Diagnostic] = [*files.diagnostics]
    read_here: dict[str, SourceFile] = {}
    for path in files.paths:
        source = inputs.get(path)
        if source is None:
            got = read(path)
            if isinstance(got, Diagnostic):
                found.append(got)
                continue
            source = read_here[path] = got
        parsed = parse_documents(source, limits)
        manifests.extend(parsed.documents)
        found.extend(parsed.diagnostics)
    others = {path: source for path, source in inputs.items() if path not in set(files.paths)}
    kinds = (*kinds, *param_kinds(manifests))
    scanned = _scan(others, kinds, limits)
    more = [kind for kind in param_kinds(scanned) if kind not in kinds]
    if more:
        taken = {document.source.path for document in scanned}
        rest = {path: source for path, source in others.items() if path not in taken}
        scanned.extend(_scan(rest, more, limits))
        scanned.sort(key=lambda document: document.source.path)
    return ClusterDocuments(
        tuple(manifests),
        tuple(scanned),
        MappingProxyType(dict(sorted(read_here.items()))),
        sort_diagnostics(found),
    )


def _scan(
    inputs: Mapping[str, SourceFile], kinds: Iterable[str], limits: InputLimits
) -> list[Document]:
    """The documents of the ``inputs`` that may hold a cluster object or one of ``kinds``."""
    kinds = tuple(kinds)
    scanned: list[Document] = []
    for _, source in sorted(inputs.items()):
        if may_hold_cluster_object(source.text, kinds):
            # Reading the inputs reported their parse errors already.
            scanned.extend(parse_documents(source, limits).documents)
    return scanned
