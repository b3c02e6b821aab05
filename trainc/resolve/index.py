"""Runtime lookup: the runtime a TrainJob's runtimeRef names, resolved as Trainer resolves it.

Trainer accepts exactly ``ClusterTrainingRuntime.trainer.kubeflow.org`` and
``TrainingRuntime.trainer.kubeflow.org`` (the latter in the TrainJob's namespace); the
messages of the failure cases are upstream's
(https://github.com/kubeflow/trainer/blob/master/pkg/runtime/core/trainingruntime.go,
https://github.com/kubeflow/trainer/blob/master/pkg/runtime/core/clustertrainingruntime.go).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

from trainc.diagnostics import Rule, Severity, did_you_mean
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import as_object, get_path
from trainc.model.kinds import CLUSTER_TRAINING_RUNTIME, TRAINING_RUNTIME
from trainc.model.labels import GROUP
from trainc.records import dataclass

XOBJ_RUNTIME_NOT_FOUND = Rule(
    "xobj.runtime-not-found",
    Severity.ERROR,
    "the referenced runtime is not in the repository",
)


XOBJ_RUNTIME_UNSUPPORTED = Rule(
    "xobj.runtime-unsupported",
    Severity.ERROR,
    "runtimeRef names a kind or API group Trainer does not support",
)


_SUPPORTED = {
    f"{CLUSTER_TRAINING_RUNTIME.kind}.{GROUP}": CLUSTER_TRAINING_RUNTIME.kind,
    f"{TRAINING_RUNTIME.kind}.{GROUP}": TRAINING_RUNTIME.kind,
}


#: ``(kind, effective namespace, name)``: where a runtimeRef finds a runtime.
RuntimeAddress: TypeAlias = tuple[str, str | None, str]


def runtime_address(kind: str, name: str, trainjob_namespace: str | None) -> RuntimeAddress:
    """Where a runtimeRef to runtime ``kind`` and ``name`` looks: a TrainingRuntime in the
    TrainJob's namespace, a ClusterTrainingRuntime in none."""
    return (kind, trainjob_namespace if kind == TRAINING_RUNTIME.kind else None, name)


@dataclass(frozen=True, slots=True)
class LookupFailure:
    """Why a runtimeRef does not resolve: a rule code, upstream's message, a hint."""

    code: str
    message: str
    hint: str | None = None


class RuntimeIndex:
    """All runtimes of a run, addressable the way runtimeRef addresses them.

    ``elsewhere`` are the addresses of runtimes the run knows of but does not check (the
    repository around the files named on the command line): a reference that resolves
    to none of ``objects`` is told about them, so validating one file suggests the same
    fix as validating the whole repository.
    """

    def __init__(
        self, objects: Iterable[DefaultedObject], *, elsewhere: Iterable[RuntimeAddress] = ()
    ) -> None:
        self._runtimes: dict[RuntimeAddress, DefaultedObject] = {}
        for obj in objects:
            if obj.kind in _SUPPORTED.values():
                # First declaration wins; duplicates are reported by the cross-object layer.
                self._runtimes.setdefault((obj.kind, obj.namespace, obj.name), obj)
        self._known = frozenset({*self._runtimes, *elsewhere})
        self._found: dict[tuple[object, ...], DefaultedObject | LookupFailure] = {}

    def lookup(self, trainjob: DefaultedObject) -> DefaultedObject | LookupFailure:
        """The runtime ``trainjob`` references, or why there is none.

        A run asks this of every TrainJob several times (the cross-object checks, the
        cache keys, the job pass), and thousands of TrainJobs share a few references:
        each reference is resolved once, a failure's suggestions included.
        """
        # One walk to runtimeRef, not one per field.
        ref = as_object(get_path(trainjob.data, ("spec", "runtimeRef")))
        kind, group, name = ref.get("kind"), ref.get("apiGroup"), ref.get("name")
        namespace = trainjob.namespace
        if not all(isinstance(part, str | None) for part in (kind, group, name)):
            return self._resolve(namespace, kind, group, name)  # a malformed reference
        asked = (namespace, kind, group, name)
        found = self._found.get(asked)
        if found is None:
            found = self._found[asked] = self._resolve(namespace, kind, group, name)
        return found

    def _resolve(
        self, namespace: str | None, kind: object, group: object, name: object
    ) -> DefaultedObject | LookupFailure:
        if not isinstance(name, str):
            return LookupFailure(XOBJ_RUNTIME_NOT_FOUND.code, "spec.runtimeRef.name is not set")
        qualified = f"{kind}.{group}"
        if qualified not in _SUPPORTED:
            return LookupFailure(
                "xobj.runtime-unsupported",
                f"unsupported runtime: {qualified}",
                hint=f"use kind ClusterTrainingRuntime or TrainingRuntime in apiGroup {GROUP}",
            )
        address = runtime_address(_SUPPORTED[qualified], name, namespace)
        found = self._runtimes.get(address)
        if found is not None:
            return found
        resolved_kind, namespace, _ = address
        return LookupFailure(
            XOBJ_RUNTIME_NOT_FOUND.code,
            self._not_found_message(resolved_kind, namespace, name),
            hint=self._suggest(resolved_kind, namespace, name),
        )

    @staticmethod
    def _not_found_message(kind: str, namespace: str | None, name: str) -> str:
        if kind == TRAINING_RUNTIME.kind:
            return (
                "TrainingRuntime specified in TrainJob is not found: no TrainingRuntime "
                f"{name!r} in namespace {namespace!r} among the inputs"
            )
        return (
            "not found ClusterTrainingRuntime specified in TrainJob: no "
            f"ClusterTrainingRuntime {name!r} among the inputs"
        )

    def _suggest(self, kind: str, namespace: str | None, name: str) -> str | None:
        same_scope = [n for (k, ns, n) in self._known if k == kind and ns == namespace]
        suggestion = did_you_mean(name, same_scope)
        if suggestion is not None:
            return suggestion
        other = [
            (k, ns) for (k, ns, n) in self._known if n == name and (k, ns) != (kind, namespace)
        ]
        if not other:
            return None
        other_kind, other_ns = sorted(other, key=lambda pair: (pair[0], pair[1] or ""))[0]
        if other_kind == kind:
            return (
                f"a {kind} named {name!r} exists in namespace {other_ns!r}, but a "
                "TrainingRuntime serves only TrainJobs in its own namespace: move the "
                "TrainJob there, or publish the runtime as a ClusterTrainingRuntime"
            )
        where = f" in namespace {other_ns!r}" if other_ns else ""
        return f"a {other_kind} named {name!r} exists{where}; set runtimeRef.kind: {other_kind}"
