"""Field errors render exactly as apimachinery's ``field.Error.Error()``."""

from __future__ import annotations

import pytest

from trainc.checks.workload.fielderrors import (
    FieldError,
    Key,
    duplicate,
    forbidden,
    invalid,
    not_found,
    not_supported,
    render_path,
    required,
    too_long,
    too_many,
)
from trainc.checks.workload.version import Gate, parse_version
from trainc.errors import UsageError

CONTAINER = ("spec", "containers", 0)


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (required((*CONTAINER, "image"), "c"), "spec.containers[0].image: Required value"),
        (
            required(("spec", "x"), "c", "must be set"),
            "spec.x: Required value: must be set",
        ),
        (
            invalid((*CONTAINER, "resources", "limits", Key("nvidia.com/gpu")), "c", "2", "why"),
            'spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "2": why',
        ),
        (invalid(("spec", "n"), "c", -1), "spec.n: Invalid value: -1"),
        (invalid(("spec", "b"), "c", True, "no"), "spec.b: Invalid value: true: no"),
        (invalid(("spec", "v"), "c", None), "spec.v: Invalid value: null"),
        (
            invalid(("spec", "m"), "c", {"b": 1, "a": [2]}),
            'spec.m: Invalid value: {"a":[2],"b":1}',
        ),
        (forbidden(("spec", "f"), "c", "not here"), "spec.f: Forbidden: not here"),
        (duplicate(("spec", "d", 1), "c", "x"), 'spec.d[1]: Duplicate value: "x"'),
        (not_found(("spec", "v"), "c", "data"), 'spec.v: Not found: "data"'),
        (
            not_supported(("spec", "p"), "c", "Sometimes", ["Always", "Never"]),
            'spec.p: Unsupported value: "Sometimes": supported values: "Always", "Never"',
        ),
        (too_long(("spec", "t"), "c", 63), "spec.t: Too long: must have at most 63 bytes"),
        (too_many(("spec", "l"), "c", 40, 32), "spec.l: Too many: 40: must have at most 32 items"),
    ],
)
def test_messages_read_like_the_api_servers(error: FieldError, message: str) -> None:
    assert error.message() == message


def test_map_keys_are_bracketed_and_fields_dotted() -> None:
    assert render_path(("metadata", "labels", Key("app"))) == "metadata.labels[app]"
    assert render_path(("items", 0, "path")) == "items[0].path"
    assert render_path(()) == ""


def test_versions_parse_and_gates_turn_on_at_their_release() -> None:
    assert parse_version("1.33") == (1, 33)
    assert parse_version("v1.29.4") == (1, 29)
    with pytest.raises(UsageError, match=r"MAJOR\.MINOR"):
        parse_version("latest")
    gate = Gate("SidecarContainers", (1, 29))
    assert (gate.enabled((1, 28)), gate.enabled((1, 29)), gate.enabled((2, 0))) == (
        False,
        True,
        True,
    )
    assert not Gate("Alpha", None).enabled((1, 36))
