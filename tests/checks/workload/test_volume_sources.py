import pytest

from trainc.checks.workload import network_volumes as net
from trainc.checks.workload import volume_sources as local
from trainc.checks.workload.fielderrors import FieldError

P = ("v",)
SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com')"
)
BLOB_URI = "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"


def messages(errors: list[FieldError]) -> list[str]:
    assert {error.code for error in errors} <= {"pod.volume", "pod.volume-items"}
    return [error.message() for error in errors]


@pytest.mark.parametrize(
    ("check", "source", "expected"),
    [
        (
            local.empty_dir_errors,
            {"sizeLimit": "-1Gi"},
            ["v.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity"],
        ),
        (local.empty_dir_errors, {"sizeLimit": "0"}, []),
        (local.host_path_errors, {}, ["v.path: Required value"]),
        (
            local.host_path_errors,
            {"path": "/data/../etc", "type": "Dir"},
            [
                "v.path: Invalid value: \"/data/../etc\": must not contain '..'",
                'v.type: Unsupported value: "Dir": supported values: "", '
                '"BlockDevice", "CharDevice", "Directory", '
                '"DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
            ],
        ),
        (local.host_path_errors, {"path": "/mnt/datasets", "type": "Directory"}, []),
        (
            local.git_repo_errors,
            {"directory": "/abs"},
            [
                "v.repository: Required value",
                'v.directory: Invalid value: "/abs": must be a relative path',
            ],
        ),
        (
            local.git_repo_errors,
            {"repository": "https://github.com/org/repo", "directory": "."},
            [],
        ),
        (
            local.secret_errors,
            {"defaultMode": -1},
            [
                "v.secretName: Required value",
                "v.defaultMode: Invalid value: -1: must be a number between 0 "
                "and 0777 (octal), both inclusive",
            ],
        ),
        (
            local.config_map_errors,
            {"name": "c", "items": [{"key": "k", "path": "conf/app.yaml"}]},
            [],
        ),
        (local.claim_errors, {}, ["v.claimName: Required value"]),
        (local.claim_errors, {"claimName": "datasets"}, []),
        (
            local.csi_errors,
            {"driver": "Blob.CSI.Azure.com" + "x" * 50, "nodePublishSecretRef": {}},
            [
                "v.driver: Too long: must have at most 63 bytes",
                "v.nodePublishSecretRef.name: Required value",
            ],
        ),
        (
            local.csi_errors,
            {"driver": "s3_csi", "nodePublishSecretRef": {"name": "creds"}},
            [
                f'v.driver: Invalid value: "s3_csi": {SUBDOMAIN_MSG}',
            ],
        ),
        (local.csi_errors, {"driver": "Blob.csi.azure.com"}, []),
        (
            net.nfs_errors,
            {"server": "nfs.local", "path": "exports"},
            [
                'v.path: Invalid value: "exports": must be an absolute path',
            ],
        ),
        (
            net.nfs_errors,
            {},
            [
                "v.server: Required value",
                "v.path: Required value",
                'v.path: Invalid value: "": must be an absolute path',
            ],
        ),
        (net.nfs_errors, {"server": "10.0.0.2", "path": "/exports/ckpt"}, []),
        (
            net.iscsi_errors,
            {"iqn": "disk1", "lun": 256, "chapAuthSession": True},
            [
                "v.targetPortal: Required value",
                'v.iqn: Invalid value: "disk1": must be valid format starting '
                "with iqn, eui, or naa",
                "v.lun: Invalid value: 256: must be between 0 and 255, inclusive",
                "v.secretRef: Required value",
            ],
        ),
        (
            net.iscsi_errors,
            {"targetPortal": "t:3260", "iqn": "eui.123", "initiatorName": "naa.x"},
            [
                'v.iqn: Invalid value: "eui.123": must be valid format',
                'v.initiatorname: Invalid value: "naa.x": must be valid format',
            ],
        ),
        (
            net.iscsi_errors,
            {
                "targetPortal": "t:3260",
                "iqn": "iqn.2001-04.com.example:storage.disk1",
                "initiatorName": "eui.02004567A425678D",
            },
            [],
        ),
        (
            net.flocker_errors,
            {},
            ["v: Required value: one of datasetName and datasetUUID is required"],
        ),
        (
            net.flocker_errors,
            {"datasetName": "a/b", "datasetUUID": "u"},
            [
                'v: Invalid value: "resource": datasetName and datasetUUID '
                "can not be specified simultaneously",
                "v.datasetName: Invalid value: \"a/b\": must not contain '/'",
            ],
        ),
        (net.glusterfs_errors, {"endpoints": "gluster"}, ["v.path: Required value"]),
        (
            net.rbd_errors,
            {"monitors": []},
            ["v.monitors: Required value", "v.image: Required value"],
        ),
        (net.cephfs_errors, {"monitors": ["10.0.0.1:6789"]}, []),
        (
            net.cinder_errors,
            {"volumeID": "v", "secretRef": {}},
            ["v.secretRef.name: Required value"],
        ),
        (
            net.quobyte_errors,
            {"registry": "r1:7861,[::1]", "volume": "v"},
            [
                'v.registry: Invalid value: "r1:7861,[::1]": must be a '
                "host:port pair or multiple pairs separated by commas",
            ],
        ),
        (
            net.quobyte_errors,
            {"registry": "r", "tenant": "t" * 65},
            [
                "v.tenant: Required value: must be a UUID and may not exceed "
                "a length of 64 characters",
                "v.volume: Required value",
            ],
        ),
        (net.quobyte_errors, {"registry": "r1:7861,[::1]:7861", "volume": "v"}, []),
        (
            net.flex_volume_errors,
            {"options": {"Kubernetes.io/x": "1", "example.k8s.io": "2", "vendor.com/k8s.io": "3"}},
            [
                "v.driver: Required value",
                "v.options[Kubernetes.io/x]: Invalid value: "
                '"Kubernetes.io/x": kubernetes.io and k8s.io namespaces are '
                "reserved",
                'v.options[example.k8s.io]: Invalid value: "example.k8s.io": '
                "kubernetes.io and k8s.io namespaces are reserved",
            ],
        ),
        (net.azure_file_errors, {"secretName": "s"}, ["v.shareName: Required value"]),
        (
            net.azure_disk_errors,
            {"diskName": "d", "diskURI": "/subscriptions/1/disks/d", "cachingMode": "Auto"},
            [
                'v.cachingMode: Unsupported value: "Auto": supported values: '
                '"None", "ReadOnly", "ReadWrite"',
                'v.diskURI: Unsupported value: "/subscriptions/1/disks/d": '
                f'supported values: "{BLOB_URI}"',
            ],
        ),
        (
            net.azure_disk_errors,
            {
                "diskName": "d",
                "diskURI": "https://a.blob.core.windows.net/c/d.vhd",
                "kind": "Managed",
            },
            [
                "v.diskURI: Unsupported value: "
                '"https://a.blob.core.windows.net/c/d.vhd": supported values: '
                '"/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"',
            ],
        ),
        (
            net.azure_disk_errors,
            {"diskName": "d", "diskURI": "/subscriptions/1/disks/d", "kind": "Managed"},
            [],
        ),
        (
            net.gce_disk_errors,
            {"pdName": "pd", "partition": -1},
            [
                "v.partition: Invalid value: -1: must be between 1 and 255, inclusive",
            ],
        ),
        (net.aws_disk_errors, {"partition": 0}, ["v.volumeID: Required value"]),
        (net.vsphere_errors, {}, ["v.volumePath: Required value"]),
        (net.photon_errors, {}, ["v.pdID: Required value"]),
        (net.portworx_errors, {"volumeID": "p"}, []),
        (
            net.scale_io_errors,
            {"gateway": "g"},
            ["v.system: Required value", "v.volumeName: Required value"],
        ),
        (
            net.storageos_errors,
            {"volumeNamespace": "Team", "secretRef": {}},
            [
                "v.volumeName: Required value",
                'v.volumeNamespace: Invalid value: "Team": a lowercase RFC '
                "1123 label must consist of lower case alphanumeric "
                "characters or '-', and must start and end with an "
                "alphanumeric character (e.g. 'my-name' or '123-abc')",
                "v.secretRef.name: Required value",
            ],
        ),
    ],
)
def test_source_rules(check, source, expected):
    assert messages(check(source, P)) == expected


def test_fc_needs_targets_and_a_lun():
    assert messages(net.fc_errors({}, P, (1, 33))) == [
        "v.targetWWNs: Required value: must specify either targetWWNs or wwids, but not both",
    ]
    assert messages(net.fc_errors({"targetWWNs": ["500a"]}, P, (1, 33))) == [
        "v.lun: Required value: lun is required if targetWWNs is specified",
    ]
    assert messages(net.fc_errors({"targetWWNs": ["500a"], "lun": 300}, P, (1, 33))) == [
        "v.lun: Invalid value: 300: must be between 0 and 255, inclusive",
    ]
    assert net.fc_errors({"wwids": ["3600508b"]}, P, (1, 33)) == []
