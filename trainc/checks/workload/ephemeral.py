"""Checks of a generic ephemeral volume: the claim the pod's own PVC is made from.

An ``ephemeral`` volume carries a ``volumeClaimTemplate``; for each pod the ephemeral
volume controller creates a PersistentVolumeClaim from it, so the API server validates
the template as a claim when the pod (or its Job) is created. Reproduces
``validateEphemeralVolumeSource``, ``ValidatePersistentVolumeClaimTemplate``
(``ValidateTemplateObjectMeta``'s field allow-list) and ``ValidatePersistentVolumeClaimSpec``
with ``validateDataSource``/``validateDataSourceRef`` of ``pkg/apis/core/validation``.

Not reproduced: the template's labels and annotations (the metadata checks of
:mod:`trainc.schema.metadata` cover every nested ``metadata``), ``spec.selector``
(label selector rules), the PVC name check (it needs the Pod's generated name), the
``dataSource``/``dataSourceRef`` agreement (its message prints an internal Go value),
and ``dataSourceRef.namespace`` (its gate, CrossNamespaceVolumeDataSource, is alpha: the
field is dropped).
"""

from __future__ import annotations

from trainc.checks.workload.fielderrors import (
    FieldError,
    Key,
    forbidden,
    invalid,
    not_supported,
    required,
)
from trainc.checks.workload.jsonfields import text
from trainc.checks.workload.quantities import defaulted_amount
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list, as_object
from trainc.schema.metadata import dns1123_subdomain_errors

POD_EPHEMERAL_VOLUME = Rule(
    "pod.ephemeral-volume",
    Severity.ERROR,
    "an ephemeral volume's claim template is invalid",
    doc=RuleDoc(
        what="an ephemeral volume's claim template: access modes, the storage request, class names",
        source="`validateEphemeralVolumeSource`, `ValidatePersistentVolumeClaimSpec`",
        versions="`volumeAttributesClassName` from 1.34",
    ),
)


#: The claim template of an ``ephemeral`` volume.
EPHEMERAL_CODE = POD_EPHEMERAL_VOLUME.code

#: ``volumeAttributesClassName`` is validated only with the gate on.
VOLUME_ATTRIBUTES_CLASS = Gate("VolumeAttributesClass", (1, 34))

_ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
_VOLUME_MODES = ("Block", "Filesystem")
#: ObjectMeta fields a template may not set, in struct order, with the name upstream
#: reports (the Go field name, first letter lowered: ``uid`` is reported as ``uID``).
_FORBIDDEN_META = (
    ("name", "name"),
    ("generateName", "generateName"),
    ("namespace", "namespace"),
    ("selfLink", "selfLink"),
    ("uid", "uID"),
    ("resourceVersion", "resourceVersion"),
    ("generation", "generation"),
    ("creationTimestamp", "creationTimestamp"),
    ("deletionTimestamp", "deletionTimestamp"),
    ("deletionGracePeriodSeconds", "deletionGracePeriodSeconds"),
    ("ownerReferences", "ownerReferences"),
    ("finalizers", "finalizers"),
    ("managedFields", "managedFields"),
)


def ephemeral_errors(source: JsonObject, path: FieldPath, version: KubeVersion) -> list[FieldError]:
    """A claim template is required; its metadata and claim spec must be valid."""
    template = source.get("volumeClaimTemplate")
    at: FieldPath = (*path, "volumeClaimTemplate")
    if not isinstance(template, dict):
        return [required(at, EPHEMERAL_CODE)]
    errors = _metadata_errors(as_object(template.get("metadata")), (*at, "metadata"))
    return errors + _claim_spec_errors(as_object(template.get("spec")), (*at, "spec"), version)


def _metadata_errors(metadata: JsonObject, path: FieldPath) -> list[FieldError]:
    """Only labels and annotations carry over to the claim; anything else is refused."""
    return [
        forbidden((*path, reported), EPHEMERAL_CODE, "cannot be set")
        for key, reported in _FORBIDDEN_META
        if metadata.get(key) not in (None, "", 0)
    ]


def _claim_spec_errors(spec: JsonObject, path: FieldPath, version: KubeVersion) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimSpec`` (without the selector)."""
    errors = _access_mode_errors(as_list(spec.get("accessModes")), (*path, "accessModes"))
    errors += _storage_errors(spec, path)
    errors += _class_name_errors(spec, "storageClassName", path)
    errors += _volume_mode_errors(spec, path)
    for key in ("dataSource", "dataSourceRef"):
        reference = spec.get(key)
        if isinstance(reference, dict):
            errors += _data_source_errors(reference, (*path, key))
    if VOLUME_ATTRIBUTES_CLASS.enabled(version):
        errors += _class_name_errors(spec, "volumeAttributesClassName", path)
    return errors


def _class_name_errors(spec: JsonObject, key: str, path: FieldPath) -> list[FieldError]:
    """A class name, when given, is an object name (a DNS subdomain)."""
    name = text(spec.get(key)) or ""
    return [
        invalid((*path, key), EPHEMERAL_CODE, name, msg)
        for msg in (dns1123_subdomain_errors(name) if name else [])
    ]


def _access_mode_errors(modes: list[JsonValue], path: FieldPath) -> list[FieldError]:
    if not modes:
        return [required(path, EPHEMERAL_CODE, "at least 1 access mode is required")]
    errors = [
        not_supported(path, EPHEMERAL_CODE, mode, _ACCESS_MODES)
        for mode in modes
        if isinstance(mode, str) and mode not in _ACCESS_MODES
    ]
    known = {mode for mode in modes if isinstance(mode, str) and mode in _ACCESS_MODES}
    if "ReadWriteOncePod" in known and len(known) > 1:
        detail = "may not use ReadWriteOncePod with other access modes"
        errors.append(forbidden(path, EPHEMERAL_CODE, detail))
    return errors


def _storage_errors(spec: JsonObject, path: FieldPath) -> list[FieldError]:
    """A positive storage request, reported at ``resources[storage]`` as upstream does."""
    requests = as_object(as_object(spec.get("resources")).get("requests"))
    at: FieldPath = (*path, "resources", Key("storage"))
    if "storage" not in requests:
        return [required(at, EPHEMERAL_CODE)]
    amount = defaulted_amount(requests["storage"])
    if amount is None or amount.value > 0:
        return []
    return [invalid(at, EPHEMERAL_CODE, str(amount), "must be greater than zero")]


def _volume_mode_errors(spec: JsonObject, path: FieldPath) -> list[FieldError]:
    mode = spec.get("volumeMode")
    if not isinstance(mode, str) or not mode or mode in _VOLUME_MODES:
        return []
    return [not_supported((*path, "volumeMode"), EPHEMERAL_CODE, mode, _VOLUME_MODES)]


def _data_source_errors(reference: JsonObject, path: FieldPath) -> list[FieldError]:
    """A named, typed source; a kind other than a PVC needs its API group."""
    name, kind, group = (text(reference.get(field)) or "" for field in ("name", "kind", "apiGroup"))
    errors = []
    if not name:
        errors.append(required((*path, "name"), EPHEMERAL_CODE))
    if not kind:
        errors.append(required((*path, "kind"), EPHEMERAL_CODE))
    if not group and kind != "PersistentVolumeClaim":
        detail = "must be 'PersistentVolumeClaim' when referencing the default apiGroup"
        errors.append(invalid(path, EPHEMERAL_CODE, kind, detail))
    if group:
        errors += [
            invalid((*path, "apiGroup"), EPHEMERAL_CODE, group, msg)
            for msg in dns1123_subdomain_errors(group)
        ]
    return errors
