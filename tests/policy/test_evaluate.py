from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from tests.resolve.builders import defaulted_objects
from tests.support.builders import policy_findings
from trainc.config.settings import PolicySettings, RepoConfig
from trainc.diagnostics import Diagnostic, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject
from trainc.policy.apply import PolicySet, load_policies

OBJECTS = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch
spec:
  mlPolicy:
    numNodes: 1
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: pytorch/pytorch:2.5
                      resources:
                        limits:
                          nvidia.com/gpu: 2
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: big
  labels:
    team: vision
spec:
  runtimeRef:
    name: torch
  trainer:
    numNodes: 4
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: small
spec:
  runtimeRef:
    name: torch
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: orphan
spec:
  runtimeRef:
    name: missing
"""


def policy(spec: str, name: str = "p") -> str:
    return (
        f"apiVersion: trainc.dev/v1alpha1\nkind: ValidationPolicy\nmetadata:\n  name: {name}\n"
        "spec:\n" + textwrap.indent(textwrap.dedent(spec), "  ")
    )


def load(tmp_path: Path, *texts: str, params: dict[str, JsonObject] | None = None) -> PolicySet:
    for index, text in enumerate(texts):
        path = tmp_path / "policies" / f"{index}.yaml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    config = RepoConfig(root=tmp_path, policies=PolicySettings(params=params or {}))
    loaded = load_policies(config)
    assert loaded.diagnostics == ()
    return loaded


def check(policies: PolicySet, text: str = OBJECTS) -> list[Diagnostic]:
    objects = defaulted_objects(text)
    return policy_findings(policies, objects)


def found(diagnostics: list[Diagnostic]) -> list[tuple[str, str, str | None, str]]:
    return [(d.code, d.severity.value, d.name, d.message) for d in diagnostics]


NODES_AT_MOST_2 = """\
validations:
  - expression: "!has(object.spec.trainer) || object.spec.trainer.numNodes <= 2"
    message: too many nodes
