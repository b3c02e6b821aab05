"""A TrainJob's runtimeRef that does not resolve, reported at the field that breaks it.

The lookup itself (and upstream's messages) live in :mod:`trainc.resolve.index`
(``docs/upstream.md``, "Which runtime"); this module only chooses the most precise field: the
name when no runtime has it, the kind or API group when Trainer cannot serve the pair.
"""

from __future__ import annotations

from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import FieldPath, get_path
from trainc.model.kinds import RUNTIME_KINDS
from trainc.resolve.index import XOBJ_RUNTIME_UNSUPPORTED, LookupFailure

_REF: FieldPath = ("spec", "runtimeRef")


def report_lookup_failure(trainjob: DefaultedObject, failure: LookupFailure) -> Diagnostic:
    """The diagnostic for a runtimeRef that names no usable runtime."""
    return trainjob.finding(
        _failing_field(trainjob, failure), failure.code, failure.message, hint=failure.hint
    )


def _failing_field(trainjob: DefaultedObject, failure: LookupFailure) -> FieldPath:
    if failure.code == XOBJ_RUNTIME_UNSUPPORTED.code:
        kind = get_path(trainjob.data, (*_REF, "kind"))
        supported = isinstance(kind, str) and kind in RUNTIME_KINDS
        return (*_REF, "apiGroup") if supported else (*_REF, "kind")
    if isinstance(get_path(trainjob.data, (*_REF, "name")), str):
        return (*_REF, "name")
    return _REF
