"""Runtime patches applied to a runtime's JobSet template by Kubernetes strategic merge patch.

Trainer applies each ``runtimePatches[i].trainingRuntimeSpec.template.spec`` to the runtime's
``spec.template.spec`` with apimachinery's strategic merge patch (SMP) over the JobSetSpec Go
type, patch by patch, then restores the runtime's replicatedJob order; JobSet labels and
annotations are overlaid on their own (``docs/upstream.md``, "Metadata" and "Runtime
patches"; https://github.com/kubeflow/trainer/blob/master/pkg/runtime/core/trainingruntime.go).
The Go patch
tags come from the generated JSON Schema (``x-kubernetes-patch-strategy``,
``x-kubernetes-patch-merge-key``); no field is named here.

The rules are apimachinery's (v0.36 ``strategicpatch``), for the features that occur:

- Maps merge key by key, and a ``null`` deletes a key. A patch value with no counterpart of
  its type in the original is stored without its nulls and without maps holding ``$patch``.
- Lists tagged ``merge`` merge item by item, matched on the merge key (lists of scalars:
  union). Untagged lists (tolerations, ``nodeSelectorTerms``) and unknown fields are
  replaced wholesale.
- Order after a list merge: matched and new items in patch order, original-only items in
  their original order; while both remain, the next original-only item goes first only if
  it came before the next patch item in the original. So ``[A, B]`` patched with
  ``[B', C]`` is ``[A, B', C]``, but with ``[A', C]`` it is ``[A', C, B]``, and with
  ``[C]`` it is ``[C, A, B]``: a new item goes ahead of the original-only items after it.
- ``retainKeys`` (volumes) acts only through a ``$retainKeys`` list in a patch map, which
  drops the original's keys it does not name. Trainer marshals its patch from Go structs,
  so it never carries one: volumes merge by name like any ``merge`` list, and a patch
  volume reusing a runtime volume's name adds its source beside the runtime's one.
- Directives: ``$patch: replace`` stores a map as given and ``$patch: delete`` an empty
  map; in a list, ``$patch: delete`` items delete by merge key and a ``$patch: replace``
  item makes the list the patch's other items. ``$setElementOrder`` and
  ``$deleteFromPrimitiveList`` are ignored. Schema-valid inputs carry no ``$`` keys at all.

Each merge can record where every value came from in a
:class:`~trainc.resolve.provenance.Trace`: the runtime's template or one patch, so a
finding about the resolved Job points at the line that wrote the value.

Where apimachinery returns an error (an item without its merge key, map items without a
merge key, a list mixing maps and scalars), which schema-valid input cannot reach, these
functions stay total: such items never match, and such lists are replaced.
"""

from __future__ import annotations

from collections.abc import Sequence

from trainc.errors import CompilerBug
from trainc.model.json import (
    JsonArray,
    JsonObject,
    JsonValue,
    as_list,
    as_object,
    copy_json,
    get_path,
)
from trainc.model.schematree import KindSchema, SchemaNode
from trainc.records import dataclass
from trainc.resolve.provenance import Origin, Trace

_STRATEGY = "x-kubernetes-patch-strategy"
_MERGE_KEY = "x-kubernetes-patch-merge-key"
_DIRECTIVE = "$patch"
_RETAIN_KEYS = "$retainKeys"
_UNKNOWN: SchemaNode = {}
_JOBSET_SPEC = ("spec", "template", "spec")


@dataclass(frozen=True, slots=True)
class PatchedTemplate:
    """A runtime's JobSet template after a TrainJob's runtime patches.

    ``metadata`` holds the JobSet's ``labels`` and ``annotations`` (each only when not
    empty); ``spec`` is the patched JobSetSpec, its replicatedJobs in runtime order.
    """

    metadata: JsonObject
    spec: JsonObject


@dataclass(frozen=True, slots=True)
class PatchOrigins:
    """Where the runtime's ``spec.template`` and each patch's ``trainingRuntimeSpec`` are."""

    template: Origin
    patches: Sequence[Origin]


