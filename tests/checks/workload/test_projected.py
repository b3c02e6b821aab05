from trainc.checks.workload.projected import projected_errors
from trainc.model.json import JsonObject

P = ("spec", "volumes", 0, "projected")
AT = "spec.volumes[0].projected"


def findings(source: JsonObject) -> list[tuple[str, str]]:
    return [(error.code, error.message()) for error in projected_errors(source, P)]


def test_valid_projection_with_a_defaulted_token_lifetime():
    source: JsonObject = {
        "defaultMode": 0o440,
        "sources": [
            {"serviceAccountToken": {"audience": "s3.amazonaws.com", "path": "token"}},
            {"configMap": {"name": "ca", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {
                "downwardAPI": {
                    "items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]
                }
            },
            # Gated off in every modelled release: dropped by the API server, never counted.
            {
                "secret": {"name": "tls"},
                "clusterTrustBundle": {"signerName": "x"},
                "podCertificate": {},
            },
        ],
    }
    assert findings(source) == []


def test_one_source_per_entry_and_no_path_twice():
    source: JsonObject = {
        "sources": [
            {"secret": {"name": "a", "items": [{"key": "k", "path": "cfg"}]}},
            {"configMap": {"name": "b", "items": [{"key": "k", "path": "cfg"}]}, "secret": {}},
            {
                "downwardAPI": {
                    "items": [{"path": "cfg", "fieldRef": {"fieldPath": "metadata.name"}}]
                }
            },
        ],
        "defaultMode": 1024,
    }
    assert findings(source) == [
        (
            "pod.volume-items",
            f"{AT}.defaultMode: Invalid value: 1024: must be a number "
            "between 0 and 0777 (octal), both inclusive",
        ),
        ("pod.volume", f"{AT}.sources[1].secret.name: Required value"),
        ("pod.volume-items", f'{AT}: Invalid value: "b": conflicting duplicate paths'),
        (
            "pod.volume-source",
            f"{AT}.sources[1]: Forbidden: may not specify more than 1 volume type per source",
        ),
        ("pod.volume-items", f'{AT}: Invalid value: "cfg": conflicting duplicate paths'),
    ]


def test_service_account_tokens():
    source: JsonObject = {
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": 300}},
            {"serviceAccountToken": {"expirationSeconds": 2**33, "path": "../token"}},
        ]
    }
    assert findings(source) == [
        (
            "pod.volume",
            f"{AT}.sources[0].serviceAccountToken.expirationSeconds: "
            "Invalid value: 300: may not specify a duration less than 10 "
            "minutes",
        ),
        ("pod.volume-items", f"{AT}.path: Required value"),
        (
            "pod.volume",
            f"{AT}.sources[1].serviceAccountToken.expirationSeconds: "
            "Invalid value: 8589934592: may not specify a duration larger "
            "than 2^32 seconds",
        ),
        ("pod.volume-items", f"{AT}.path: Invalid value: \"../token\": must not contain '..'"),
    ]