"""


def test_deny_reports_errors_at_the_field(tmp_path: Path) -> None:
    (diagnostic,) = check(load(tmp_path, policy(NODES_AT_MOST_2)))
    assert (diagnostic.code, diagnostic.severity, diagnostic.message) == (
        "policy.p",
        Severity.ERROR,
        "too many nodes",
    )
    assert (diagnostic.file, diagnostic.line, diagnostic.column) == ("jobs.yaml", 36, 3)
    assert (diagnostic.kind, diagnostic.namespace, diagnostic.name) == (
        "TrainJob",
        "default",
        "big",
    )
    assert diagnostic.field_path == "spec.trainer"  # the prefix both references share


def test_warn_reports_warnings(tmp_path: Path) -> None:
    spec = NODES_AT_MOST_2 + "validationActions: [Warn]\n"
    assert found(check(load(tmp_path, policy(spec)))) == [
        ("policy.p", "warning", "big", "too many nodes"),
    ]


def test_deny_and_warn_together_deny(tmp_path: Path) -> None:
    spec = NODES_AT_MOST_2 + "validationActions: [Warn, Deny]\n"
    assert [d.severity for d in check(load(tmp_path, policy(spec)))] == [Severity.ERROR]


def test_default_message_names_the_expression(tmp_path: Path) -> None:
    spec = 'validations:\n  - expression: "false"\n'
    messages = {d.message for d in check(load(tmp_path, policy(spec)))}
    assert messages == {"failed expression: false"}


def test_violation_points_at_the_referenced_field_or_its_parent(tmp_path: Path) -> None:
    spec = """\
    validations:
      - expression: has(object.spec.activeDeadlineSeconds)
      - expression: object.metadata.name.size() < 4
    """
    diagnostics = check(load(tmp_path, policy(spec)))
    assert [(d.name, d.line, d.field_path) for d in diagnostics] == [
        ("big", 33, "spec.activeDeadlineSeconds"),  # absent: located at spec
        ("small", 43, "spec.activeDeadlineSeconds"),
        ("small", 42, "metadata.name"),
        ("orphan", 51, "spec.activeDeadlineSeconds"),
        ("orphan", 50, "metadata.name"),
    ]


def test_match_conditions_filter_objects(tmp_path: Path) -> None:
    spec = """\
    matchConditions:
      - name: labelled
        expression: has(object.metadata.labels) && 'team' in object.metadata.labels
      - name: vision
        expression: object.metadata.labels.team == 'vision'
    validations:
      - expression: "false"
        message: matched
    """
    assert [d.name for d in check(load(tmp_path, policy(spec)))] == ["big"]


def test_a_false_match_condition_wins_over_an_error(tmp_path: Path) -> None:
    spec = """\
    matchConditions:
      - name: errs
        expression: object.spec.nope == 1
      - name: never
        expression: "false"
    validations:
      - expression: "false"
    """
    assert check(load(tmp_path, policy(spec))) == []


def test_a_match_condition_error_is_an_eval_error(tmp_path: Path) -> None:
    spec = """\
    matchConditions:
      - name: team
        expression: object.metadata.labels.team == 'vision'
    validations:
      - expression: "false"
        message: matched
    """
    assert [(d.code, d.name) for d in check(load(tmp_path, policy(spec)))] == [
        ("policy.p", "big"),
        ("policy.eval-error", "small"),
        ("policy.eval-error", "orphan"),
    ]
    error = check(load(tmp_path, policy(spec)))[1]
    assert error.message.startswith(
        "policy p: matchCondition 'team' `object.metadata.labels.team == 'vision'` "
        "could not be evaluated: "
    )


def test_variables_chain_in_order(tmp_path: Path) -> None:
    spec = """\
    variables:
      - name: nodes
        expression: "has(object.spec.trainer) ? object.spec.trainer.numNodes : 1"
      - name: doubled
        expression: variables.nodes * 2
    validations:
      - expression: variables.doubled <= 4
        messageExpression: "'doubled is ' + string(variables.doubled)"
    """
    assert found(check(load(tmp_path, policy(spec)))) == [
        ("policy.p", "error", "big", "doubled is 8"),
    ]


def test_a_broken_variable_is_reported_once_and_skips_the_validations(tmp_path: Path) -> None:
    spec = """\
    variables:
      - name: nodes
        expression: object.spec.trainer.numNodes
    validations:
      - expression: variables.nodes > 0
      - expression: variables.nodes < 100
    """
    diagnostics = check(load(tmp_path, policy(spec)))
    assert [(d.code, d.name) for d in diagnostics] == [
        ("policy.eval-error", "small"),
        ("policy.eval-error", "orphan"),
    ]
    assert "variable 'nodes'" in diagnostics[0].message


@pytest.mark.parametrize(
    ("message_expression", "expected"),
    [
        ("\"'job ' + object.metadata.name\"", "job big"),
        ("object.spec.nope", "static"),  # errors: the static message
        ("\"'42'.size()\"", "static"),  # not a string
        ("\"''\"", "static"),  # empty
        ("\"'two\\\\nlines'\"", "static"),  # line breaks
    ],
)
def test_message_expression_with_fallback(
    tmp_path: Path, message_expression: str, expected: str
) -> None:
    spec = f"""\
    validations:
      - expression: object.metadata.name != 'big'
        message: static
        messageExpression: {message_expression}
    """
    assert [d.message for d in check(load(tmp_path, policy(spec)))] == [expected]


def test_non_bool_results_and_errors_are_eval_errors(tmp_path: Path) -> None:
    spec = """\
    validations:
      - expression: object.metadata.name
      - expression: object.spec.nope
    validationActions: [Warn]
    """
    diagnostics = [d for d in check(load(tmp_path, policy(spec))) if d.name == "big"]
    assert [(d.code, d.severity) for d in diagnostics] == [
        ("policy.eval-error", Severity.WARNING),
        ("policy.eval-error", Severity.WARNING),
    ]
    assert diagnostics[0].message == (
        "policy p: validation 0 `object.metadata.name` returned str 'big' instead of a bool"
    )
    assert diagnostics[1].message.startswith(
        "policy p: validation 1 `object.spec.nope` could not be evaluated: "
    )


def test_runtime_and_resolved_are_bound_for_trainjobs(tmp_path: Path) -> None:
    spec = """\
    validations:
      - expression: resolved != null && runtime != null
        message: unresolved
      - expression: resolved == null || resolved.totalGPUs <= 4
        messageExpression: "string(resolved.totalGPUs) + ' GPUs on ' + runtime.metadata.name"
      - expression: oldObject == null
    """
    assert found(check(load(tmp_path, policy(spec)))) == [
        ("policy.p", "error", "big", "8 GPUs on torch"),
        ("policy.p", "error", "orphan", "unresolved"),
    ]


@pytest.mark.parametrize(
    ("resources", "names"),
    [
        (None, ["big", "small", "orphan"]),
        ("[trainjobs]", ["big", "small", "orphan"]),
        ("[clustertrainingruntimes]", ["torch"]),
        ("[trainingruntimes]", []),
        ("['*']", ["torch", "big", "small", "orphan"]),
    ],
)
def test_match_constraints_select_kinds(
    tmp_path: Path, resources: str | None, names: list[str]
) -> None:
    spec = 'validations:\n  - expression: "false"\n'
    if resources is not None:
        spec += f"matchConstraints:\n  resourceRules:\n    - resources: {resources}\n"
    assert [d.name for d in check(load(tmp_path, policy(spec)))] == names


def test_params_from_config_reach_the_expressions(tmp_path: Path) -> None:
    spec = """\
    params:
      maxNodes: 8
    validations:
      - expression: "!has(object.spec.trainer) || object.spec.trainer.numNodes <= params.maxNodes"
    """
    assert check(load(tmp_path, policy(spec))) == []
    strict = load(tmp_path, policy(spec), params={"p": {"maxNodes": 2}})
    assert [d.name for d in check(strict)] == ["big"]


def test_objects_with_schema_errors_are_skipped(tmp_path: Path) -> None:
    objects = [
        dataclasses.replace(o, schema_valid=False) if o.name == "big" else o
        for o in defaulted_objects(OBJECTS)
    ]
    spec = 'validations:\n  - expression: "false"\n'
    policies = load(tmp_path, policy(spec))
    names = [d.name for d in policy_findings(policies, objects)]
    assert names == ["small", "orphan"]


def test_a_runtime_with_schema_errors_resolves_to_null(tmp_path: Path) -> None:
    objects: list[DefaultedObject] = [
        dataclasses.replace(o, schema_valid=False) if o.name == "torch" else o
        for o in defaulted_objects(OBJECTS)
    ]
    spec = "validations:\n  - expression: resolved == null && runtime == null\n"
    policies = load(tmp_path, policy(spec))
    assert policy_findings(policies, objects) == []


UNGUARDED_NODES = """\
validations:
  - expression: resolved.numNodes <= 2
    message: too many nodes