def apply_runtime_patches(
    runtime_template: JsonObject,
    patches: Sequence[JsonObject],
    schema: KindSchema,
    *,
    trace: Trace | None = None,
    origins: PatchOrigins | None = None,
) -> PatchedTemplate:
    """Apply each ``trainingRuntimeSpec`` of ``patches``, in order, to ``runtime_template``.

    ``runtime_template`` is a runtime's ``spec.template``; ``schema`` a runtime kind's, whose
    ``spec.template.spec`` node governs the merge. A later patch wins. replicatedJobs that a
    patch adds (the TrainJob webhook rejects them) follow the runtime's, in patch order.
    With ``trace`` and ``origins``, the origin of every value of the result is recorded.
    The result shares nothing with the inputs.
    """
    node = schema.node_at(_JOBSET_SPEC)
    if node is None:
        raise CompilerBug(f"{schema.kind} schema has no {'.'.join(_JOBSET_SPEC)}")
    merge = _Merge(schema, trace if origins is not None else None)
    runtime_spec = as_object(runtime_template.get("spec"))
    base = origins.template.at(("spec",)) if origins is not None else None
    spec: JsonObject = copy_json(runtime_spec)
    merge.record(spec, base)
    for index, patch in enumerate(patches):
        fragment = get_path(patch, ("template", "spec"))
        if isinstance(fragment, dict):
            where = origins.patches[index].at(("template", "spec")) if origins else None
            spec = merge.merge_map(spec, fragment, node, base, where)
            base = merge.origin_of(spec, base)
    return PatchedTemplate(
        metadata=_jobset_metadata(runtime_template, patches, merge, origins),
        spec=merge.in_runtime_order(spec, runtime_spec, base),
    )


def _jobset_metadata(
    runtime_template: JsonObject,
    patches: Sequence[JsonObject],
    merge: _Merge,
    origins: PatchOrigins | None,
) -> JsonObject:
    """The runtime template's labels and annotations, each patch's overlaid in order."""
    templates = [runtime_template, *(as_object(patch.get("template")) for patch in patches)]
    where: list[Origin | None] = [None] * len(templates)
    if origins is not None:
        where = [origins.template, *(o.at(("template",)) for o in origins.patches)]
    metadata: JsonObject = {}
    for field in ("labels", "annotations"):
        merged: JsonObject = {}
        for template, origin in zip(templates, where, strict=True):
            for key, value in as_object(get_path(template, ("metadata", field))).items():
                merged[key] = copy_json(value)
                merge.record_member(merged, key, _at(origin, ("metadata", field, key)))
        if merged:
            metadata[field] = merged
    return metadata


def _at(origin: Origin | None, relative: tuple[str | int, ...]) -> Origin | None:
    return origin.at(relative) if origin is not None else None


