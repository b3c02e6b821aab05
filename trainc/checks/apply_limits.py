"""What the apply path refuses in the objects a TrainJob compiles to: their sizes.

trainc's output reaches the cluster through ``kubectl apply``, Argo CD or Flux, and the
API server and etcd bound what one object may weigh:

- **annotations**: keys and values together at most 262,144 bytes (apimachinery's
  ``TotalAnnotationSizeLimitB``). Client-side apply (``kubectl apply``; Argo CD's default)
  stores a copy of the whole object it applied in the
  ``kubectl.kubernetes.io/last-applied-configuration`` annotation, so every field of the
  object counts against that limit: an inline training script (the Kubeflow SDK puts a
  whole Python function into the command) can cross it alone. The copy is Go's JSON of
  the object as applied, less that annotation: keys sorted, no spaces, ``<``, ``>``, ``&``
  and U+2028/U+2029 escaped, a final newline, and an empty ``annotations`` map when the
  object has none (kubectl's ``GetModifiedConfiguration`` over
  ``unstructured.UnstructuredJSONScheme``:
  https://github.com/kubernetes/kubectl/blob/master/pkg/util/apply.go). Server-side apply
  (``ServerSideApply=true`` in Argo CD; Flux always) keeps no copy.
- **the object**: etcd refuses a request over 1.5 MiB by default (``--max-request-bytes``,
  https://etcd.io/docs/v3.5/dev-guide/limit/), and the API server stores a custom
  resource as its JSON.
- **a ConfigMap's data**: ``data`` and ``binaryData`` together at most 1 MiB
  (``ValidateConfigMap``,
  https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/validation/validation.go).

Within 10% of a limit is a warning: the GitOps engine adds its own tracking label or
annotation to what it applies, and the copy holds it too. Names and label values have
limits of their own, checked where they are made (generated-name budgets, claim names,
ObjectMeta rules). A finding is placed on the input line behind the object's largest
value (for the JobSet, its provenance), or else on the TrainJob's name.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Final

from trainc.checks.shared.locate import locate
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_object, format_path
from trainc.model.labels import JOBSET_KIND
from trainc.resolve.provenance import Origin, Written
from trainc.resolve.resolved import ResolvedJob
from trainc.schema.metadata import (
    ANNOTATIONS_MAX_BYTES,
    META_ANNOTATIONS_TOO_LARGE,
    annotations_size,
    utf8_size,
)

APPLY_LAST_APPLIED_TOO_LARGE = Rule(
    "apply.last-applied-too-large",
    Severity.ERROR,
    "with client-side apply, the last-applied-configuration copy breaks the annotation limit",
    compiled=True,
)

APPLY_LAST_APPLIED_NEAR_LIMIT = Rule(
    "apply.last-applied-near-limit",
    Severity.WARNING,
    "with client-side apply, the last-applied-configuration copy nears the annotation limit",
    compiled=True,
)

APPLY_ANNOTATIONS_NEAR_LIMIT = Rule(
    "apply.annotations-near-limit",
    Severity.WARNING,
    "an emitted object's annotations near 256 KiB",
    compiled=True,
)

APPLY_OBJECT_TOO_LARGE = Rule(
    "apply.object-too-large",
    Severity.ERROR,
    "an emitted object exceeds etcd's 1.5 MiB request limit",
    compiled=True,
)

APPLY_OBJECT_NEAR_LIMIT = Rule(
    "apply.object-near-limit",
    Severity.WARNING,
    "an emitted object nears etcd's 1.5 MiB request limit",
    compiled=True,
)

APPLY_CONFIG_MAP_TOO_LARGE = Rule(
    "apply.config-map-too-large",
    Severity.ERROR,
    "an emitted ConfigMap's data exceeds 1 MiB",
    compiled=True,
)


LAST_APPLIED: Final = "kubectl.kubernetes.io/last-applied-configuration"
#: etcd's default ``--max-request-bytes``.
OBJECT_MAX_BYTES: Final = 1536 * 1024
#: ``core.MaxSecretSize``, which bounds a ConfigMap's data too.
CONFIG_MAP_MAX_BYTES: Final = 1024 * 1024
#: Share of a limit from which a size is reported as close to it.
NEAR: Final = 0.9
_SERVER_SIDE_HINT: Final = (
    "apply server-side, which keeps no such copy (Argo CD: sync option "
    "ServerSideApply=true; Flux always does; kubectl apply --server-side) and set "
    "compile.apply: ServerSide in trainc.yaml; or ship the large value in the image"
)
#: Characters Go's JSON encoder escapes that Python's leaves as they are.
_GO_ESCAPES: Final = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def check_apply_limits(
    job: ResolvedJob, objects: Sequence[JsonObject], *, server_side: bool
) -> list[Diagnostic]:
    """The size limits the apply of each of ``job``'s objects would break or come near."""
    found: list[Diagnostic] = []
    for obj in objects:
        applied = utf8_size(last_applied(obj))
        found += _annotation_limit(job, obj, applied, server_side=server_side)
        found += _object_limit(job, obj, applied)
        if obj.get("kind") == "ConfigMap" and obj.get("apiVersion") == "v1":
            found += _config_map_limit(job, obj)
    return found


