"""Spellings from older Trainer releases and the KEP-2170 draft, each with its current form.

Users paste manifests from the KEP, from v2.0/v2.1 docs and from stale upstream pages. A
generic "unknown field" would not say what to write instead, so this layer names the
current spelling (https://github.com/kubeflow/trainer/releases) and reports the fields it
explained as
handled, for the structural layer to stay silent about them. It reads the object as loaded,
before defaults, and never fails on malformed input.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from trainc.diagnostics import Diagnostic
from trainc.load.documents import LoadedObject
from trainc.model.json import FieldPath, JsonValue, as_list, as_object, format_path, get_path
from trainc.model.kinds import RUNTIME_KINDS, TRAINJOB
from trainc.model.labels import API_VERSION, GROUP, VERSION

#: Draft versions of the group that users meet in the KEP, and where they come from.
DRAFT_VERSIONS = {"v2alpha1": "the KEP-2170 draft"}
#: Placeholder manager shown in hints; any domain-prefixed path the user owns works.
EXAMPLE_MANAGER = "example.com/my-team"
_ELIDED = "…"
#: Plain words YAML 1.1 readers (kubectl's among them) take for booleans or null.
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "y", "n", "null"})
_MLPOLICY: FieldPath = ("spec", "mlPolicy")


@dataclass(frozen=True, slots=True)
class MigrationResult:
    """Migration findings of one object, and the paths they explain."""

    diagnostics: tuple[Diagnostic, ...]
    handled_paths: frozenset[FieldPath]


@dataclass(frozen=True, slots=True)
class _Migration:
    path: FieldPath
    code: str
    message: str
    hint: str


_Check = Callable[[LoadedObject], list[_Migration]]


def check_migrations(obj: LoadedObject) -> MigrationResult:
    """Findings for every old spelling in ``obj``; handled paths for the structural layer."""
    checks: tuple[_Check, ...] = (_check_api_version,)
    if obj.kind == TRAINJOB.kind:
        checks += (_check_initializer, _check_overrides, _check_trainer_num_proc)
    elif obj.kind in RUNTIME_KINDS:
        checks += (_check_torch_spec, _check_torch_fields)
    found = [migration for check in checks for migration in check(obj)]
    return MigrationResult(
        diagnostics=tuple(obj.finding(m.path, m.code, m.message, hint=m.hint) for m in found),
        handled_paths=frozenset(m.path for m in found),
    )


def _check_api_version(obj: LoadedObject) -> list[_Migration]:
    if obj.api_version == API_VERSION:
        return []
    group, _, version = obj.api_version.rpartition("/")
    hint = f"set apiVersion: {API_VERSION}"
    if group == GROUP and version in DRAFT_VERSIONS:
        return [
            _Migration(
                ("apiVersion",),
                "migrate.api-version",
                f"apiVersion {obj.api_version} is {DRAFT_VERSIONS[version]} of the Trainer API; "
                f"Trainer serves only {API_VERSION}",
                f"{hint}; the other findings on this object name the fields that changed",
            )
        ]
    return [
        _Migration(
            ("apiVersion",),
            "load.unknown-version",
            f"apiVersion {obj.api_version!r} is not served: {GROUP} has only version {VERSION}",
            hint,
        )
    ]


def _check_initializer(obj: LoadedObject) -> list[_Migration]:
    spec = as_object(obj.data.get("spec"))
    return [
        _initializer_migration(old, new, as_object(spec[old]))
        for old, new in (("datasetConfig", "dataset"), ("modelConfig", "model"))
        if old in spec
    ]


def _initializer_migration(old: str, new: str, block: dict[str, JsonValue]) -> _Migration:
    """The KEP's model config nested the source under ``input``; ``output`` has no successor."""
    note = "storageUri, env and secretRef keep their names"
    if "input" in block or "output" in block:
        if "output" in block:
            note += "; modelConfig.output has no successor, Trainer has no model-export step"
        block = as_object(block.get("input"))
    moved: JsonValue = {"initializer": {new: _elide(block, keep_scalars=True)}}
    return _Migration(
        ("spec", old),
        "migrate.initializer",
        f"spec.{old} is the KEP-2170 draft spelling of spec.initializer.{new}",
        f"move it: spec: {_flow(moved)} ({note})",
    )


def _check_overrides(obj: LoadedObject) -> list[_Migration]:
    spec = as_object(obj.data.get("spec"))
    found = []
    for field, release in (("podSpecOverrides", "v2.0"), ("podTemplateOverrides", "v2.1")):
        if field in spec:
            patch = _patch_for_overrides(
                as_list(spec[field]), pod_spec_only=field == "podSpecOverrides"
            )
            found.append(_overrides_migration(field, release, patch))
    for field in ("labels", "annotations"):
        if field in spec:
            patch = {"template": {"metadata": {field: spec[field]}}}
            found.append(_overrides_migration(field, "v2.0/v2.1", patch))
    return found


def _overrides_migration(field: str, release: str, patch: JsonValue) -> _Migration:
    entry = {"manager": EXAMPLE_MANAGER, "trainingRuntimeSpec": patch}
    return _Migration(
        ("spec", field),
        "migrate.overrides",
        f"spec.{field} ({release}) was replaced by spec.runtimePatches in Trainer v2.2.0",
        f"write runtimePatches: [{_flow(entry)}]; the manager is any domain-prefixed name you "
        "own, and env of the node and initializer containers belongs in spec.trainer.env and "
        "spec.initializer.*.env",
    )


