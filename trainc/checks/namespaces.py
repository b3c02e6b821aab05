"""A TrainJob namespace the repository does not know: most often a typo.

Nothing refuses ``namespace: reserch``: the output puts the JobSet there, the sweeper gets
a Role in it, and the job waits forever for a namespace that does not exist (or lands in
one nobody watches, with Argo CD's ``CreateNamespace=true``). The repository knows the
namespaces trainc.yaml lists (``namespaces``) and those its Namespace manifests declare; a
TrainJob that names another gets a warning at its ``metadata.namespace``, with the
closest known name. A TrainJob that names no namespace gets the run's default one, which
the platform chose, and is not judged.

The manifests count only in a run over the whole repository: a run on a few named files
(the pre-commit hook) does not read the others, so there only trainc.yaml's list is
known, and without one nothing is judged rather than every namespace reported.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final

from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity, did_you_mean
from trainc.load.defaulted import DefaultedObject
from trainc.model.kinds import TRAINJOB

COMPILE_UNKNOWN_NAMESPACE = Rule(
    "compile.unknown-namespace",
    Severity.WARNING,
    "a TrainJob's namespace is not in trainc.yaml's namespaces (a typo gets its own Role)",
    doc=RuleDoc(
        what="a TrainJob's `metadata.namespace` that trainc.yaml's `namespaces` does not list",
        section=(
            "Nothing refuses `namespace: reserch`: the output puts the JobSet there, the "
            "sweeper gets a\n"
            "Role there, and the job never starts (or, with Argo CD's "
            "`CreateNamespace=true`, runs\n"
            "where nobody looks). The repository knows the namespaces trainc.yaml lists,\n"
            "\n"
            "```yaml\n"
            "namespaces: [research, vision]\n"
            "```\n"
            "\n"
            "and those its `v1` Namespace manifests declare. A TrainJob whose "
            "`metadata.namespace`\n"
            "names another one gets this warning at that line, with the closest known "
            "name. A\n"
            "TrainJob that sets no namespace gets the run's default (trainc.yaml's "
            "`namespace`, or\n"
            "Argo CD's destination), which is not judged. Namespace manifests count in "
            "runs over the\n"
            "whole repository; a run on named files (the pre-commit hook) reads no other "
            "file, so it\n"
            "judges against the `namespaces` list only, and without one not at all. A "
            "repository\n"
            "with neither is not checked.\n"
        ),
    ),
)


CODE: Final = COMPILE_UNKNOWN_NAMESPACE.code


def known_namespaces(
    config: RepoConfig, declared: Iterable[str], *, whole_repository: bool
) -> frozenset[str] | None:
    """The namespaces TrainJobs may name: trainc.yaml's list and the ``declared``
    Namespace manifests; None when the run cannot know them (nothing to judge against)."""
    if config.namespaces is None and not whole_repository:
        return None
    known = frozenset((*(config.namespaces or ()), *declared))
    return known if known or config.namespaces is not None else None


def check_namespaces(
    objects: Iterable[DefaultedObject], known: Collection[str] | None
) -> list[Diagnostic]:
    """A warning for each TrainJob whose own ``metadata.namespace`` is not ``known``."""
    if known is None:
        return []
    listed = ", ".join(sorted(known)) or "none"
    found = []
    for obj in objects:
        written = obj.loaded.namespace
        if obj.kind != TRAINJOB.kind or written is None or written in known:
            continue
        guess = did_you_mean(written, known)
        found.append(
            obj.finding(
                ("metadata", "namespace"),
                CODE,
                f"namespace {written!r} is none of those the repository knows ({listed}): "
                "no Namespace manifest declares it and trainc.yaml's `namespaces` does not "
                "list it",
                hint=(f"{guess} " if guess else "")
                + "if the namespace is new, declare it: list it in `namespaces` in "
                "trainc.yaml, or add its Namespace manifest to the repository",
            )
        )
    return found
