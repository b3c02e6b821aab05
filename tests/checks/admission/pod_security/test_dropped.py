"""The fields the API server drops before Pod Security judges a pod, by release."""

from __future__ import annotations

from trainc.checks.admission.pod_security.dropped import dropped_paths, stored
from trainc.model.json import JsonObject

SPEC: JsonObject = {
    "hostUsers": False,
    "securityContext": {"appArmorProfile": {"type": "Unconfined"}, "runAsNonRoot": True},
    "containers": [
        {
            "name": "node",
            "securityContext": {
                "procMount": "Unmasked",
                "appArmorProfile": {"type": "Unconfined"},
            },
        }
    ],
}


def test_before_every_gate_all_three_fields_are_dropped() -> None:
    assert dropped_paths(SPEC, (1, 29)) == [
        ("securityContext", "appArmorProfile"),
        ("containers", 0, "securityContext", "appArmorProfile"),
        ("containers", 0, "securityContext", "procMount"),
        ("hostUsers",),
    ]
    assert stored(SPEC, (1, 29)) == {
        "securityContext": {"runAsNonRoot": True},
        "containers": [{"name": "node", "securityContext": {}}],
    }


def test_apparmor_fields_are_kept_from_1_30_the_rest_from_1_33() -> None:
    assert dropped_paths(SPEC, (1, 32)) == [
        ("containers", 0, "securityContext", "procMount"),
        ("hostUsers",),
    ]
    assert dropped_paths(SPEC, (1, 33)) == []
    assert stored(SPEC, (1, 33)) is SPEC


def test_the_written_spec_is_not_changed() -> None:
    stored(SPEC, (1, 29))
    assert SPEC["hostUsers"] is False
