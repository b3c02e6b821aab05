"""What trainc.yaml's ``cluster`` section must satisfy beyond its schema.

The schema already refuses an unknown Pod Security level, a version that is neither
``latest`` nor ``v1.N``, and names that are no namespace or RuntimeClass name. Two more
findings concern the section:

- ``config.cluster-invalid``: what the PodSecurity admission plugin refuses in its own
  configuration (``ValidatePodSecurityConfiguration`` in
  https://github.com/kubernetes/kubernetes/blob/v1.36.0/staging/src/k8s.io/pod-security-admission/admission/api/validation/validation.go):
  an exemption listed twice, reported in its words; and a ``manifests`` glob that leads
  out of the repository (``..``) or opens a ``[`` class it never closes, which could only
  ever match by accident;
- ``config.cluster-unmatched``: a ``manifests`` glob that selects no file. The cluster's
  objects then silently go missing (a renamed ``platform/`` directory), and every check
  that needs them judges against a cluster that holds none: a warning, at the glob.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Final

from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity
from trainc.load.documents import Document, finding_in
from trainc.model.json import FieldPath

CONFIG_CLUSTER_INVALID = Rule(
    "config.cluster-invalid",
    Severity.ERROR,
    "trainc.yaml's cluster section lists an exemption twice, or has a glob that cannot match",
    doc=RuleDoc(
        what=(
            "`cluster.podSecurity.exemptions` lists a user name, RuntimeClass or namespace "
            "twice, which the PodSecurity plugin refuses in its configuration (`Duplicate "
            "value`); or a `cluster.manifests` glob has a `..` part or an unclosed `[`"
        ),
        fix=(
            "list each exemption once; write globs relative to the repository root, as in "
            "`inputs.include`"
        ),
    ),
)

CONFIG_CLUSTER_UNMATCHED = Rule(
    "config.cluster-unmatched",
    Severity.WARNING,
    "a cluster.manifests glob matches no file",
    doc=RuleDoc(
        what=(
            "a glob of `cluster.manifests` selects no file of the repository, so the "
            "cluster's objects it was meant to find are missing from every admission check"
        ),
        fix="correct the glob, or remove it",
    ),
)

_EXEMPTIONS: Final[FieldPath] = ("cluster", "podSecurity", "exemptions")
_MANIFESTS: Final[FieldPath] = ("cluster", "manifests")
#: The keys of the exemptions, in the order upstream validates them.
_EXEMPTION_KEYS: Final = ("namespaces", "runtimeClasses", "usernames")


def check_cluster(
    config: RepoConfig, document: Document | None, unmatched: Iterable[str] = ()
) -> list[Diagnostic]:
    """The findings about ``config.cluster``; ``unmatched`` are the ``manifests`` globs
    that select no file (:func:`~trainc.load.cluster_files.find_cluster_files` tells).

    ``document`` is trainc.yaml as parsed, to place each finding at its entry; without
    it the findings name the file and the setting.
    """
    settings = config.cluster
    if settings is None:
        return []
    locate = _Locator(config.config_file, document)
    exemptions = settings.pod_security_exemptions
    written = {
        "namespaces": exemptions.namespaces,
        "runtimeClasses": exemptions.runtime_classes,
        "usernames": exemptions.usernames,
    }
    found = [
        locate.invalid(
            (*_EXEMPTIONS, key, index),
            f"{_field(key, index)}: Duplicate value: {json.dumps(value)}: the API server's "
            "PodSecurity plugin refuses its configuration with this",
            hint=f"list {value!r} once",
        )
        for key in _EXEMPTION_KEYS
        for index, value in _duplicates(written[key])
    ]
    for index, glob in enumerate(settings.manifests):
        problem = glob_problem(glob)
        if problem is not None:
            found.append(
                locate.invalid(
                    (*_MANIFESTS, index),
                    f"cluster.manifests[{index}] {glob!r} {problem}",
                    hint="write globs relative to the repository root, e.g. platform/**/*.yaml",
                )
            )
    missing = set(unmatched)
    found.extend(
        locate.finding(
            (*_MANIFESTS, index),
            CONFIG_CLUSTER_UNMATCHED.code,
            f"cluster.manifests[{index}] {glob!r} matches no file: the cluster's objects it "
            "names are missing from every admission check",
            hint="correct the glob (relative to the repository root), or remove it",
        )
        for index, glob in enumerate(settings.manifests)
        if glob in missing and glob_problem(glob) is None
    )
    return found


def glob_problem(glob: str) -> str | None:
    """Why ``glob`` cannot select what it means to, None when it can."""
    if ".." in glob.split("/"):
        return "leads out of the repository root, where trainc never reads"
    if _unclosed_class(glob):
        return "opens a character class with [ and never closes it"
    return None


def _unclosed_class(glob: str) -> bool:
    """Whether a ``[`` has no ``]`` after it within its path segment."""
    for segment in glob.split("/"):
        start = segment.find("[")
        while start != -1:
            end = segment.find("]", start + 2)
            if end == -1:
                return True
            start = segment.find("[", end + 1)
    return False


def _duplicates(values: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    """Every entry equal to an earlier one, with its index."""
    seen: set[str] = set()
    for index, value in enumerate(values):
        if value in seen:
            yield index, value
        seen.add(value)


def _field(key: str, index: int) -> str:
    return f"cluster.podSecurity.exemptions.{key}[{index}]"


class _Locator:
    """Findings about entries of trainc.yaml's ``cluster`` section."""

    def __init__(self, config_file: str | None, document: Document | None) -> None:
        self._file = config_file
        self._document = document

    def invalid(self, path: FieldPath, message: str, *, hint: str) -> Diagnostic:
        return self.finding(path, CONFIG_CLUSTER_INVALID.code, message, hint=hint)

    def finding(self, path: FieldPath, code: str, message: str, *, hint: str) -> Diagnostic:
        return finding_in(self._document, self._file, path, code, message, hint=hint, section=path)
