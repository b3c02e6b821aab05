"""Runtime patches applied to a runtime's JobSet template by Kubernetes strategic merge patch.

Trainer applies each ``runtimePatches[i].trainingRuntimeSpec.template.spec`` to the runtime's
``spec.template.spec`` with apimachinery's strategic merge patch (SMP) over the JobSetSpec Go
type, patch by patch, then restores the runtime's replicatedJob order; JobSet labels and
annotations are overlaid on their own (``upstream-semantics.md`` §2.4, §2.5). The Go patch
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

Where apimachinery returns an error (an item without its merge key, map items without a
merge key, a list mixing maps and scalars), which schema-valid input cannot reach, these
functions stay total: such items never match, and such lists are replaced.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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


def apply_runtime_patches(
    runtime_template: JsonObject, patches: Sequence[JsonObject], schema: KindSchema
) -> PatchedTemplate:
    """Apply each ``trainingRuntimeSpec`` of ``patches``, in order, to ``runtime_template``.

    ``runtime_template`` is a runtime's ``spec.template``; ``schema`` a runtime kind's, whose
    ``spec.template.spec`` node governs the merge. A later patch wins. replicatedJobs that a
    patch adds (the webhook rejects them, §1.7) follow the runtime's, in patch order.
    """
    node = schema.node_at(_JOBSET_SPEC)
    if node is None:
        raise CompilerBug(f"{schema.kind} schema has no {'.'.join(_JOBSET_SPEC)}")
    runtime_spec = as_object(runtime_template.get("spec"))
    spec: JsonObject = copy_json(runtime_spec)
    for patch in patches:
        fragment = get_path(patch, ("template", "spec"))
        if isinstance(fragment, dict):
            spec = _merge_map(spec, fragment, node, schema)
    return PatchedTemplate(
        metadata=_jobset_metadata(runtime_template, patches),
        spec=_in_runtime_order(spec, runtime_spec),
    )


def _jobset_metadata(runtime_template: JsonObject, patches: Sequence[JsonObject]) -> JsonObject:
    """The runtime template's labels and annotations, each patch's overlaid in order (§2.4)."""
    templates = [runtime_template, *(as_object(patch.get("template")) for patch in patches)]
    metadata: JsonObject = {}
    for field in ("labels", "annotations"):
        merged: JsonObject = {}
        for template in templates:
            merged.update(as_object(get_path(template, ("metadata", field))))
        if merged:
            metadata[field] = copy_json(merged)
    return metadata


def _in_runtime_order(spec: JsonObject, runtime_spec: JsonObject) -> JsonObject:
    """``spec`` with its replicatedJobs stably sorted by their index in the runtime (§2.5)."""
    jobs = spec.get("replicatedJobs")
    if not isinstance(jobs, list):
        return spec
    names = [as_object(job).get("name") for job in as_list(runtime_spec.get("replicatedJobs"))]

    def rank(job: JsonValue) -> int:
        name = as_object(job).get("name")
        return names.index(name) if name in names else len(names)

    return {**spec, "replicatedJobs": sorted(jobs, key=rank)}


def strategic_merge(
    original: JsonValue, patch: JsonValue, node: SchemaNode, schema: KindSchema
) -> JsonValue:
    """``patch`` applied to ``original`` by strategic merge patch; returns new values only.

    ``node`` is the resolved schema node of both values: its patch metadata, and that of
    the nodes below it, decide how lists merge. As in apimachinery's ``mergeMap``, a map
    patch applies to a missing original as to an empty map.
    """
    if isinstance(patch, dict):
        return _merge_map(original if isinstance(original, dict) else {}, patch, node, schema)
    if isinstance(original, list) and isinstance(patch, list):
        return _merge_list(original, patch, node, schema)
    return copy_json(patch)


def _merge_map(
    original: JsonObject, patch: JsonObject, node: SchemaNode, schema: KindSchema
) -> JsonObject:
    directive = patch.get(_DIRECTIVE)
    if directive == "replace":
        return {key: copy_json(value) for key, value in patch.items() if key != _DIRECTIVE}
    if directive == "delete":
        return {}
    fields = {key: value for key, value in patch.items() if not key.startswith("$")}
    retain = patch.get(_RETAIN_KEYS)
    merged: JsonObject = {
        key: value if key in fields else copy_json(value)
        for key, value in original.items()
        if not isinstance(retain, list) or key in retain
    }
    for key, value in fields.items():
        _merge_field(merged, key, value, schema.child(node, key), schema)
    return merged


def _merge_field(
    merged: JsonObject, key: str, value: JsonValue, node: SchemaNode | None, schema: KindSchema
) -> None:
    """Set ``merged[key]`` (a map this module built) to the merge of its value and ``value``."""
    current = merged.get(key)
    if value is None:
        merged.pop(key, None)
    elif node is not None and isinstance(current, dict) and isinstance(value, dict):
        merged[key] = _merge_map(current, value, node, schema)
    elif node is not None and isinstance(current, list) and isinstance(value, list):
        merged[key] = _merge_list(current, value, node, schema)
    elif _is_directive(value):
        merged.pop(key, None)
    else:
        merged[key] = _fresh(value)


def _merge_list(
    original: JsonArray, patch: JsonArray, node: SchemaNode, schema: KindSchema
) -> JsonArray:
    strategy = node.get(_STRATEGY)
    if not isinstance(strategy, str) or "merge" not in strategy.split(","):
        return copy_json(patch)
    items = [*original, *patch]
    if not any(isinstance(item, dict | list) for item in items):
        return _ordered(_unique(items), patch, original, key=None)
    key = node.get(_MERGE_KEY)
    if not isinstance(key, str) or not all(isinstance(item, dict) for item in items):
        return copy_json(patch)
    maps = [as_object(item) for item in patch]
    ordinary: JsonArray = [item for item in maps if _DIRECTIVE not in item]
    if any(item.get(_DIRECTIVE) == "replace" for item in maps):
        base, ordinary = ordinary, []
    else:
        deletes: JsonArray = [item for item in maps if item.get(_DIRECTIVE) == "delete"]
        base = [item for item in original if _index_of(deletes, _key_of(item, key), key) < 0]
    merged = copy_json(base)
    item_node = schema.child(node, 0) or _UNKNOWN
    for item in ordinary:
        found = _index_of(merged, _key_of(item, key), key)
        if found < 0:
            merged.append(copy_json(item))
        else:
            merged[found] = _merge_map(as_object(merged[found]), as_object(item), item_node, schema)
    return _ordered(merged, ordinary, base, key=key)


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
