"""Loading organisation policies: checked, selected by trainc.yaml, and compiled.

Every policy document must match the generated ValidationPolicy schema and compile;
anything wrong is a ``policy.invalid`` finding at the offending line, and the other
policies still load, so one broken file hides nothing. Built-in policies run only when
trainc.yaml enables them, repository policies unless it disables them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from trainc.config.policy_settings import merge_params, select_policies
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic
from trainc.load.documents import Document
from trainc.load.source import SourceFile
from trainc.model.decode import decode
from trainc.model.json import get_path
from trainc.model.labels import POLICY_KIND
from trainc.model.schematree import load_kind_schema
from trainc.policy.compile import CompiledPolicy, compile_policy
from trainc.policy.files import POLICY_INVALID, read_policy_files
from trainc.records import dataclass
from trainc.schema.defaults import drop_nulls
from trainc.schema.structural import check_schema

if TYPE_CHECKING:
    from trainc.model.policy import ValidationPolicy

#: Policy names become rule codes ``policy.<name>``: a DNS label keeps codes kebab-case.
_POLICY_NAME = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")


@dataclass(frozen=True, slots=True)
class PolicySet:
    """The policies that run, in load order, and what was wrong with the others.

    ``sources`` holds the policy files read (of the built-in pack, the enabled ones), so
    reporters can quote the lines that findings point at and list the files checked.
    """

    policies: tuple[CompiledPolicy, ...]
    diagnostics: tuple[Diagnostic, ...]
    sources: Mapping[str, SourceFile]


@dataclass(frozen=True, slots=True)
class _Candidate:
    """A schema-valid policy document, not yet compiled."""

    name: str
    policy: ValidationPolicy
    document: Document


def load_policies(config: RepoConfig, *, config_document: Document | None = None) -> PolicySet:
    """Read, check and compile the policies ``config`` selects.

    Every policy document is checked against the schema, disabled and not-enabled
    ones too (a file in ``policies/`` must stay well-formed); only the policies that
    run are compiled. ``config_document`` is trainc.yaml as parsed, used only to point
    findings about ``policies.enable``/``disable``/``params`` at the offending entry.
    """
    files = read_policy_files(config)
    diagnostics = files.diagnostics
    repo = list(_candidates(files.repository, diagnostics))
    # Built-ins are trainc's own, well-formed files (a test checks each): only the
    # enabled ones are checked and decoded, and the others cost their names alone.
    builtin_names = {str(get_path(doc.data, ("metadata", "name"))): doc for doc in files.builtin}
    selection = select_policies(
        config.policies,
        repository={c.name for c in repo},
        builtin=set(builtin_names),
        config_file=config.config_file,
        config_document=config_document,
    )
    enabled = [doc for name, doc in builtin_names.items() if selection.runs(name, builtin=True)]
    builtin = list(_candidates(enabled, diagnostics))
    diagnostics.extend(selection.diagnostics)
    chosen = [*(c for c in repo if selection.runs(c.name, builtin=False)), *builtin]
    policies: list[CompiledPolicy] = []
    for candidate in _unique(chosen, diagnostics):
        overrides = config.policies.params.get(candidate.name)
        params = merge_params(candidate.policy.spec.params, overrides)
        compiled = compile_policy(candidate.name, candidate.policy, candidate.document, params)
        if isinstance(compiled, CompiledPolicy):
            policies.append(compiled)
        else:
            diagnostics.extend(compiled)
    sources = {**files.sources, **{doc.source.path: doc.source for doc in enabled}}
    return PolicySet(tuple(policies), tuple(diagnostics), sources)


def _unique(candidates: list[_Candidate], diagnostics: list[Diagnostic]) -> Iterator[_Candidate]:
    """The candidates, without a second policy of a name already taken."""
    seen: dict[str, _Candidate] = {}
    for candidate in candidates:
        first = seen.setdefault(candidate.name, candidate)
        if first is not candidate:
            where = first.document.source.path
            diagnostics.append(
                candidate.document.finding(
                    ("metadata", "name"),
                    POLICY_INVALID.code,
                    f"policy name {candidate.name!r} is already used in {where}",
                    hint="policy names are rule codes and must be unique",
                )
            )
        else:
            yield candidate


def _candidates(
    documents: Iterable[Document], diagnostics: list[Diagnostic]
) -> Iterator[_Candidate]:
    """Schema-valid policies with a usable name; a finding for every other document."""
    for document in documents:
        schema = load_kind_schema(POLICY_KIND)
        data = drop_nulls(document.data)
        findings = check_schema(data, schema)
        diagnostics.extend(
            document.finding(f.path, POLICY_INVALID.code, f.message, hint=f.hint) for f in findings
        )
        if findings:
            continue
        name = get_path(data, ("metadata", "name"))
        if not isinstance(name, str) or _POLICY_NAME.fullmatch(name) is None:
            diagnostics.append(_bad_name(document, name))
            continue
        # The typed policy model is loaded only when there is a policy to decode.
        from trainc.model.policy import ValidationPolicy  # noqa: PLC0415

        yield _Candidate(name, decode(ValidationPolicy, data), document)


def _bad_name(document: Document, name: object) -> Diagnostic:
    if name is None:
        return document.finding(("metadata",), POLICY_INVALID.code, "metadata.name is required")
    return document.finding(
        ("metadata", "name"),
        POLICY_INVALID.code,
        f"policy name {name!r} is not a DNS label",
        hint="use lower-case letters, digits and '-', at most 63 characters; "
        "the name becomes the rule code policy.<name>",
    )