class _Merge:
    """One strategic merge over a schema, recording origins when it has a trace.

    Originals are the merge's own values (copies made before the first patch), so they
    are reused rather than copied again: a node keeps its identity, and with it its
    recorded origin. Patch values are always copied.
    """

    def __init__(self, schema: KindSchema, trace: Trace | None) -> None:
        self._schema = schema
        self._trace = trace

    def record(self, value: JsonValue, origin: Origin | None) -> None:
        """``value`` came from ``origin`` (nothing without a trace or an origin)."""
        if self._trace is not None and origin is not None:
            self._trace.node(value, origin)

    def record_member(self, parent: JsonValue, key: str | int, origin: Origin | None) -> None:
        """``parent[key]`` came from ``origin``."""
        if self._trace is not None and origin is not None:
            self._trace.member(parent, key, origin)

    def origin_of(self, value: JsonValue, fallback: Origin | None) -> Origin | None:
        """The origin recorded for ``value``, else ``fallback``."""
        found = self._trace.recorded(value) if self._trace is not None else None
        return found or fallback

    def child_origin(
        self, parent: JsonValue, parent_origin: Origin | None, key: str | int
    ) -> Origin | None:
        """The origin of ``parent[key]``: its own record, its member record, or its parent's."""
        if self._trace is None or parent_origin is None:
            return None
        return self._trace.child_origin(parent, parent_origin, key)

    def merge_map(
        self,
        original: JsonObject,
        patch: JsonObject,
        node: SchemaNode,
        origin: Origin | None,
        patch_origin: Origin | None,
    ) -> JsonObject:
        """``patch`` merged into the map ``original`` (which came from ``origin``)."""
        directive = patch.get(_DIRECTIVE)
        if directive in ("replace", "delete"):
            replaced: JsonObject = {}
            if directive == "replace":
                replaced = {k: copy_json(v) for k, v in patch.items() if k != _DIRECTIVE}
            self.record(replaced, patch_origin)
            return replaced
        fields = {key: value for key, value in patch.items() if not key.startswith("$")}
        retain = patch.get(_RETAIN_KEYS)
        merged: JsonObject = {
            key: value
            for key, value in original.items()
            if not isinstance(retain, list) or key in retain
        }
        if self._trace is not None:
            self._trace.same(merged, original)
        self.record(merged, self.origin_of(merged, origin))
        for key, value in fields.items():
            child = self._schema.child(node, key)
            self._field(
                merged, key, value, child, origin=origin, value_origin=_at(patch_origin, (key,))
            )
        return merged

    def _field(
        self,
        merged: JsonObject,
        key: str,
        value: JsonValue,
        node: SchemaNode | None,
        *,
        origin: Origin | None,
        value_origin: Origin | None,
    ) -> None:
        """Set ``merged[key]`` (a map this merge built) to the merge of its value and ``value``."""
        current = merged.get(key)
        if value is None:
            merged.pop(key, None)
        elif node is not None and isinstance(current, dict) and isinstance(value, dict):
            current_origin = self.child_origin(merged, origin, key)
            merged[key] = self.merge_map(current, value, node, current_origin, value_origin)
        elif node is not None and isinstance(current, list) and isinstance(value, list):
            current_origin = self.child_origin(merged, origin, key)
            merged[key] = self.merge_list(current, value, node, current_origin, value_origin)
        elif _is_directive(value):
            merged.pop(key, None)
        else:
            if current is not None and self._trace is not None:
                self._trace.superseded(merged, key, current, self.child_origin(merged, origin, key))
            merged[key] = _fresh(value)
            self.record_member(merged, key, value_origin)
            self.record(merged[key], value_origin)

    def merge_list(
        self,
        original: JsonArray,
        patch: JsonArray,
        node: SchemaNode,
        origin: Origin | None,
        patch_origin: Origin | None,
    ) -> JsonArray:
        """``patch`` merged into the list ``original`` (which came from ``origin``)."""
        strategy = node.get(_STRATEGY)
        if not isinstance(strategy, str) or "merge" not in strategy.split(","):
            return self._copied(patch, patch_origin)
        items = [*original, *patch]
        if not any(isinstance(item, dict | list) for item in items):
            return self._scalars(original, patch, origin, patch_origin)
        key = node.get(_MERGE_KEY)
        if not isinstance(key, str) or not all(isinstance(item, dict) for item in items):
            return self._copied(patch, patch_origin)
        return self._maps(original, patch, node, key, origin=origin, patch_origin=patch_origin)

    def _copied(self, patch: JsonArray, patch_origin: Origin | None) -> JsonArray:
        copied = copy_json(patch)
        self.record(copied, patch_origin)
        return copied

    def _scalars(
        self,
        original: JsonArray,
        patch: JsonArray,
        origin: Origin | None,
        patch_origin: Origin | None,
    ) -> JsonArray:
        """A union of scalars; each one is recorded as the patch's or the original's."""
        merged = _ordered(_unique([*original, *patch]), patch, original, key=None)
        self.record(merged, origin)
        for index, item in enumerate(merged):
            in_patch = _index_of(patch, item, None)
            where = (
                _at(patch_origin, (in_patch,))
                if in_patch >= 0
                else self.child_origin(original, origin, _index_of(original, item, None))
            )
            self.record_member(merged, index, where)
        return merged

    def _maps(
        self,
        original: JsonArray,
        patch: JsonArray,
        node: SchemaNode,
        key: str,
        *,
        origin: Origin | None,
        patch_origin: Origin | None,
    ) -> JsonArray:
        """Maps merged by ``key``; every item records its origin, since indexes move."""
        maps = [as_object(item) for item in patch]
        ordinary = [(index, item) for index, item in enumerate(maps) if _DIRECTIVE not in item]
        if any(item.get(_DIRECTIVE) == "replace" for item in maps):
            base: JsonArray = []
            for index, patch_item in ordinary:
                copied = copy_json(patch_item)
                self.record(copied, _at(patch_origin, (index,)))
                base.append(copied)
            ordinary = []
        else:
            deletes: JsonArray = [item for item in maps if item.get(_DIRECTIVE) == "delete"]
            base = []
            for index, kept in enumerate(original):
                if _index_of(deletes, _key_of(kept, key), key) < 0:
                    self.record(kept, self.child_origin(original, origin, index))
                    base.append(kept)
        merged = list(base)
        self.record(merged, origin)
        item_node = self._schema.child(node, 0) or _UNKNOWN
        for index, item in ordinary:
            where = _at(patch_origin, (index,))
            found = _index_of(merged, _key_of(item, key), key)
            if found < 0:
                added = copy_json(item)
                self.record(added, where)
                merged.append(added)
            else:
                target = as_object(merged[found])
                merged[found] = self.merge_map(
                    target, item, item_node, self.origin_of(target, None), where
                )
        return _ordered(merged, [item for _, item in ordinary], base, key=key)

    def in_runtime_order(
        self, spec: JsonObject, runtime_spec: JsonObject, origin: Origin | None
    ) -> JsonObject:
        """``spec`` with its replicatedJobs stably sorted by their index in the runtime."""
        jobs = spec.get("replicatedJobs")
        if not isinstance(jobs, list):
            return spec
        names = [as_object(job).get("name") for job in as_list(runtime_spec.get("replicatedJobs"))]

        def rank(job: JsonValue) -> int:
            name = as_object(job).get("name")
            return names.index(name) if name in names else len(names)

        jobs_origin = self.child_origin(spec, origin, "replicatedJobs")
        for index, job in enumerate(jobs):
            self.record(job, self.child_origin(jobs, jobs_origin, index))
        ordered = sorted(jobs, key=rank)
        self.record(ordered, jobs_origin)
        result = {**spec, "replicatedJobs": ordered}
        if self._trace is not None:
            self._trace.same(result, spec)
        return result