def last_applied(obj: JsonObject) -> str:
    """The ``last-applied-configuration`` value ``kubectl apply`` stores for ``obj``.

    Exact but for floating-point numbers, which Go may write a few characters shorter.
    """
    metadata = dict(as_object(obj.get("metadata")))
    annotations = dict(as_object(metadata.get("annotations")))
    annotations.pop(LAST_APPLIED, None)
    metadata["annotations"] = annotations
    applied = {**obj, "metadata": metadata}
    text = json.dumps(applied, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.translate(_GO_ESCAPES) + "\n"


def _annotation_limit(
    job: ResolvedJob, obj: JsonObject, applied: int, *, server_side: bool
) -> list[Diagnostic]:
    """``applied`` is the size of the object's :func:`last_applied` copy."""
    own = dict(as_object(as_object(obj.get("metadata")).get("annotations")))
    own.pop(LAST_APPLIED, None)
    total = annotations_size(own)
    copy = 0 if server_side else utf8_size(LAST_APPLIED) + applied
    if total + copy <= NEAR * ANNOTATIONS_MAX_BYTES:
        return []
    over = total + copy > ANNOTATIONS_MAX_BYTES
    if server_side or total > ANNOTATIONS_MAX_BYTES:
        code = META_ANNOTATIONS_TOO_LARGE.code if over else APPLY_ANNOTATIONS_NEAR_LIMIT.code
        what = f"its annotations total {total:,} bytes"
        hint = "move large data out of annotations"
    else:
        code = APPLY_LAST_APPLIED_TOO_LARGE.code if over else APPLY_LAST_APPLIED_NEAR_LIMIT.code
        what = (
            f"with client-side apply its annotations would total {total + copy:,} bytes, "
            f"{copy:,} of them the {LAST_APPLIED} copy of the whole object"
        )
        hint = _SERVER_SIDE_HINT
    limit = f"the API server accepts at most {ANNOTATIONS_MAX_BYTES:,}"
    verdict = f"metadata.annotations: Too long: {limit}" if over else f"close to the {limit}"
    return [_finding(job, obj, code, f"{what}; {verdict}", hint)]


def _object_limit(job: ResolvedJob, obj: JsonObject, size: int) -> list[Diagnostic]:
    """``size`` is that of the object's JSON; a client-side copy would already have
    broken the annotation limit long before this one."""
    if size <= NEAR * OBJECT_MAX_BYTES:
        return []
    over = size > OBJECT_MAX_BYTES
    limit = f"etcd accepts requests of at most {OBJECT_MAX_BYTES:,} bytes by default"
    return [
        _finding(
            job,
            obj,
            APPLY_OBJECT_TOO_LARGE.code if over else APPLY_OBJECT_NEAR_LIMIT.code,
            f"the object is {size:,} bytes of JSON; {limit}",
            "ship large values in the image or in a volume rather than in the object",
        )
    ]


def _config_map_limit(job: ResolvedJob, obj: JsonObject) -> list[Diagnostic]:
    data = [*as_object(obj.get("data")).values(), *as_object(obj.get("binaryData")).values()]
    total = sum(utf8_size(value) for value in data if isinstance(value, str))
    if total <= CONFIG_MAP_MAX_BYTES:
        return []
    return [
        _finding(
            job,
            obj,
            APPLY_CONFIG_MAP_TOO_LARGE.code,
            f"its data totals {total:,} bytes: Too long: the API server accepts at most "
            f"{CONFIG_MAP_MAX_BYTES:,}",
            "split the job, or ship the data in a volume",
        )
    ]


def _finding(job: ResolvedJob, obj: JsonObject, code: str, problem: str, hint: str) -> Diagnostic:
    """A finding about ``obj`` on the input line behind its largest value."""
    metadata = as_object(obj.get("metadata"))
    name = f"{obj.get('kind')} {metadata.get('namespace')}/{metadata.get('name')}"
    largest = max(_strings(obj, ()), key=lambda item: item[1], default=None)
    notes = [hint]
    origin: Origin = Written(job.trainjob, ("metadata", "name"))
    if largest is not None:
        path, size = largest
        notes.append(f"its largest value is {format_path(path)} ({size:,} bytes)")
        if obj.get("kind") == JOBSET_KIND:
            origin = _jobset_origin(job, path)
    return locate(origin, code, f"the {name} trainc compiles: {problem}", hint="; ".join(notes))


def _jobset_origin(job: ResolvedJob, path: FieldPath) -> Origin:
    """Where the value at ``path`` of the JobSet came from."""
    if path[:1] == ("spec",):
        return job.origin(path[1:])
    found = job.trace.origin(job.jobset_metadata, path[1:]) if path[:1] == ("metadata",) else None
    return found if found is not None else Written(job.trainjob, ("metadata", "name"))


def _strings(value: JsonValue, path: FieldPath) -> Iterator[tuple[FieldPath, int]]:
    """Every string leaf below ``value`` with its size in bytes."""
    if isinstance(value, str):
        yield path, utf8_size(value)
    elif isinstance(value, dict):
        for key, child in value.items():
            yield from _strings(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _strings(child, (*path, index))
