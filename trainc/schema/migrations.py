"""Spellings from older Trainer releases and the KEP-2170 draft, each with its current form.

Users paste manifests from the KEP, from v2.0/v2.1 docs and from stale upstream pages. A
generic "unknown field" would not say what to write instead, so this layer names the
current spelling (https://github.com/kubeflow/trainer/releases) and reports the fields it
explained as handled, for the structural layer to stay silent about them. It reads the
object as loaded, before defaults, and never fails on malformed input.

Each migration states its rewrite as edits (:mod:`trainc.schema.rewrites`): the hint of
the finding is rendered from them, and ``trainc migrate`` applies them to the file. A
migration that would lose or guess something (a value with no successor, a change to other
files) is marked ``manual`` with the reason, and only its hint is given.
"""

from __future__ import annotations

from collections.abc import Callable

from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.documents import LoadedObject
from trainc.model.json import FieldPath, JsonValue, as_list, as_object, format_path, get_path
from trainc.model.kinds import RUNTIME_KINDS, TRAINJOB
from trainc.model.labels import API_VERSION, GROUP, VERSION
from trainc.records import dataclass
from trainc.schema.rewrites import AddEntry, Delete, Edit, Ref, Rename, Set, Template, describe

LOAD_UNKNOWN_VERSION = Rule(
    "load.unknown-version",
    Severity.ERROR,
    "the apiVersion is not one trainc reads",
)

MIGRATE_API_VERSION = Rule(
    "migrate.api-version",
    Severity.ERROR,
    "the apiVersion belongs to an older draft of the API",
)

MIGRATE_INITIALIZER = Rule(
    "migrate.initializer",
    Severity.ERROR,
    "datasetConfig/modelConfig moved to spec.initializer",
)

MIGRATE_OVERRIDES = Rule(
    "migrate.overrides",
    Severity.ERROR,
    "pod overrides and spec.labels/annotations became runtimePatches",
)

MIGRATE_TORCH_SPEC = Rule(
    "migrate.torch-spec",
    Severity.ERROR,
    "mlPolicy.torchSpec is now mlPolicy.torch",
)

MIGRATE_TORCH_NUM_PROC_PER_NODE = Rule(
    "migrate.torch-num-proc-per-node",
    Severity.ERROR,
    "runtime torch.numProcPerNode was removed",
)

MIGRATE_TORCH_ELASTIC_POLICY = Rule(
    "migrate.torch-elastic-policy",
    Severity.ERROR,
    "torch.elasticPolicy was removed",
)

MIGRATE_NUM_PROC_PER_NODE_STRING = Rule(
    "migrate.num-proc-per-node-string",
    Severity.ERROR,
    "trainer.numProcPerNode is now an integer",
)


#: Draft apiVersions of the API that users meet in the KEP, and where they come from.
#: KEP-2170 wrote its kinds in Kubeflow's shared group, ``kubeflow.org/v2alpha1``
#: (https://github.com/kubeflow/trainer/blob/master/proposals/2170-kubeflow-trainer-v2/README.md);
#: the draft version is also met under Trainer's own group.
DRAFT_API_VERSIONS = {
    "kubeflow.org/v2alpha1": "the KEP-2170 draft",
    f"{GROUP}/v2alpha1": "the KEP-2170 draft",
}
#: Placeholder manager shown in hints; any domain-prefixed path the user owns works.
EXAMPLE_MANAGER = "example.com/my-team"
_MLPOLICY: FieldPath = ("spec", "mlPolicy")
_RUNTIME_PATCHES: FieldPath = ("spec", "runtimePatches")


@dataclass(frozen=True, slots=True)
class Migration:
    """One old spelling in an object: its finding, and the edits that write the new one.

    ``manual`` says why the edits must not be applied blindly (they would drop a value
    or need changes elsewhere); None when applying them keeps what the object meant.
    """

    diagnostic: Diagnostic
    edits: tuple[Edit, ...]
    manual: str | None = None


@dataclass(frozen=True, slots=True)
class MigrationResult:
    """Migration findings of one object, and the paths they explain."""

    migrations: tuple[Migration, ...]
    handled_paths: frozenset[FieldPath]

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """The findings, one per old spelling, in the order the checks found them."""
        return tuple(migration.diagnostic for migration in self.migrations)


@dataclass(frozen=True, slots=True)
class _Found:
    path: FieldPath
    code: str
    message: str
    edits: tuple[Edit, ...]
    note: str = ""
    manual: str | None = None


_Check = Callable[[LoadedObject, str], list[_Found]]