"""
UNGUARDED_TORCH = """\
validations:
  - expression: has(runtime.spec.mlPolicy.torch)
    message: torch only
"""


def test_policies_reading_a_missing_runtime_are_skipped_and_said_once(tmp_path: Path) -> None:
    """A team found that `resolved.*` on a TrainJob whose runtime is missing gave CEL's
    "Applying SELECT to non-message type" at the data scientist's spec."""
    policies = load(tmp_path, policy(UNGUARDED_NODES, "nodes"), policy(UNGUARDED_TORCH, "torch"))
    diagnostics = check(policies)
    assert [(d.code, d.name) for d in diagnostics] == [
        ("policy.nodes", "big"),
        ("policy.not-evaluated", "orphan"),
    ]
    skipped = diagnostics[1]
    assert skipped.severity is Severity.WARNING
    assert skipped.field_path == "spec.runtimeRef"
    assert skipped.message == (
        "policies nodes, torch were not evaluated on this TrainJob: they read `runtime` or "
        "`resolved`, which are null because the TrainJob's runtime was not found"
    )
    assert "`resolved != null`" in (skipped.hint or "")
    assert not any("non-message" in d.message for d in diagnostics)


def test_a_runtime_with_errors_is_named_as_the_cause(tmp_path: Path) -> None:
    runtime, *trainjobs = defaulted_objects(OBJECTS)
    broken = dataclasses.replace(runtime, schema_valid=False)
    policies = load(tmp_path, policy(UNGUARDED_NODES, "nodes"))
    diagnostics = policy_findings(policies, [broken, *trainjobs])
    assert [(d.code, d.name) for d in diagnostics] == [
        ("policy.not-evaluated", "big"),
        ("policy.not-evaluated", "small"),
        ("policy.not-evaluated", "orphan"),
    ]
    assert diagnostics[0].message.startswith("policy nodes was not evaluated on this TrainJob")
    assert diagnostics[0].message.endswith("because the TrainJob's runtime has errors")
    assert diagnostics[2].message.endswith("because the TrainJob's runtime was not found")


def test_a_guarded_policy_is_evaluated_as_written(tmp_path: Path) -> None:
    guarded = "matchConditions:\n  - name: resolves\n    expression: resolved != null\n"
    demanding = "validations:\n  - expression: resolved != null\n    message: needs a runtime\n"
    policies = load(
        tmp_path, policy(guarded + UNGUARDED_NODES, "nodes"), policy(demanding, "resolves")
    )
    assert [(d.code, d.name) for d in check(policies)] == [
        ("policy.nodes", "big"),
        ("policy.resolves", "orphan"),
    ]


def test_kubernetes_cel_libraries_are_offered(tmp_path: Path) -> None:
    spec = """\
    matchConstraints:
      resourceRules:
        - resources: [clustertrainingruntimes]
    validations:
      - expression: >-
          object.spec.template.spec.replicatedJobs.all(j,
            j.template.spec.template.spec.containers.all(c,
              quantity(string(c.resources.limits['nvidia.com/gpu'])).isLessThan(quantity('2'))))
        message: at most one GPU per container
    """
    assert found(check(load(tmp_path, policy(spec)))) == [
        ("policy.p", "error", "torch", "at most one GPU per container"),
    ]
