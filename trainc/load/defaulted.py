"""A trainer object as the cross-object stages see it: defaulted, with its namespace."""

from __future__ import annotations

from dataclasses import replace

from trainc.diagnostics import Diagnostic, Severity
from trainc.errors import CompilerBug
from trainc.load.documents import LoadedObject
from trainc.model.json import FieldPath, JsonObject
from trainc.model.kinds import KINDS_BY_NAME
from trainc.records import dataclass


def effective_namespace(obj: LoadedObject, default: str) -> str | None:
    """The namespace ``obj`` lives in: its own, else ``default`` (trainc.yaml's, as
    ``kubectl apply -n`` would give it); None for a cluster-scoped kind."""
    return (obj.namespace or default) if KINDS_BY_NAME[obj.kind].namespaced else None


@dataclass(frozen=True, slots=True, eq=False)
class DefaultedObject:
    """An object after the structural layer: CRD defaults applied, nulls pruned.

    ``namespace`` is the effective namespace (the configured default for namespaced
    kinds that set none; None for cluster-scoped kinds). ``schema_valid`` is False when
    the structural layer reported errors: later stages still run where they can, but
    must not trust field types in such an object.
    """

    loaded: LoadedObject
    data: JsonObject
    namespace: str | None
    schema_valid: bool

    def required_namespace(self) -> str:
        """The effective namespace of a namespaced object; CompilerBug if it has none."""
        if self.namespace is None:
            raise CompilerBug(f"{self.kind} {self.name} has no effective namespace")
        return self.namespace

    @property
    def kind(self) -> str:
        """Kind of the object."""
        return self.loaded.kind

    @property
    def name(self) -> str:
        """metadata.name of the object."""
        return self.loaded.name

    def finding(
        self,
        path: FieldPath,
        code: str,
        message: str,
        *,
        severity: Severity | None = None,
        hint: str | None = None,
    ) -> Diagnostic:
        """A diagnostic about this object at ``path``, naming its effective namespace."""
        found = self.loaded.finding(path, code, message, severity=severity, hint=hint)
        return replace(found, namespace=self.namespace)
