"""ObjectMeta rules the API server enforces on every object, before CEL rules and webhooks.

The name predicates reproduce apimachinery's ``pkg/util/validation`` (``IsDNS1123Label``,
``IsDNS1123Subdomain``, ``IsDNS1035Label``, ``IsQualifiedName``, ``IsValidLabelValue``,
``IsDomainPrefixedPath``); each returns apimachinery's error strings, so a finding reads
like the API server's, except that a format is described in words
(:mod:`trainc.model.patterns`), never by the regular expression upstream appends. The
cross-object checks reuse them for the JobSet webhook's name rules (``docs/upstream.md``,
"JobSet"). A TrainJob's own name is left to its CRD's CEL rules (``docs/upstream.md``,
"Types and CRDs"), which are stricter than ObjectMeta's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Final

from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.documents import LoadedObject
from trainc.model.json import (
    FieldPath,
    JsonObject,
    JsonValue,
    PathChain,
    as_object,
    chain_path,
    get_path,
)
from trainc.model.kinds import TRAINJOB
from trainc.model.patterns import (
    DNS1035_LABEL,
    DNS1123_LABEL,
    DNS1123_SUBDOMAIN,
    HTTP_PATH,
    LABEL_VALUE,
    QUALIFIED_NAME,
)
from trainc.schema.remembered_checks import remembered

META_NAME_FORMAT = Rule(
    "meta.name-format",
    Severity.ERROR,
    "metadata.name is not a valid object name",
)

META_NAMESPACE_FORMAT = Rule(
    "meta.namespace-format",
    Severity.ERROR,
    "metadata.namespace is not a valid namespace name",
)

META_LABEL_KEY = Rule(
    "meta.label-key",
    Severity.ERROR,
    "a label or annotation key is not a qualified name",
)

META_LABEL_VALUE = Rule(
    "meta.label-value",
    Severity.ERROR,
    "a label value is not valid",
)

META_ANNOTATIONS_TOO_LARGE = Rule(
    "meta.annotations-too-large",
    Severity.ERROR,
    "annotations exceed the API server's total size limit",
)

META_NAMESPACE_IGNORED = Rule(
    "meta.namespace-ignored",
    Severity.WARNING,
    "a cluster-scoped object sets metadata.namespace",
)


#: Limits of ObjectMeta (apimachinery ``validation.go``); the annotation total is in bytes.
LABEL_MAX = 63
SUBDOMAIN_MAX = 253
ANNOTATIONS_MAX_BYTES = 256 * 1024


def max_len_error(length: int) -> str:
    """apimachinery's ``MaxLenError``, shared by every predicate with a length limit."""
    return f"must be no more than {length} characters"


@remembered
def dns1123_subdomain_errors(value: str) -> list[str]:
    """Why ``value`` is not a DNS-1123 subdomain (object names, PVC names); empty if it is."""
    errors = [max_len_error(SUBDOMAIN_MAX)] if len(value) > SUBDOMAIN_MAX else []
    if not DNS1123_SUBDOMAIN.matches(value):
        errors.append(DNS1123_SUBDOMAIN.explained)
    return errors


@remembered
def dns1123_label_errors(value: str) -> list[str]:
    """Why ``value`` is not a DNS-1123 label (namespace names); empty if it is."""
    errors = [max_len_error(LABEL_MAX)] if len(value) > LABEL_MAX else []
    if DNS1123_LABEL.matches(value):
        return errors
    if DNS1123_SUBDOMAIN.matches(value):
        # A valid subdomain that is no valid label can only be failing on its dots.
        errors.append("must not contain dots")
    else:
        errors.append(DNS1123_LABEL.explained)
    return errors


@remembered
def dns1035_label_errors(value: str) -> list[str]:
    """Why ``value`` is not a DNS-1035 label (Service and Job names); empty if it is."""
    errors = [max_len_error(LABEL_MAX)] if len(value) > LABEL_MAX else []
    if not DNS1035_LABEL.matches(value):
        errors.append(DNS1035_LABEL.explained)
    return errors


