"""The downward API selectors, one rule for env variables and downwardAPI volume files."""

from __future__ import annotations

import pytest

from trainc.checks.workload.downward import (
    ENV_FIELD_PATHS,
    VOLUME_FIELD_PATHS,
    field_selector_errors,
    resource_selector_errors,
)
from trainc.checks.workload.env import check_env
from trainc.checks.workload.volume_sources import downward_api_errors
from trainc.model.json import JsonObject

P = ("ref",)


def fields(selector: JsonObject, allowed: tuple[str, ...] = ENV_FIELD_PATHS) -> list[str]:
    return [e.message() for e in field_selector_errors(selector, P, "c", allowed)]


def resources(selector: JsonObject, *, volume: bool) -> list[str]:
    return [e.message() for e in resource_selector_errors(selector, P, "c", volume=volume)]


def test_each_caller_allows_its_own_fields() -> None:
    assert fields({"fieldPath": "status.podIP"}) == []
    assert fields({"fieldPath": "metadata.labels"}) == [
        'ref.fieldPath: Unsupported value: "metadata.labels": supported values: '
        '"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", '
        '"spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", '
        '"status.podIPs"'
    ]
    assert fields({"fieldPath": "metadata.labels"}, VOLUME_FIELD_PATHS) == []
    assert fields({"fieldPath": "status.podIP"}, VOLUME_FIELD_PATHS) == [
        'ref.fieldPath: Unsupported value: "status.podIP": supported values: '
        '"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", '
        '"metadata.uid"'
    ]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        pytest.param({"fieldPath": "spec.host"}, [], id="legacy-host-is-node-name"),
        pytest.param({"apiVersion": "", "fieldPath": "metadata.uid"}, [], id="v1-by-default"),
        pytest.param(
            {"fieldPath": "metadata.annotations['Trainer/Rank']"}, [], id="annotation-lowered"
        ),
        pytest.param(
            {"fieldPath": "metadata.labels['a"},
            [
                'ref.fieldPath: Invalid value: "metadata.labels[\'a": error converting '
                "fieldPath: field label not supported: metadata.labels['a"
            ],
            id="unclosed-subscript",
        ),
        # A value of the wrong type never decodes: the schema layer's finding alone.
        pytest.param({"fieldPath": 3}, [], id="wrong-type"),
        pytest.param({"apiVersion": 1, "fieldPath": "metadata.name"}, [], id="wrong-type-version"),
    ],
)
def test_field_selectors(selector: JsonObject, expected: list[str]) -> None:
    assert fields(selector) == expected


def test_only_a_volume_file_names_its_container() -> None:
    selector: JsonObject = {"resource": "limits.cpu"}
    assert resources(selector, volume=False) == []
    assert resources(selector, volume=True) == ["ref.containerName: Required value"]
    # The divisor is judged even when the container is missing.
    assert resources({"resource": "limits.memory", "divisor": "3"}, volume=True) == [
        "ref.containerName: Required value",
        'ref.divisor: Invalid value: "limits.memory": only divisor\'s values 1, 1k, 1M, 1G, '
        "1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource",
    ]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        pytest.param({"resource": "requests.cpu", "divisor": "1m"}, [], id="cpu-milli"),
        pytest.param({"resource": "limits.cpu", "divisor": "0"}, [], id="zero-is-unset"),
        pytest.param({"resource": "limits.hugepages-2Mi", "divisor": "1Mi"}, [], id="hugepages"),
        pytest.param(
            {"resource": "limits.cpu.extra", "divisor": "3"},
            [
                'ref.resource: Unsupported value: "limits.cpu.extra": supported values: '
                '"limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", '
                '"requests.ephemeral-storage", "requests.memory"'
            ],
            id="no-divisor-rule-for-unknown-resource",
        ),
        pytest.param({"resource": 5, "divisor": "3"}, [], id="wrong-type"),
    ],
)
def test_divisors(selector: JsonObject, expected: list[str]) -> None:
    assert resources(selector, volume=False) == expected


def test_env_and_volume_report_the_same_rule() -> None:
    # One selector, two callers: the same detail, each at its own path and rule code.
    bad: JsonObject = {"fieldPath": "metadata.labels['-bad']"}
    container: JsonObject = {"env": [{"name": "RANK", "valueFrom": {"fieldRef": bad}}]}
    env = check_env(container, ("c",), (1, 33))
    volume = downward_api_errors({"items": [{"path": "rank", "fieldRef": bad}]}, ("v",))
    assert [(e.code, e.path, e.detail) for e in env] == [
        ("pod.env", ("c", "env", 0, "valueFrom", "fieldRef"), env[0].detail)
    ]
    assert [(e.code, e.path, e.detail) for e in volume] == [
        ("pod.volume-items", ("v", "fieldRef"), env[0].detail)
    ]
    assert env[0].detail.startswith("name part must consist of alphanumeric characters")
