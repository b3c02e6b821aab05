"""How schema errors read: the field, what it must be in words, and what it is."""

from __future__ import annotations

import math

import pytest

from trainc.model.json import JsonObject, JsonValue
from trainc.model.schematree import KindSchema, load_kind_schema
from trainc.schema.defaults import SchemaFinding
from trainc.schema.structural import check_schema

CPU = ("spec", "trainer", "resourcesPerNode", "limits", "cpu")


def _trainjob(cpu: JsonValue = "2", env_value: JsonValue = "x") -> JsonObject:
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "job"},
        "spec": {
            "runtimeRef": {"name": "torch"},
            "trainer": {
                "resourcesPerNode": {"limits": {"cpu": cpu}},
                "env": [{"name": "E", "value": env_value}],
            },
        },
    }


def _only(findings: list[SchemaFinding]) -> SchemaFinding:
    assert len(findings) == 1, findings
    return findings[0]


def test_a_bad_quantity_is_described_in_words_not_by_its_regular_expression() -> None:
    found = _only(check_schema(_trainjob(cpu="4 cores"), load_kind_schema("TrainJob")))
    assert (found.code, found.path) == ("schema.pattern", CPU)
    assert found.message == (
        "spec.trainer.resourcesPerNode.limits.cpu must be a Kubernetes quantity such as "
        "500m, 4Gi or 2, not '4 cores'"
    )
    assert found.hint is not None
    assert "Ki, Mi, Gi" in found.hint
    assert "[0-9]" not in found.message + found.hint


def test_a_quantity_of_the_wrong_type_says_it_is_a_quantity() -> None:
    found = _only(check_schema(_trainjob(cpu=1.5), load_kind_schema("TrainJob")))
    assert found.message == (
        "spec.trainer.resourcesPerNode.limits.cpu must be a Kubernetes quantity such as "
        "500m, 4Gi or 2 (an integer or a string), not a number"
    )
    assert found.hint == 'write the quantity as a string: "1.5"'


def test_a_name_format_of_the_configuration_says_which_characters_are_allowed() -> None:
    found = _only(check_schema({"namespace": "ML_Team"}, load_kind_schema("Config")))
    assert found.message == "namespace must be a lowercase RFC 1123 label, not 'ML_Team'"
    assert found.hint == (
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
        "'-', and must start and end with an alphanumeric character (e.g. 'my-name' or "
        "'123-abc')"
    )


def test_a_pattern_trainc_does_not_know_is_shown_as_it_is() -> None:
    schema = KindSchema("Custom", {"properties": {"code": {"type": "string", "pattern": "^x+$"}}})
    found = _only(check_schema({"code": "y"}, schema))
    assert found.message == "code must be text matching the regular expression ^x+$, not 'y'"
    assert found.hint is None


@pytest.mark.parametrize(
    ("value", "shown"),
    [(math.inf, "a float (.inf)"), (-math.inf, "a float (-.inf)"), (math.nan, "a float (.nan)")],
)
def test_a_non_finite_float_is_named_as_what_it_is_never_null(value: float, shown: str) -> None:
    # jsonschema-rs converts the value to JSON, where it becomes null.
    found = _only(check_schema(_trainjob(env_value=value), load_kind_schema("TrainJob")))
    assert found.path == ("spec", "trainer", "env", 0, "value")
    assert found.message == f"spec.trainer.env[0].value must be a string, not {shown}"


def test_a_date_time_says_which_form_it_takes() -> None:
    status: JsonObject = {"trainerStatus": {"lastUpdatedTime": "2025-06-01 12:00"}}
    found = _only(check_schema({**_trainjob(), "status": status}, load_kind_schema("TrainJob")))
    assert (found.code, found.path) == (
        "schema.format",
        ("status", "trainerStatus", "lastUpdatedTime"),
    )
    assert found.message == (
        "status.trainerStatus.lastUpdatedTime must be an RFC 3339 date-time such as "
        "2025-06-01T12:00:00Z, not '2025-06-01 12:00'"
    )
