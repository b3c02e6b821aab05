import pytest

from trainc.checks.workload.version import KubeVersion
from trainc.checks.workload.volumes import check_volumes
from trainc.model.json import JsonObject, JsonValue

V33, V34, V35 = (1, 33), (1, 34), (1, 35)
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name' or '123-abc')"
)


def run(volumes: JsonValue, version: KubeVersion = V33) -> tuple[list[tuple[str, str]], list[str]]:
    errors, valid = check_volumes({"volumes": volumes}, ("spec",), version)
    return [(error.code, error.message()) for error in errors], list(valid)


def test_valid_volumes_are_returned_by_name():
    volumes: list[JsonValue] = [
        {"name": "scratch"},  # no source: defaulted to emptyDir
        {"name": "data", "persistentVolumeClaim": {"claimName": "datasets"}},
        {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
        {"name": "cfg", "configMap": {"name": "train-config", "defaultMode": 0o644}},
    ]
    assert run(volumes) == ([], ["scratch", "data", "shm", "cfg"])
    assert run(None) == ([], [])


@pytest.mark.parametrize(
    ("volume", "expected"),
    [
        ({"emptyDir": {}}, [("pod.volume-name", "spec.volumes[0].name: Required value")]),
        (
            {"name": "Model_Cache", "emptyDir": {}},
            [
                (
                    "pod.volume-name",
                    f'spec.volumes[0].name: Invalid value: "Model_Cache": {LABEL_MSG}',
                )
            ],
        ),
        (
            {"name": "data.v1"},
            [
                (
                    "pod.volume-name",
                    'spec.volumes[0].name: Invalid value: "data.v1": must not contain dots',
                )
            ],
        ),
    ],
)
def test_volume_names(volume, expected):
    assert run([volume]) == (expected, [])


def test_duplicate_names_are_checked_against_valid_volumes():
    volumes: list[JsonValue] = [
        {"name": "data", "emptyDir": {}},
        {"name": "data", "secret": {"secretName": "s"}},
        {"name": "bad", "secret": {}},
        {"name": "bad", "secret": {"secretName": "s"}},
    ]
    assert run(volumes) == (
        [
            ("pod.volume-name", 'spec.volumes[1].name: Duplicate value: "data"'),
            ("pod.volume", "spec.volumes[2].secret.secretName: Required value"),
        ],
        ["data", "bad"],
    )


def test_one_source_per_volume_with_upstream_paths():
    volume: JsonObject = {
        "name": "mixed",
        "gcePersistentDisk": {},
        "cephfs": {"monitors": ["m"]},
        "downwardAPI": {},
        "configMap": {"name": "c"},
    }
    assert run([volume]) == (
        [
            ("pod.volume", "spec.volumes[0].persistentDisk.pdName: Required value"),
            (
                "pod.volume-source",
                "spec.volumes[0].cephFS: Forbidden: may not specify more than 1 volume type",
            ),
            (
                "pod.volume-source",
                "spec.volumes[0].downwarAPI: Forbidden: may not specify more than 1 volume type",
            ),
            (
                "pod.volume-source",
                "spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type",
            ),
        ],
        [],
    )


def test_iscsi_name_and_portal_fit_in_64_bytes_with_an_initiator():
    portal = "storage.example.com:3260"
    iscsi: JsonObject = {
        "targetPortal": portal,
        "iqn": "iqn.2001-04.com.example:disk",
        "initiatorName": "iqn.2020-01.io.k8s:node",
    }
    long_name = "checkpoint-" + "x" * 30
    detail = (
        "Total length of <volume name>:<iscsi.targetPortal> must be "
        "under 64 characters if iscsi.initiatorName is specified."
    )
    assert run([{"name": long_name, "iscsi": iscsi}]) == (
        [("pod.volume", f'spec.volumes[0].name: Invalid value: "{long_name}": {detail}')],
        [],
    )
    assert run([{"name": "ckpt", "iscsi": iscsi}]) == ([], ["ckpt"])


def test_image_volumes_follow_their_gate():
    volumes: list[JsonValue] = [
        {"name": "model", "image": {"reference": "", "pullPolicy": "Sometimes"}},
        {"name": "model"},
    ]
    # Before 1.35 the API server drops image volumes (and their mounts) silently.
    assert run(volumes, V34) == ([], ["model"])
    assert run(volumes, V35) == (
        [
            ("pod.volume", "spec.volumes[0].image.reference: Required value"),
            (
                "pod.volume",
                "spec.volumes[0].image.pullPolicy: Unsupported value: "
                '"Sometimes": supported values: "Always", "IfNotPresent", '
                '"Never"',
            ),
        ],
        ["model"],
    )
    assert run([{"name": "model", "image": {"reference": "ghcr.io/org/llama:8b"}}], V35) == (
        [],
        ["model"],
    )


def test_ephemeral_claims_follow_the_volume_attributes_class_gate():
    template: JsonObject = {
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "100Gi"}},
            "volumeAttributesClassName": "Fast",
        }
    }
    volume: JsonObject = {"name": "scratch", "ephemeral": {"volumeClaimTemplate": template}}
    assert run([volume], V33) == ([], ["scratch"])
    codes = [code for code, _ in run([volume], V34)[0]]
    assert codes == ["pod.ephemeral-volume"]


def test_fc_wwns_print_as_the_release_prints_them():
    volume: JsonObject = {
        "name": "fc",
        "fc": {"targetWWNs": ["500a0982", "500a0983"], "wwids": ["3600508b"], "lun": 0},
    }
    detail = "targetWWNs and wwids can not be specified simultaneously"
    assert run([volume], V33)[0] == [
        (
            "pod.volume",
            "spec.volumes[0].fc.targetWWNs: Invalid value: "
            f'[]string{{"500a0982", "500a0983"}}: {detail}',
        ),
    ]
    assert run([volume], V34)[0] == [
        (
            "pod.volume",
            f'spec.volumes[0].fc.targetWWNs: Invalid value: ["500a0982","500a0983"]: {detail}',
        ),
    ]
