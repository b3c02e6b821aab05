"""apimachinery's value predicates, the JSON readers every rule shares, the pod context."""

from __future__ import annotations

import pytest

from trainc.checks.workload.container_context import context_of
from trainc.checks.workload.jsonfields import integer, text
from trainc.checks.workload.predicates import (
    backstep_errors,
    config_map_key_errors,
    generated_name_errors,
    http_header_name_errors,
    id_errors,
    port_name_errors,
    relative_path_errors,
    relaxed_env_var_name_errors,
    trim_space,
)
from trainc.model.json import JsonValue


@pytest.mark.parametrize(
    ("name", "errors"),
    [
        pytest.param("metrics", [], id="valid"),
        pytest.param("p2p", [], id="digits"),
        pytest.param("8080", ["must contain at least one letter (a-z)"], id="digits-only"),
        pytest.param("a" * 16, ["must be no more than 15 characters"], id="long"),
    ],
)
def test_port_names(name: str, errors: list[str]) -> None:
    assert port_name_errors(name) == errors


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        pytest.param("cfg", True, id="plain"),
        pytest.param("cfg-", True, id="trailing-dash-masked"),
        pytest.param("-", False, id="lone-dash-not-masked"),
        pytest.param("ab-", True, id="short"),
        pytest.param("Cfg-", False, id="upper-case"),
    ],
)
def test_generated_names(name: str, valid: bool) -> None:
    assert (generated_name_errors(name) == []) is valid


def test_relaxed_env_var_name_empty() -> None:
    assert relaxed_env_var_name_errors("") == ["environment variable name must be non-empty"]
    assert relaxed_env_var_name_errors("tab\t") == [
        "a valid environment variable name must consist only of printable ASCII characters "
        "other than '='"
    ]


def test_config_map_keys() -> None:
    assert config_map_key_errors("train.yaml") == []
    assert config_map_key_errors("a" * 254)[0] == "must be no more than 253 characters"
    assert config_map_key_errors("..secret") == ["must not start with '..'"]


def test_http_header_names() -> None:
    assert http_header_name_errors("X-Request-ID") == []
    assert len(http_header_name_errors("X_Request")) == 1


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        pytest.param(0, [], id="root"),
        pytest.param(2**31 - 1, [], id="max"),
        pytest.param(2**31, ["must be between 0 and 2147483647, inclusive"], id="over"),
    ],
)
def test_ids(value: int, errors: list[str]) -> None:
    assert id_errors(value) == errors


def test_paths() -> None:
    assert relative_path_errors("run/1") == []
    assert relative_path_errors("/abs") == ["must be a relative path"]
    assert backstep_errors("a/../../b") == ["must not contain '..'"]
    assert backstep_errors("a/..b/c..") == []


def test_trim_space_is_go_s() -> None:
    assert trim_space(" \t\u3000img\n") == "img"
    assert trim_space("\x1cimg") == "\x1cimg"  # Python's strip() would take it; Go keeps it


@pytest.mark.parametrize(
    ("value", "as_text", "as_integer"),
    [
        pytest.param(None, "", 0, id="absent"),
        pytest.param("x", "x", None, id="string"),
        pytest.param(3, None, 3, id="int"),
        pytest.param(3.0, None, 3, id="integral-float"),
        pytest.param(3.5, None, None, id="fraction"),
        pytest.param(True, None, None, id="bool"),
    ],
)
def test_json_readers(value: JsonValue, as_text: str | None, as_integer: int | None) -> None:
    assert text(value) == as_text
    assert integer(value) == as_integer


def test_context_defaults() -> None:
    ctx = context_of({}, (1, 33), {})
    assert (ctx.grace_period, ctx.restart_never, ctx.host_users, ctx.host_network) == (
        30,
        False,
        True,
        False,
    )
    ctx = context_of({"terminationGracePeriodSeconds": "soon", "hostUsers": False}, (1, 32), {})
    assert ctx.grace_period is None
    assert ctx.host_users  # before 1.33 the API server drops hostUsers
    assert not context_of({"hostUsers": False}, (1, 33), {}).host_users
    # hostUsers is a pod spec field in v1, not a security context's.
    assert context_of({"securityContext": {"hostUsers": False}}, (1, 33), {}).host_users