def _patch_for_overrides(overrides: list[JsonValue], *, pod_spec_only: bool) -> JsonValue:
    """The runtimePatches spec fragment equivalent to v2.0/v2.1 override entries."""
    jobs: list[JsonValue] = []
    for override in overrides:
        entry = as_object(override)
        rest: JsonValue = {key: value for key, value in entry.items() if key != "targetJobs"}
        template: JsonValue = {"spec": rest} if pod_spec_only else rest
        for target in as_list(entry.get("targetJobs")):
            name = as_object(target).get("name")
            jobs.append(
                {"name": name, "template": {"spec": {"template": _elide(template, depth=2)}}}
            )
    return {"template": {"spec": {"replicatedJobs": jobs}}}


def _check_trainer_num_proc(obj: LoadedObject) -> list[_Migration]:
    path = ("spec", "trainer", "numProcPerNode")
    value = get_path(obj.data, path)
    if value in ("auto", "cpu", "gpu"):
        hint = "delete the field: without it Trainer derives the count from the node's resources"
    elif isinstance(value, str) and value.isdigit():
        hint = f"write the number without quotes: numProcPerNode: {int(value)}"
    else:
        return []
    return [
        _Migration(
            path,
            "migrate.num-proc-per-node-string",
            f"trainer.numProcPerNode is an integer since Trainer v2.2.0; {value!r} was the v2.1 "
            "int-or-string spelling",
            hint,
        )
    ]


def _check_torch_spec(obj: LoadedObject) -> list[_Migration]:
    if "torchSpec" not in as_object(get_path(obj.data, _MLPOLICY)):
        return []
    return [
        _Migration(
            (*_MLPOLICY, "torchSpec"),
            "migrate.torch-spec",
            "mlPolicy.torchSpec is the KEP-2170 draft spelling of mlPolicy.torch",
            "rename torchSpec to torch",
        )
    ]


def _check_torch_fields(obj: LoadedObject) -> list[_Migration]:
    found = []
    for key in ("torch", "torchSpec"):
        source = as_object(get_path(obj.data, (*_MLPOLICY, key)))
        if "numProcPerNode" in source:
            found.append(_num_proc_migration((*_MLPOLICY, key, "numProcPerNode"), source))
        if "elasticPolicy" in source:
            found.append(
                _Migration(
                    (*_MLPOLICY, key, "elasticPolicy"),
                    "migrate.torch-elastic-policy",
                    "mlPolicy.torch.elasticPolicy was removed in Trainer v2.2.0; no plugin ever "
                    "implemented it",
                    "delete it; set the node count with mlPolicy.numNodes or the TrainJob's "
                    "trainer.numNodes",
                )
            )
    return found


#: What each v2.1 runtime value meant, and what deleting it gives at HEAD.
_NUM_PROC_MEANING = {
    "auto": (
        "'auto' is what Trainer does by default now",
        "delete the field",
    ),
    "cpu": (
        "v2.1 started one process per CPU even on GPU nodes; Trainer now uses the CPU count "
        "only when the trainer has no GPU resource, and 'auto' otherwise",
        "delete the field; the result is unchanged unless the trainer requests GPUs",
    ),
    "gpu": (
        "with GPUs Trainer now passes 'auto' to torchrun where v2.1 passed the literal 'gpu'",
        "delete the field",
    ),
}


def _num_proc_migration(path: FieldPath, source: dict[str, JsonValue]) -> _Migration:
    value = source["numProcPerNode"]
    if isinstance(value, str) and value in _NUM_PROC_MEANING:
        meaning, hint = _NUM_PROC_MEANING[value]
    elif isinstance(value, int) and not isinstance(value, bool):
        meaning = "a fixed count is now set per TrainJob"
        hint = f"delete it and set spec.trainer.numProcPerNode: {value} in the TrainJobs"
    else:
        meaning = "the count now follows the trainer's resources"
        hint = "delete it; set spec.trainer.numProcPerNode (an integer) in a TrainJob if needed"
    return _Migration(
        path,
        "migrate.torch-num-proc-per-node",
        f"{format_path(path)} was removed from runtimes in Trainer v2.2.0; {meaning}",
        hint,
    )


def _elide(value: JsonValue, *, depth: int = 1, keep_scalars: bool = False) -> JsonValue:
    """``value`` with everything ``depth`` levels down shown as ``…``, to keep hints short."""
    if not isinstance(value, dict):
        return value if keep_scalars and not isinstance(value, list) else _ELIDED
    if depth == 0:
        return _ELIDED
    return {
        key: _elide(item, depth=depth - 1, keep_scalars=keep_scalars) for key, item in value.items()
    }


def _flow(value: JsonValue) -> str:
    """``value`` as one line of YAML flow style that reads back as the same data."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flow(key)}: {_flow(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    if isinstance(value, str) and (value == _ELIDED or _plain(value)):
        return value
    return json.dumps(value, ensure_ascii=False)


def _plain(text: str) -> bool:
    """True when ``text`` needs no quotes: it starts with a letter and reads as no bool or null."""
    return (
        bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9_./:-]*", text)) and text.lower() not in _YAML_WORDS
    )
