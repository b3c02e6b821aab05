"""trainc.yaml's ``policies`` section applied: which policies run, with which parameters.

Names in ``enable``, ``disable`` and ``params`` are checked against the policies that
exist, because a misspelt name would otherwise switch nothing on or off in silence.
"""

from __future__ import annotations

from collections.abc import Iterator, Set

from trainc.config.settings import PolicySettings
from trainc.diagnostics import Diagnostic
from trainc.load.documents import Document, finding_in
from trainc.model.json import FieldPath, JsonObject, as_list, get_path
from trainc.records import dataclass


@dataclass(frozen=True, slots=True)
class PolicySelection:
    """The built-ins to turn on and the policies to turn off, with findings on the names."""

    enabled: frozenset[str]
    disabled: frozenset[str]
    diagnostics: tuple[Diagnostic, ...]

    def runs(self, name: str, *, builtin: bool) -> bool:
        """True when the policy ``name`` is evaluated: not disabled, and enabled if built in."""
        return name not in self.disabled and (not builtin or name in self.enabled)


def select_policies(
    settings: PolicySettings,
    *,
    repository: Set[str],
    builtin: Set[str],
    config_file: str | None,
    config_document: Document | None = None,
) -> PolicySelection:
    """Check the names trainc.yaml uses against the repository and built-in policy names.

    ``enable`` may name only built-ins (repository policies are on unless disabled);
    ``disable`` and ``params`` may name either. Findings point at the entry when
    ``config_document`` (trainc.yaml as parsed) is given, else at the file.
    """
    locate = _Locator(config_file, config_document)
    known = repository | builtin
    diagnostics = [
        *locate.unknown("enable", settings.enable - builtin, builtin, "built-in policy"),
        *locate.unknown("disable", settings.disable - known, known, "policy"),
        *locate.unknown("params", set(settings.params) - known, known, "policy"),
    ]
    return PolicySelection(
        enabled=settings.enable & builtin,
        disabled=settings.disable,
        diagnostics=tuple(diagnostics),
    )


def merge_params(defaults: JsonObject | None, override: JsonObject | None) -> JsonObject:
    """A policy's ``spec.params`` with trainc.yaml's params for it merged over them.

    The merge is shallow: a top-level key in trainc.yaml replaces the default whole,
    so an overriding list or map says exactly what applies, with no stale default
    entries merged into it.
    """
    return {**(defaults or {}), **(override or {})}


@dataclass(frozen=True, slots=True)
class _Locator:
    """Findings about ``policies.<key>`` entries of trainc.yaml."""

    config_file: str | None
    document: Document | None

    def unknown(
        self, key: str, names: Set[str], known: Set[str], noun: str
    ) -> Iterator[Diagnostic]:
        hint = "known: " + (", ".join(sorted(known)) or "none")
        for name in sorted(names):
            yield self._finding(
                self._path(key, name), f"policies.{key} names {name!r}, which is no {noun}", hint
            )

    def _finding(self, path: FieldPath, message: str, hint: str) -> Diagnostic:
        return finding_in(
            self.document, self.config_file, path, "policy.invalid", message, hint=hint
        )

    def _path(self, key: str, name: str) -> FieldPath:
        if key == "params":
            return ("policies", "params", name)
        data = self.document.data if self.document is not None else None
        entries = as_list(get_path(data, ("policies", key)))
        index = next((i for i, entry in enumerate(entries) if entry == name), None)
        return ("policies", key) if index is None else ("policies", key, index)