@remembered
def qualified_name_errors(value: str) -> list[str]:
    """Why ``value`` is not a label or annotation key: ``[prefix/]name``; empty if it is."""
    parts = value.split("/")
    if len(parts) > 2:  # noqa: PLR2004 - at most one prefix separator
        return [
            f"a qualified name {QUALIFIED_NAME.explained} with an optional DNS subdomain "
            "prefix and '/' (e.g. 'example.com/MyName')"
        ]
    errors: list[str] = []
    if len(parts) == 2:  # noqa: PLR2004 - prefix and name
        prefix = parts[0]
        prefix_errors = dns1123_subdomain_errors(prefix) if prefix else ["must be non-empty"]
        errors.extend(f"prefix part {error}" for error in prefix_errors)
    name = parts[-1]
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > LABEL_MAX:
        errors.append(f"name part {max_len_error(LABEL_MAX)}")
    if not QUALIFIED_NAME.matches(name):
        errors.append(f"name part {QUALIFIED_NAME.explained}")
    return errors


@remembered
def label_value_errors(value: str) -> list[str]:
    """Why ``value`` is not a label value (may be empty); empty if it is one."""
    errors = [max_len_error(LABEL_MAX)] if len(value) > LABEL_MAX else []
    if not LABEL_VALUE.matches(value):
        errors.append(LABEL_VALUE.explained)
    return errors


def domain_prefixed_path_errors(value: str) -> list[str]:
    """Why ``value`` is not ``<dns-subdomain>/<http-path>`` (runtimePatches managers)."""
    if not value:
        return ["Required value"]
    host, _, path = value.partition("/")
    if not host or not path:
        return ['must be a domain-prefixed path (such as "acme.io/foo")']
    errors = dns1123_subdomain_errors(host)
    if not HTTP_PATH.matches(path):
        errors.append(HTTP_PATH.explained)
    return errors


#: Where an object's templates are, when not under ``spec``.
_TEMPLATES_OF: Final[Mapping[str, FieldPath]] = {TRAINJOB.kind: ("spec", "runtimePatches")}


def check_metadata(obj: LoadedObject, *, namespaced: bool) -> list[Diagnostic]:
    """ObjectMeta findings for ``obj`` as loaded: name, namespace, labels, annotations.

    ``namespaced`` is the scope of the object's kind; a cluster-scoped object that sets a
    namespace gets a warning, since the API server drops the field.
    """
    metadata = as_object(obj.data.get("metadata"))
    found = [*_check_name(obj), *_check_namespace(obj, metadata, namespaced=namespaced)]
    for at, holder in ((("metadata",), metadata), *_embedded_label_maps(obj)):
        found += _check_labels(obj, as_object(holder.get("labels")), at)
        found += _check_annotations(obj, as_object(holder.get("annotations")), at)
    return found


def _embedded_label_maps(obj: LoadedObject) -> Iterator[tuple[FieldPath, JsonObject]]:
    """Where labels and annotations sit below the root's own metadata, and what holds them.

    Every nested ``metadata`` mapping is an ObjectMeta: the JobSet, Job and pod templates
    of a runtime or of a runtime patch. The API server checks their labels and annotations
    when the objects built from them are created, so they are checked here, where they
    are written. Only the subtree that can hold templates is walked (a TrainJob's own
    spec holds none outside its patches): this runs for every object, over most of its
    nodes, so a path is made only for a ``metadata`` found.
    """
    start = _TEMPLATES_OF.get(obj.kind, ("spec",))
    stack: list[tuple[PathChain, JsonValue]] = [(None, get_path(obj.data, start))]
    while stack:
        chain, value = stack.pop()
        if isinstance(value, dict):
            for key, child in value.items():
                if key == "metadata" and isinstance(child, dict):
                    # An ObjectMeta holds no further templates.
                    yield (*start, *chain_path((chain, key))), child
                elif isinstance(child, dict | list):
                    stack.append(((chain, key), child))
        elif isinstance(value, list):
            stack.extend(
                ((chain, index), item)
                for index, item in enumerate(value)
                if isinstance(item, dict | list)
            )


def _check_name(obj: LoadedObject) -> list[Diagnostic]:
    if obj.kind == TRAINJOB.kind or not obj.name:
        return []
    errors = dns1123_subdomain_errors(obj.name)
    if not errors:
        return []
    return [
        obj.finding(
            ("metadata", "name"),
            META_NAME_FORMAT.code,
            f"{'; '.join(errors)} ({obj.kind} name {obj.name!r})",
            hint=_name_hint(obj.name, SUBDOMAIN_MAX, dots=True),
        )
    ]