def check_migrations(obj: LoadedObject, *, manager: str = EXAMPLE_MANAGER) -> MigrationResult:
    """Every old spelling in ``obj``; handled paths for the structural layer.

    ``manager`` names the runtimePatches entry that old overrides become: a placeholder
    in findings, the user's choice when ``trainc migrate`` writes it.
    """
    checks: tuple[_Check, ...] = (_check_api_version,)
    if obj.kind == TRAINJOB.kind:
        checks += (_check_initializer, _check_overrides, _check_trainer_num_proc)
    elif obj.kind in RUNTIME_KINDS:
        checks += (_check_torch_spec, _check_torch_fields)
    found = [item for check in checks for item in check(obj, manager)]
    return MigrationResult(
        migrations=tuple(_migration(obj, item) for item in found),
        handled_paths=frozenset(item.path for item in found),
    )


def _migration(obj: LoadedObject, found: _Found) -> Migration:
    hint = describe(found.edits, obj.data) + found.note
    diagnostic = obj.finding(found.path, found.code, found.message, hint=hint)
    return Migration(diagnostic, found.edits, found.manual)


def _check_api_version(obj: LoadedObject, _manager: str) -> list[_Found]:
    """The apiVersion to write instead of a draft, unknown or missing one.

    Only a draft's fields are known (the other migrations name them); any other version
    is no release of the Trainer API, so setting the apiVersion alone may not be enough.
    """
    if obj.api_version == API_VERSION:
        return []
    edits = (Set(("apiVersion",), API_VERSION),)
    draft = DRAFT_API_VERSIONS.get(obj.api_version)
    if draft is not None:
        return [
            _Found(
                ("apiVersion",),
                MIGRATE_API_VERSION.code,
                f"apiVersion {obj.api_version} is {draft} of the Trainer API; "
                f"Trainer serves only {API_VERSION}",
                edits,
                "; the other findings on this object name the fields that changed",
            )
        ]
    if not obj.api_version:
        message = f"the {obj.kind} has no apiVersion, which the API server requires"
        return [_Found(("kind",), LOAD_UNKNOWN_VERSION.code, message, edits)]
    group = obj.api_version.rpartition("/")[0]
    message = f"apiVersion {obj.api_version!r} is not served: {GROUP} has only version {VERSION}"
    note = ""
    if group != GROUP:
        message = (
            f"apiVersion {obj.api_version!r} is not Kubeflow Trainer's: a {obj.kind} is "
            f"served only as {API_VERSION}"
        )
        note = (
            "; if the object belongs to another API than Trainer's, leave its file out "
            "with inputs.exclude in trainc.yaml"
        )
    manual = f"{obj.api_version!r} is no release of the Trainer API, so its fields are unknown"
    return [_Found(("apiVersion",), LOAD_UNKNOWN_VERSION.code, message, edits, note, manual)]


def _check_initializer(obj: LoadedObject, _manager: str) -> list[_Found]:
    spec = as_object(obj.data.get("spec"))
    return [
        _initializer_migration(old, new, as_object(spec[old]))
        for old, new in (("datasetConfig", "dataset"), ("modelConfig", "model"))
        if old in spec
    ]


def _initializer_migration(old: str, new: str, block: dict[str, JsonValue]) -> _Found:
    """The KEP's model config nested the source under ``input``; ``output`` has no successor."""
    note = "storageUri, env and secretRef keep their names"
    manual = None
    source: Template = Ref(("spec", old))
    if "input" in block or "output" in block:
        if "output" in block:
            manual = f"{old}.output has no successor, Trainer has no model-export step"
            note += f"; {manual}"
        source = Ref(("spec", old, "input")) if "input" in block else {}
    return _Found(
        ("spec", old),
        MIGRATE_INITIALIZER.code,
        f"spec.{old} is the KEP-2170 draft spelling of spec.initializer.{new}",
        (Set(("spec", "initializer", new), source, replaces=("spec", old)),),
        f" ({note})",
        manual,
    )


def _check_overrides(obj: LoadedObject, manager: str) -> list[_Found]:
    spec = as_object(obj.data.get("spec"))
    found: list[_Found] = []
    for field in ("labels", "annotations"):
        if field in spec:
            labels: Template = {"template": {"metadata": {field: Ref(("spec", field))}}}
            found.append(_overrides_migration(field, "v2.0/v2.1", labels, manager, None))
    for field, release in (("podSpecOverrides", "v2.0"), ("podTemplateOverrides", "v2.1")):
        if field in spec:
            patch, manual = _patch_for_overrides(
                field, as_list(spec[field]), pod_spec_only=field == "podSpecOverrides"
            )
            found.append(_overrides_migration(field, release, patch, manager, manual))
    return found


def _overrides_migration(
    field: str, release: str, patch: Template, manager: str, manual: str | None
) -> _Found:
    entry = AddEntry(
        _RUNTIME_PATCHES, "manager", manager, {"trainingRuntimeSpec": patch}, ("spec", field)
    )
    return _Found(
        ("spec", field),
        MIGRATE_OVERRIDES.code,
        f"spec.{field} ({release}) was replaced by spec.runtimePatches in Trainer v2.2.0",
        (entry,),
        "; the manager is any domain-prefixed name you own, and env of the node and "
        "initializer containers belongs in spec.trainer.env and spec.initializer.*.env",
        manual,
    )


