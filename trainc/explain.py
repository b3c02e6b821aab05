"""Where each line of a compiled manifest came from: ``trainc explain``.

Resolution records the origin of every value of a TrainJob's JobSet
(:mod:`trainc.resolve.provenance`): a line of the runtime, a TrainJob override, a
runtime patch and its manager, or a plugin's rule. Here each object compile emits is
rendered exactly as compile writes it, read back for the position of every field, and
each line labelled with the origin of the field that starts on it (a line inside a
multi-line value belongs to the field above). Objects other than the JobSet (PodGroups,
claims, ConfigMaps) are derived by trainc's builders as a whole and say so.

For one field, :func:`field_history` gives the chain of values it took: the runtime's,
each runtime patch's that replaced it, then the TrainJob override or the plugin rule that
set its final value.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trainc.config.limits import InputLimits
from trainc.emit.order import object_id
from trainc.emit.yamlout import dump_yaml
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import (
    FieldPath,
    JsonObject,
    JsonValue,
    format_path,
    get_path,
    has_path,
    parse_path,
)
from trainc.model.labels import JOBSET_KIND
from trainc.resolve.provenance import Derived, Origin, Written
from trainc.resolve.resolved import ResolvedJob

if TYPE_CHECKING:
    from trainc.build.job import BuiltJob

#: What a value no rule recorded was written by: the compiler itself.
BUILT = "trainc"
_WEBHOOK = "the JobSet webhook"
_TRAINC = "trainc's "


@dataclass(frozen=True, slots=True)
class ExplainedLine:
    """One line of a manifest and where its value came from."""

    text: str
    origin: str


@dataclass(frozen=True, slots=True)
class ExplainedObject:
    """One emitted object, line by line."""

    kind: str
    namespace: str
    name: str
    lines: tuple[ExplainedLine, ...]

    @property
    def title(self) -> str:
        """``JobSet ml/llama``."""
        return object_title(self.kind, self.namespace, self.name)


@dataclass(frozen=True, slots=True)
class FieldStep:
    """A value a field held, and where it came from."""

    value: JsonValue
    origin: str


@dataclass(frozen=True, slots=True)
class FieldHistory:
    """The values one field of one object took, oldest first; the last is emitted."""

    title: str
    path: FieldPath
    steps: tuple[FieldStep, ...]


def object_title(kind: str, namespace: str, name: str) -> str:
    """``JobSet ml/llama``, or ``ClusterRole trainc-sweeper`` for a cluster-scoped one."""
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def _explain(job: ResolvedJob, obj: JsonObject) -> ExplainedObject:
    ident = object_id(obj)
    text = dump_yaml([obj])
    starts = _line_paths(text)
    lines: list[ExplainedLine] = []
    path: FieldPath = ()
    for number, line in enumerate(text.splitlines()):
        path = starts.get(number, path)
        lines.append(ExplainedLine(line, _label(job, ident.kind, path)))
    return ExplainedObject(ident.kind, ident.namespace, ident.name, tuple(lines))


def _line_paths(text: str) -> dict[int, FieldPath]:
    """The deepest field that starts on each line (0-based) of a rendered object."""
    parsed = parse_documents(SourceFile(path="<explain>", text=text), InputLimits())
    deepest: dict[int, FieldPath] = {}
    for document in parsed.documents:
        for path, (line, _) in document.positions.items():
            if len(path) >= len(deepest.get(line, ())):
                deepest[line] = path
    return deepest


def origin_of(job: ResolvedJob, kind: str, path: FieldPath) -> Origin | None:
    """Where the value at ``path`` of an object built from ``job`` came from, when
    resolution recorded it (the JobSet's spec, labels and annotations)."""
    if kind != JOBSET_KIND or not path:
        return None
    if path[0] == "spec":
        tree, inner = job.jobset_spec, path[1:]
    elif path[:2] in (("metadata", "labels"), ("metadata", "annotations")):
        tree, inner = job.jobset_metadata, path[1:]
    else:
        return None
    # A value the builders added after resolution (trainc's ownership labels) is not
    # in the resolved tree: its nearest recorded ancestor did not write it.
    return job.trace.origin(tree, inner) if has_path(tree, inner) else None


def _label(job: ResolvedJob, kind: str, path: FieldPath) -> str:
    if path[:2] in (("metadata", "name"), ("metadata", "namespace")):
        return describe_origin(Written(job.trainjob, path))
    origin = origin_of(job, kind, path)
    return describe_origin(origin) if origin is not None else BUILT


def describe_origin(origin: Origin) -> str:
    """``runtimes/torch.yaml:24``, ``patch example.com/team (jobs/x.yaml:14)``,
    ``torch plugin: torchrun environment`` or ``JobSet default: ...``."""
    if isinstance(origin, Derived):
        if origin.actor == _WEBHOOK:
            return f"JobSet default: {origin.rule}"
        return f"{origin.actor.removeprefix(_TRAINC)}: {origin.rule} (from {_where(origin.cause)})"
    where = _where(origin)
    return f"patch {origin.manager} ({where})" if origin.manager is not None else where


def _where(origin: Written) -> str:
    """``jobs/x.yaml:11``: the field's line, or for a value the file does not spell out
    (a CRD default, an entry built from a field) the line of its nearest field."""
    document = origin.source.loaded.document
    return f"{document.source.path}:{document.locate(origin.path).line}"


def field_history(job: ResolvedJob, obj: JsonObject, path: FieldPath) -> FieldHistory:
    """The values the field at ``path`` of ``obj`` took, oldest first."""
    ident = object_id(obj)
    title = object_title(ident.kind, ident.namespace, ident.name)
    final = FieldStep(get_path(obj, path), _label(job, ident.kind, path))
    earlier: list[FieldStep] = []
    if ident.kind == JOBSET_KIND and path[:1] == ("spec",):
        earlier = [
            FieldStep(value, describe_origin(origin))
            for origin, value in job.trace.earlier(job.jobset_spec, path[1:])
        ]
    steps = [*earlier, final]
    # A value written again as it was (a merge that re-sets it) is one step, not two.
    kept = [step for step, after in itertools.pairwise(steps) if step != after]
    return FieldHistory(title, path, (*kept, final))


def matching_paths(obj: JsonValue, pattern: FieldPath) -> Iterator[FieldPath]:
    """The paths of ``obj`` that ``pattern`` names, from the root or as a suffix.

    In ``pattern``, a string where a list is selects the item of that ``name``
    (``containers[node]``), so users need not count indices.
    """
    for path in _paths(obj, ()):
        for start in range(len(path) - len(pattern) + 1):
            if _matches(obj, path, start, pattern):
                yield path
                break


def _paths(node: JsonValue, prefix: FieldPath) -> Iterator[FieldPath]:
    if prefix:
        yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*prefix, index))