def _check_namespace(
    obj: LoadedObject, metadata: JsonObject, *, namespaced: bool
) -> list[Diagnostic]:
    namespace = metadata.get("namespace")
    if not isinstance(namespace, str) or not namespace:
        return []
    path: FieldPath = ("metadata", "namespace")
    if not namespaced:
        return [
            obj.finding(
                path,
                META_NAMESPACE_IGNORED.code,
                f"{obj.kind} is cluster-scoped; the API server ignores metadata.namespace "
                f"{namespace!r}",
                hint="delete metadata.namespace",
            )
        ]
    errors = dns1123_label_errors(namespace)
    if not errors:
        return []
    return [
        obj.finding(
            path,
            META_NAMESPACE_FORMAT.code,
            f"{'; '.join(errors)} (namespace {namespace!r})",
            hint=_name_hint(namespace, LABEL_MAX, dots=False),
        )
    ]


def _check_labels(obj: LoadedObject, labels: JsonObject, at: FieldPath) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for key, value in labels.items():
        path: FieldPath = (*at, "labels", key)
        if key_errors := qualified_name_errors(key):
            found.append(_key_finding(obj, path, "label", key, key_errors))
        if isinstance(value, str) and (value_errors := label_value_errors(value)):
            found.append(
                obj.finding(
                    path,
                    META_LABEL_VALUE.code,
                    f"{'; '.join(value_errors)} (value of label {key!r})",
                    hint="use at most 63 letters, digits, '-', '_' or '.', starting and ending "
                    "with a letter or digit; free text belongs in an annotation",
                )
            )
    return found


def utf8_size(text: str) -> int:
    """Bytes of ``text`` in UTF-8, never failing: a lone surrogate (which no UTF-8 text
    holds) counts three, as the U+FFFD the API server's decoder makes of it."""
    return len(text.encode("utf-8", "surrogatepass"))


def annotations_size(annotations: JsonObject) -> int:
    """What the API server counts against :data:`ANNOTATIONS_MAX_BYTES`: the bytes of
    every key and value."""
    return sum(
        utf8_size(key) + (utf8_size(value) if isinstance(value, str) else 0)
        for key, value in annotations.items()
    )


def _check_annotations(
    obj: LoadedObject, annotations: JsonObject, at: FieldPath
) -> list[Diagnostic]:
    # apimachinery lower-cases annotation keys before checking them.
    found = [
        _key_finding(obj, (*at, "annotations", key), "annotation", key, key_errors)
        for key in annotations
        if (key_errors := qualified_name_errors(key.lower()))
    ]
    total = annotations_size(annotations)
    if total > ANNOTATIONS_MAX_BYTES:
        found.append(
            obj.finding(
                (*at, "annotations"),
                META_ANNOTATIONS_TOO_LARGE.code,
                f"annotation keys and values total {total} bytes; the API server accepts at "
                f"most {ANNOTATIONS_MAX_BYTES} bytes (256 KiB)",
                hint="move large data into a ConfigMap and reference it from an annotation",
            )
        )
    return found


def _key_finding(
    obj: LoadedObject, path: FieldPath, what: str, key: str, errors: list[str]
) -> Diagnostic:
    return obj.finding(
        path,
        META_LABEL_KEY.code,
        f"{'; '.join(errors)} ({what} key {key!r})",
        hint="write keys as [prefix/]name: an optional DNS subdomain prefix such as "
        "example.com/, then at most 63 letters, digits, '-', '_' or '.'",
    )


def _name_hint(value: str, limit: int, *, dots: bool) -> str:
    allowed = (
        "lower-case letters, digits, '-' and '.'" if dots else "lower-case letters, digits and '-'"
    )
    invalid = r"[^a-z0-9.-]+" if dots else r"[^a-z0-9-]+"
    suggestion = re.sub(invalid, "-", value.lower()).strip("-.")[:limit].strip("-.")
    if suggestion and suggestion != value:
        return f"use at most {limit} {allowed}, e.g. {suggestion!r}"
    return f"use at most {limit} {allowed}, starting and ending with a letter or digit"