def _ordered(
    merged: JsonArray, patch: JsonArray, original: JsonArray, *, key: str | None
) -> JsonArray:
    """``merged`` in apimachinery's order (``normalizeElementOrder``, ``mergeSortedSlice``)."""

    def position(item: JsonValue, order: JsonArray) -> int:
        return _index_of(order, _key_of(item, key), key)

    from_patch = sorted(
        (i for i in merged if position(i, patch) >= 0), key=lambda i: position(i, patch)
    )
    original_only = sorted(
        (i for i in merged if position(i, patch) < 0), key=lambda i: position(i, original)
    )
    ordered: JsonArray = []
    while original_only and from_patch:
        left, right = position(original_only[0], original), position(from_patch[0], original)
        ordered.append((original_only if 0 <= left < right else from_patch).pop(0))
    return ordered + original_only + from_patch


def _fresh(value: JsonValue) -> JsonValue:
    """A copy of a patch value with nothing to merge into: no nulls in maps, no ``$patch`` maps."""
    if isinstance(value, dict):
        return {
            key: _fresh(item)
            for key, item in value.items()
            if item is not None and not _is_directive(item)
        }
    if isinstance(value, list):
        return [_fresh(item) for item in value if not _is_directive(item)]
    return value


def _is_directive(value: JsonValue) -> bool:
    return isinstance(value, dict) and _DIRECTIVE in value


class _Missing:
    """The identity of a map item without the merge key: it matches nothing."""


_MISSING = _Missing()


def _key_of(item: JsonValue, key: str | None) -> JsonValue | _Missing:
    """What identifies ``item`` in its list: its merge-key value, or a scalar itself."""
    if key is None:
        return item
    return item[key] if isinstance(item, dict) and key in item else _MISSING


def _index_of(items: Sequence[JsonValue], wanted: JsonValue | _Missing, key: str | None) -> int:
    """Index of the first item identified by ``wanted``, or -1.

    Identities compare as Go's ``==`` on decoded JSON: numbers by value, and a bool never
    equals a number.
    """
    for index, item in enumerate(items):
        found = _key_of(item, key)
        if (
            found is not _MISSING
            and wanted is not _MISSING
            and isinstance(found, bool) == isinstance(wanted, bool)
            and found == wanted
        ):
            return index
    return -1


def _unique(values: JsonArray) -> JsonArray:
    """``values`` without repeats, first occurrences kept."""
    unique: JsonArray = []
    for value in values:
        if _index_of(unique, value, None) < 0:
            unique.append(value)
    return unique