def _matches(obj: JsonValue, path: FieldPath, start: int, pattern: FieldPath) -> bool:
    if len(path) - start != len(pattern):
        return False
    for depth, wanted in enumerate(pattern, start):
        key = path[depth]
        if key == wanted:
            continue
        item = get_path(obj, path[: depth + 1])
        named = isinstance(item, dict) and item.get("name") == wanted
        if not (isinstance(key, int) and isinstance(wanted, str) and named):
            return False
    return True


def shown_value(value: JsonValue) -> str:
    """A value on one line: strings as they are, anything else as JSON."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= _VALUE_WIDTH else text[: _VALUE_WIDTH - 1] + "…"


@dataclass(frozen=True, slots=True)
class Selection:
    """What ``trainc explain`` shows: whole objects, or the history of fields."""

    objects: tuple[ExplainedObject, ...] = ()
    fields: tuple[FieldHistory, ...] = ()


class SelectionError(ValueError):
    """A selector that is malformed or names nothing that was built."""


def select(
    jobs: Sequence[tuple[ResolvedJob, BuiltJob]],
    *,
    object_name: str | None = None,
    field: str | None = None,
) -> Selection:
    """The objects of ``jobs`` that ``object_name`` keeps (all without it), explained
    line by line, or with ``field`` the history of that field in each of them."""
    wanted = _object_selector(object_name) if object_name is not None else None
    chosen = [
        (job, obj)
        for job, built in jobs
        for obj in built.objects
        if wanted is None or _names(obj, wanted)
    ]
    if not chosen:
        raise SelectionError(f"--object {object_name}: no compiled object has that kind and name")
    if field is None:
        return Selection(objects=tuple(_explain(job, obj) for job, obj in chosen))
    try:
        pattern = parse_path(field)
    except ValueError as error:
        raise SelectionError(f"--field {field}: {error}") from None
    histories = tuple(
        field_history(job, obj, path)
        for job, obj in chosen
        for path in matching_paths(obj, pattern)
    )
    if not histories:
        raise SelectionError(f"--field {field}: no field of the selected objects has that path")
    return Selection(fields=histories)


def _object_selector(text: str) -> tuple[str, str]:
    kind, slash, name = text.partition("/")
    if not slash or not kind or not name:
        raise SelectionError(f"--object {text}: expected KIND/NAME, e.g. JobSet/llama")
    return kind.lower(), name


def _names(obj: JsonObject, wanted: tuple[str, str]) -> bool:
    ident = object_id(obj)
    return (ident.kind.lower(), ident.name) == wanted


def render_explained(objects: Sequence[ExplainedObject]) -> str:
    """Each object as its manifest, every line followed by ``# origin`` in one column."""
    out: list[str] = []
    for obj in objects:
        width = min(max((len(line.text) for line in obj.lines), default=0), _COLUMN)
        out.append(f"# {obj.title}")
        out.extend(f"{line.text.ljust(width)}  # {line.origin}" for line in obj.lines)
        out.append("")
    return "\n".join(out)


def render_histories(histories: Sequence[FieldHistory]) -> str:
    """Each field's values, oldest first, the emitted one marked with ``=>``."""
    out: list[str] = []
    for history in histories:
        out.append(f"{history.title}  {format_path(history.path)}")
        values = [shown_value(step.value) for step in history.steps]
        width = min(max(len(value) for value in values), _COLUMN)
        for index, (step, value) in enumerate(zip(history.steps, values, strict=True)):
            mark = "=>" if index == len(values) - 1 else "  "
            out.append(f"  {mark} {value.ljust(width)}  {step.origin}")
        out.append("")
    return "\n".join(out)


#: The longest value a field history shows whole.
_VALUE_WIDTH = 80
#: Origins are aligned in a column no further right than this.
_COLUMN = 72