def _patch_for_overrides(
    field: str, overrides: list[JsonValue], *, pod_spec_only: bool
) -> tuple[Template, str | None]:
    """The runtimePatches spec fragment equivalent to v2.0/v2.1 override entries, and why
    it cannot be written for the user (an entry that names no job)."""
    jobs: list[Template] = []
    manual = None
    for index, override in enumerate(overrides):
        entry = as_object(override)
        fields = {key: Ref(("spec", field, index, key)) for key in entry if key != "targetJobs"}
        template: Template = {"spec": dict(fields)} if pod_spec_only else dict(fields)
        names = [as_object(target).get("name") for target in as_list(entry.get("targetJobs"))]
        if not names or not all(isinstance(name, str) and name for name in names):
            manual = f"spec.{field}[{index}] does not name the jobs it applies to in targetJobs"
        jobs.extend(
            {"name": name, "template": {"spec": {"template": template}}}
            for name in names
            if isinstance(name, str)
        )
    return {"template": {"spec": {"replicatedJobs": jobs}}}, manual


def _check_trainer_num_proc(obj: LoadedObject, _manager: str) -> list[_Found]:
    path = ("spec", "trainer", "numProcPerNode")
    value = get_path(obj.data, path)
    edits: tuple[Edit, ...]
    if value in ("auto", "cpu", "gpu"):
        edits = (Delete(path),)
        note = ": without it Trainer derives the count from the node's resources"
    elif isinstance(value, str) and value.isdigit():
        edits = (Set(path, int(value)),)
        note = " (an integer, without quotes)"
    else:
        return []
    return [
        _Found(
            path,
            MIGRATE_NUM_PROC_PER_NODE_STRING.code,
            f"trainer.numProcPerNode is an integer since Trainer v2.2.0; {value!r} was the v2.1 "
            "int-or-string spelling",
            edits,
            note,
        )
    ]


def _check_torch_spec(obj: LoadedObject, _manager: str) -> list[_Found]:
    if "torchSpec" not in as_object(get_path(obj.data, _MLPOLICY)):
        return []
    return [
        _Found(
            (*_MLPOLICY, "torchSpec"),
            MIGRATE_TORCH_SPEC.code,
            "mlPolicy.torchSpec is the KEP-2170 draft spelling of mlPolicy.torch",
            (Rename((*_MLPOLICY, "torchSpec"), "torch"),),
        )
    ]


def _check_torch_fields(obj: LoadedObject, _manager: str) -> list[_Found]:
    found: list[_Found] = []
    for key in ("torch", "torchSpec"):
        source = as_object(get_path(obj.data, (*_MLPOLICY, key)))
        if "numProcPerNode" in source:
            found.append(_num_proc_migration((*_MLPOLICY, key, "numProcPerNode"), source))
        if "elasticPolicy" in source:
            path = (*_MLPOLICY, key, "elasticPolicy")
            found.append(
                _Found(
                    path,
                    MIGRATE_TORCH_ELASTIC_POLICY.code,
                    "mlPolicy.torch.elasticPolicy was removed in Trainer v2.2.0; no plugin ever "
                    "implemented it",
                    (Delete(path),),
                    "; set the node count with mlPolicy.numNodes or the TrainJob's "
                    "trainer.numNodes",
                )
            )
    return found


#: What each v2.1 runtime value meant, and what deleting it gives at HEAD.
_NUM_PROC_MEANING = {
    "auto": ("'auto' is what Trainer does by default now", ""),
    "cpu": (
        "v2.1 started one process per CPU even on GPU nodes; Trainer now uses the CPU count "
        "only when the trainer has no GPU resource, and 'auto' otherwise",
        "; the result is unchanged unless the trainer requests GPUs",
    ),
    "gpu": (
        "with GPUs Trainer now passes 'auto' to torchrun where v2.1 passed the literal 'gpu'",
        "",
    ),
}


def _num_proc_migration(path: FieldPath, source: dict[str, JsonValue]) -> _Found:
    value = source["numProcPerNode"]
    manual = None
    if isinstance(value, str) and value in _NUM_PROC_MEANING:
        meaning, note = _NUM_PROC_MEANING[value]
    elif isinstance(value, int) and not isinstance(value, bool):
        meaning = "a fixed count is now set per TrainJob"
        manual = f"set spec.trainer.numProcPerNode: {value} in the TrainJobs"
        note = f"; {manual}"
    else:
        meaning = "the count now follows the trainer's resources"
        manual = "set spec.trainer.numProcPerNode (an integer) in a TrainJob if needed"
        note = f"; {manual}"
    return _Found(
        path,
        MIGRATE_TORCH_NUM_PROC_PER_NODE.code,
        f"{format_path(path)} was removed from runtimes in Trainer v2.2.0; {meaning}",
        (Delete(path),),
        note,
        manual,
    )
