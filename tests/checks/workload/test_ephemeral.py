import pytest

from trainc.checks.workload.ephemeral import ephemeral_errors
from trainc.checks.workload.version import KubeVersion
from trainc.model.json import JsonObject

P = ("v",)
V33, V34 = (1, 33), (1, 34)
SPEC: JsonObject = {
    "accessModes": ["ReadWriteOnce"],
    "resources": {"requests": {"storage": "200Gi"}},
}
SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com')"
)


def messages(source: JsonObject, version: KubeVersion = V33) -> list[str]:
    errors = ephemeral_errors(source, P, version)
    assert {error.code for error in errors} <= {"pod.ephemeral-volume"}
    return [error.message() for error in errors]


def claim(spec: JsonObject | None = None, metadata: JsonObject | None = None) -> JsonObject:
    template: JsonObject = {"spec": {**SPEC, **(spec or {})}}
    if metadata is not None:
        template["metadata"] = metadata
    return {"volumeClaimTemplate": template}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (claim(metadata={"labels": {"app": "train"}, "creationTimestamp": None}), []),
        (
            claim(
                {
                    "storageClassName": "fast-ssd",
                    "volumeMode": "Filesystem",
                    "dataSource": {"kind": "PersistentVolumeClaim", "name": "seed"},
                }
            ),
            [],
        ),
        (
            claim(
                {
                    "dataSourceRef": {
                        "apiGroup": "snapshot.storage.k8s.io",
                        "kind": "VolumeSnapshot",
                        "name": "s",
                    }
                }
            ),
            [],
        ),
        ({}, ["v.volumeClaimTemplate: Required value"]),
        (
            claim(metadata={"name": "scratch", "uid": "1", "finalizers": []}),
            [
                "v.volumeClaimTemplate.metadata.name: Forbidden: cannot be set",
                "v.volumeClaimTemplate.metadata.uID: Forbidden: cannot be set",
                "v.volumeClaimTemplate.metadata.finalizers: Forbidden: cannot be set",
            ],
        ),
        (
            claim({"accessModes": []}),
            [
                "v.volumeClaimTemplate.spec.accessModes: Required value: at "
                "least 1 access mode is required"
            ],
        ),
        (
            claim({"accessModes": ["ReadWriteOncePod", "ReadWriteOnce", "RWO"]}),
            [
                "v.volumeClaimTemplate.spec.accessModes: Unsupported value: "
                '"RWO": supported values: "ReadOnlyMany", "ReadWriteMany", '
                '"ReadWriteOnce", "ReadWriteOncePod"',
                "v.volumeClaimTemplate.spec.accessModes: Forbidden: may not "
                "use ReadWriteOncePod with other access modes",
            ],
        ),
        (
            claim({"resources": {"limits": {"storage": "1Gi"}}}),
            ["v.volumeClaimTemplate.spec.resources[storage]: Required value"],
        ),
        (
            claim({"resources": {"requests": {"storage": "0"}}}),
            [
                "v.volumeClaimTemplate.spec.resources[storage]: Invalid "
                'value: "0": must be greater than zero',
            ],
        ),
        (
            claim({"storageClassName": "Fast_SSD", "volumeMode": "Raw"}),
            [
                "v.volumeClaimTemplate.spec.storageClassName: Invalid value: "
                f'"Fast_SSD": {SUBDOMAIN_MSG}',
                "v.volumeClaimTemplate.spec.volumeMode: Unsupported value: "
                '"Raw": supported values: "Block", "Filesystem"',
            ],
        ),
        (
            claim(
                {
                    "dataSource": {"kind": "VolumeSnapshot"},
                    "dataSourceRef": {"apiGroup": "Snap", "kind": ""},
                }
            ),
            [
                "v.volumeClaimTemplate.spec.dataSource.name: Required value",
                "v.volumeClaimTemplate.spec.dataSource: Invalid value: "
                "\"VolumeSnapshot\": must be 'PersistentVolumeClaim' when "
                "referencing the default apiGroup",
                "v.volumeClaimTemplate.spec.dataSourceRef.name: Required value",
                "v.volumeClaimTemplate.spec.dataSourceRef.kind: Required value",
                "v.volumeClaimTemplate.spec.dataSourceRef.apiGroup: Invalid "
                f'value: "Snap": {SUBDOMAIN_MSG}',
            ],
        ),
    ],
)
def test_claim_template(source, expected):
    assert messages(source) == expected


def test_volume_attributes_class_is_checked_from_1_34():
    source = claim({"volumeAttributesClassName": "Gold"})
    assert messages(source, V33) == []
    assert messages(source, V34) == [
        "v.volumeClaimTemplate.spec.volumeAttributesClassName: "
        f'Invalid value: "Gold": {SUBDOMAIN_MSG}',
    ]
    assert messages(claim({"volumeAttributesClassName": "gold"}), V34) == []
