"""A runtime that was not found, explained when a file the run left out defines it.

The lookup (:mod:`trainc.resolve.index`) knows the runtimes the run read; when none has
the name a TrainJob asks for, the likeliest cause in a new repository is a runtime the
run did not read at all: upstream's runtime directory copied with its kustomization, or a
glob in ``inputs.exclude``. Only then are the left-out files searched
(:func:`~trainc.load.left_out_runtimes.left_out_runtimes`), and the finding's hint says where
the runtime is and how to let trainc read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from trainc.diagnostics import Diagnostic
from trainc.load.documents import LoadedObject
from trainc.load.input_settings import InputSettings
from trainc.load.left_out_runtimes import LeftOutRuntime, left_out_runtimes
from trainc.model.json import get_path
from trainc.model.kinds import CLUSTER_TRAINING_RUNTIME, TRAINJOB
from trainc.resolve.index import XOBJ_RUNTIME_NOT_FOUND

_NOT_FOUND = XOBJ_RUNTIME_NOT_FOUND.code


def explain_missing_runtimes(
    diagnostics: Sequence[Diagnostic], targets: Iterable[LoadedObject], config: InputSettings
) -> Sequence[Diagnostic]:
    """``diagnostics``, each runtime-not-found hinted at the left-out runtime of its name."""
    if not any(d.code == _NOT_FOUND for d in diagnostics):
        return diagnostics
    left_out: dict[tuple[str, str], LeftOutRuntime] = {}
    for found in left_out_runtimes(config):
        left_out.setdefault((found.kind, found.name), found)
    if not left_out:
        return diagnostics
    wanted = {
        (obj.path, obj.name): _runtime_ref(obj) for obj in targets if obj.kind == TRAINJOB.kind
    }
    explained = []
    for diagnostic in diagnostics:
        ref = wanted.get((diagnostic.file or "", diagnostic.name or ""))
        runtime = left_out.get(ref) if diagnostic.code == _NOT_FOUND and ref else None
        hinted = replace(diagnostic, hint=runtime.hint()) if runtime else diagnostic
        explained.append(hinted)
    return explained


def _runtime_ref(trainjob: LoadedObject) -> tuple[str, str] | None:
    """(kind, name) of the runtime a TrainJob names; the kind defaults as Trainer's does."""
    kind = get_path(trainjob.data, ("spec", "runtimeRef", "kind"))
    name = get_path(trainjob.data, ("spec", "runtimeRef", "name"))
    if not isinstance(name, str):
        return None
    return (kind if isinstance(kind, str) else CLUSTER_TRAINING_RUNTIME.kind, name)
