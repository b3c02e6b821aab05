"""Create-time rules: every rule of the three API kinds, and Kubernetes' CEL semantics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.cel import rules_at
from trainc.model.patterns import described_in_rule
from trainc.model.schematree import load_kind_schema
from trainc.schema.cel.rules import check_rules
from trainc.schema.cel.values import rule_sites
from trainc.schema.defaults import drop_nulls

from .builders import (
    HOSTILE,
    Doc,
    codes,
    is_transition,
    jobset_spec,
    model_rules,
    paths_of,
    replaced,
    replicated_job,
    rule,
    runtime,
    schema_of,
    structural_problems,
    trainjob,
    undefaulted,
    violations,
)

RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")


@dataclass(frozen=True)
class Case:
    """A document breaking one rule, where, and the same document repaired."""

    invalid: Doc
    path: str | None
    valid: Doc


def _named(name: str) -> Doc:
    job = trainjob()
    job["metadata"] = {"name": name, "namespace": "team"}
    return job


def _claims(namespace: str | None) -> Doc:
    metadata = {"name": "data"} if namespace is None else {"name": "data", "namespace": namespace}
    claim = {
        "metadata": metadata,
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    return runtime(template=jobset_spec(volumeClaimPolicies=[{"templates": [claim]}]))


def _startup(order: str) -> Doc:
    later = {**replicated_job("node"), "dependsOn": [{"name": "init", "status": "Complete"}]}
    spec = {
        "startupPolicy": {"startupPolicyOrder": order},
        "replicatedJobs": [
            replicated_job("init"),
            later,
        ],
    }
    return runtime(template={"spec": spec})


def _env_targets(*names: str) -> Doc:
    target = {"jobName": "node", "containerNames": list(names)}
    return runtime(mlPolicy={"torch": {"envInjection": {"targets": [target]}}})


_TARGETS = "spec.mlPolicy.torch.envInjection.targets[0].containerNames"

#: Every create-time rule id of the model: at least one case per place it is declared.
CASES: dict[str, list[Case]] = {
    "trainjob.name-format": [Case(_named("Bad_Name"), "metadata.name", _named("good-name"))],
    "trainjob.name-length": [Case(_named("a" * 64), "metadata.name", _named("a" * 63))],
    "trainjob.storage-uri": [
        Case(
            trainjob(initializer={part: {"storageUri": "no-scheme"}}),
            f"spec.initializer.{part}.storageUri",
            trainjob(initializer={part: {"storageUri": "hf://org/name"}}),
        )
        for part in ("dataset", "model")
    ],
    "trainjob.managed-by": [
        Case(
            trainjob(managedBy="example.com/controller"),
            "spec.managedBy",
            trainjob(managedBy="kueue.x-k8s.io/multikueue"),
        )
    ],
    "trainjob.num-proc-per-node": [
        Case(
            trainjob(trainer={"numProcPerNode": 0}),
            "spec.trainer.numProcPerNode",
            trainjob(trainer={"numProcPerNode": 1}),
        )
    ],
    "trainjob.trainer-status-updated": [
        Case(
            {**trainjob(), "status": {"trainerStatus": {"progressPercentage": 10}}},
            "status.trainerStatus",
            {
                **trainjob(),
                "status": {
                    "trainerStatus": {
                        "progressPercentage": 10,
                        "lastUpdatedTime": "2026-01-01T00:00:00Z",
                    }
                },
            },
        )
    ],
    "runtime.no-jobset-ttl": [
        Case(
            runtime(template=jobset_spec(ttlSecondsAfterFinished=60)),
            "spec.template.spec.ttlSecondsAfterFinished",
            runtime(ttlSecondsAfterFinished=60),
        )
    ],
    "runtime.no-job-deadline": [
        Case(
            runtime(
                template={
                    "spec": {
                        "replicatedJobs": [
                            replicated_job("init"),
                            replicated_job("node", activeDeadlineSeconds=600),
                        ]
                    }
                }
            ),
            "spec.template.spec.replicatedJobs",
            runtime(template=jobset_spec(replicatedJobs=[replicated_job("node", backoffLimit=3)])),
        )
    ],
    "runtime.no-job-ttl": [
        Case(
            runtime(
                template={
                    "spec": {
                        "replicatedJobs": [
                            replicated_job("node", ttlSecondsAfterFinished=60),
                        ]
                    }
                }
            ),
            "spec.template.spec.replicatedJobs",
            runtime(),
        )
    ],
    "runtime.one-ml-policy": [
        Case(
            runtime(mlPolicy={"torch": {}, "mpi": {}}),
            "spec.mlPolicy",
            runtime(mlPolicy={"mpi": {}, "numNodes": 2}),
        ),
    ],
    "runtime.mpi-num-proc-per-node": [
        Case(
            runtime(mlPolicy={"mpi": {"numProcPerNode": 0}}),
            "spec.mlPolicy.mpi.numProcPerNode",
            runtime(mlPolicy={"mpi": {}}),
        ),
    ],
    "runtime.flux-num-proc-per-node": [
        Case(
            runtime(mlPolicy={"flux": {"numProcPerNode": 0}}),
            "spec.mlPolicy.flux.numProcPerNode",
            runtime(mlPolicy={"flux": {}}),
        ),
    ],
    "runtime.env-injection-not-node": [
        Case(_env_targets("sidecar", "node"), _TARGETS, _env_targets("sidecar")),
    ],
    "jobset.startup-policy-depends-on": [
        Case(_startup("InOrder"), "spec.template.spec.startupPolicy", _startup("AnyOrder")),
    ],
    "jobset.volume-claim-namespace": [
        Case(_claims("other"), "spec.template.spec.volumeClaimPolicies[0]", _claims(None)),
        Case(_claims("other"), "spec.template.spec.volumeClaimPolicies[0]", _claims("")),
    ],
}


def _kinds(rule_id: str) -> tuple[str, ...]:
    return ("TrainJob",) if rule_id.startswith("trainjob.") else RUNTIME_KINDS


def _as_kind(document: Doc, kind: str) -> Doc:
    return {**document, "kind": kind}


PARAMETERS = [
    pytest.param(rule_id, index, kind, id=f"{rule_id}-{index}-{kind}")
    for rule_id, cases in CASES.items()
    for index in range(len(cases))
    for kind in _kinds(rule_id)
]


def test_every_create_time_rule_id_has_a_case() -> None:
    expected = {rule_id for rule_id, marker in model_rules().items() if not is_transition(marker)}
    assert set(CASES) == expected


@pytest.mark.parametrize("kind", ["TrainJob", *RUNTIME_KINDS])
def test_generated_schemas_carry_the_model_rules(kind: str) -> None:
    schema = load_kind_schema(kind)
    declared = {declared.id for declared in _all_rules(schema.document, schema)}
    prefixes = ("trainjob.",) if kind == "TrainJob" else ("runtime.", "jobset.")
    assert declared == {rule_id for rule_id in model_rules() if rule_id.startswith(prefixes)}


def _all_rules(document: Any, schema: Any) -> list[Any]:
    if isinstance(document, dict):
        own = list(rules_at(schema, document))
        return own + [r for value in document.values() for r in _all_rules(value, schema)]
    if isinstance(document, list):
        return [r for value in document for r in _all_rules(value, schema)]
    return []


@pytest.mark.parametrize(("rule_id", "index", "kind"), PARAMETERS)
def test_a_violating_document_yields_exactly_its_rule(rule_id: str, index: int, kind: str) -> None:
    case = CASES[rule_id][index]
    document = _as_kind(case.invalid, kind)
    assert structural_problems(document, kind) == []
    found = violations(document, load_kind_schema(kind))
    assert codes(found) == [(f"cel.{rule_id}", case.path)]
    assert found[0].hint is not None
    declared = model_rules()[rule_id]
    formats = described_in_rule(declared.rule)
    if formats:  # a rule testing a format by a regular expression: the format in words
        assert all(text_pattern.rule in found[0].hint for text_pattern in formats)
        assert declared.rule not in found[0].hint
    else:
        assert declared.rule in found[0].hint
    if declared.message_expression is None:
        assert found[0].message == declared.message
    else:
        # A message expression names what is wrong more precisely than the static message.
        assert found[0].message != declared.message
        assert found[0].message.split(":", 1)[1] == declared.message.split(":", 1)[1]


@pytest.mark.parametrize(("rule_id", "index", "kind"), PARAMETERS)
def test_the_repaired_document_yields_nothing(rule_id: str, index: int, kind: str) -> None:
    document = _as_kind(CASES[rule_id][index].valid, kind)
    assert structural_problems(document, kind) == []
    assert violations(document, load_kind_schema(kind)) == []


# --- semantics ----------------------------------------------------------------------------

NUMBERS = {"type": "integer"}


def _spec_schema(*entries: Any, **properties: Any) -> Any:
    return schema_of(
        {
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "properties": properties or {"a": NUMBERS, "b": NUMBERS},
                    "x-kubernetes-validations": list(entries),
                }
            },
        }
    )


def test_has_is_false_for_a_missing_field_and_reading_it_is_an_error() -> None:
    schema = _spec_schema(rule("has(self.a)", "x.has"), rule("self.a > 0", "x.read"))
    assert codes(violations({"spec": {"a": 1}}, schema)) == []
    found = violations({"spec": {"b": 1}}, schema)
    assert codes(found) == [("cel.x.has", "spec"), ("cel.eval-error", "spec")]
    assert "x.read could not be evaluated" in found[1].message
    assert "self.a > 0" in (found[1].hint or "")


def test_errors_are_absorbed_by_logical_operators() -> None:
    schema = _spec_schema(
        rule("self.a > 0 || true", "x.or"),
        rule("self.a > 0 && false", "x.and"),
        rule("!has(self.a) || self.a > 0", "x.guarded"),
    )
    assert codes(violations({"spec": {}}, schema)) == [("cel.x.and", "spec")]


def test_defaults_apply_before_rules() -> None:
    schema = _spec_schema(rule("self.a == 3"), a={"type": "integer", "default": 3})
    assert violations({"spec": {}}, schema) == []


def test_rules_under_items_run_for_every_item() -> None:
    item = {"type": "integer", "x-kubernetes-validations": [rule("self > 0", "x.positive")]}
    schema = _spec_schema(values={"type": "array", "items": item})
    found = violations({"spec": {"values": [0, 1, -1]}}, schema)
    assert codes(found) == [
        ("cel.x.positive", "spec.values[0]"),
        ("cel.x.positive", "spec.values[2]"),
    ]


def test_a_rule_without_an_id_reports_the_generic_code() -> None:
    schema = _spec_schema({"rule": "self.a > 0", "message": "a must be positive"})
    found = violations({"spec": {"a": 0}}, schema)
    assert codes(found) == [("cel.rule", "spec")]
    assert found[0].message == "a must be positive"


def test_message_expression_replaces_the_message_when_it_yields_one_line() -> None:
    schema = _spec_schema(
        rule("self.a > 0", "x.good", messageExpression="'a is ' + string(self.a)"),
        rule("self.a > 0", "x.errs", messageExpression="'a is ' + self.nope"),
        rule("self.a > 0", "x.empty", messageExpression="' '"),
        rule("self.a > 0", "x.lines", messageExpression="'a\\nb'"),
        rule("self.a > 0", "x.default", message=""),
    )
    found = violations({"spec": {"a": 0}}, schema)
    assert [d.message for d in found] == [
        "a is 0",
        "broken",
        "broken",
        "broken",
        "failed rule: self.a > 0",
    ]


def test_field_path_locates_the_finding_when_the_field_is_there() -> None:
    schema = _spec_schema(
        rule("!has(self.a) || self.a > 0", "x.at-a", fieldPath=".a"),
        rule("has(self.b)", "x.at-b", fieldPath=".b"),
        rule("false", "x.bad-path", fieldPath="a["),
    )
    found = violations({"spec": {"a": 0}}, schema)
    assert codes(found) == [
        ("cel.x.at-a", "spec.a"),
        ("cel.x.at-b", "spec"),
        ("cel.x.bad-path", "spec"),
    ]


def test_a_rule_returning_a_non_boolean_is_an_evaluation_error() -> None:
    found = violations({"spec": {"a": 1}}, _spec_schema(rule("self.a")))
    assert codes(found) == [("cel.eval-error", "spec")]
    assert "not a boolean" in found[0].message


def test_near_structural_errors_only_violations_are_kept() -> None:
    inner = {
        "type": "object",
        "properties": {"a": NUMBERS},
        "x-kubernetes-validations": [
            rule("self.a > 0", "x.inner"),
            rule("self.missing > 0", "x.broken"),
        ],
    }
    schema = _spec_schema(rule("false", "x.outer"), inner=inner, other={"type": "string"})
    data = {"spec": {"inner": {"a": 0}, "other": "x"}}
    assert codes(violations(data, schema)) == [
        ("cel.x.outer", "spec"),
        ("cel.x.inner", "spec.inner"),
        ("cel.eval-error", "spec.inner"),
    ]
    # A structural error below the rule keeps its violations but not its evaluation
    # errors, which would only restate the structural finding.
    below = violations(data, schema, skip_paths=frozenset({("spec", "inner", "a")}))
    assert codes(below) == [("cel.x.outer", "spec"), ("cel.x.inner", "spec.inner")]
    sibling = violations(data, schema, skip_paths=frozenset({("spec", "other")}))
    assert codes(sibling) == [
        ("cel.x.outer", "spec"),
        ("cel.x.inner", "spec.inner"),
        ("cel.eval-error", "spec.inner"),
    ]


def test_optional_old_self_rules_run_on_create_with_no_old_value() -> None:
    growing = {
        "rule": "!oldSelf.hasValue() || self.a >= oldSelf.value().a",
        "message": "a may only grow",
        "optionalOldSelf": True,
        "x-trainc-id": "x.grow",
    }
    first = {
        "rule": "oldSelf.hasValue() || self.a == 1",
        "message": "a starts at 1",
        "optionalOldSelf": True,
        "x-trainc-id": "x.first",
    }
    schema = _spec_schema(growing, first, rule("self == oldSelf", "x.immutable"))
    assert codes(violations({"spec": {"a": 2}}, schema)) == [("cel.x.first", "spec")]
    assert violations({"spec": {"a": 2}}, schema, update=True) == []


def test_sites_of_the_real_schemas_are_found_where_declared() -> None:
    schema = load_kind_schema("TrainingRuntime")
    document = runtime(template=jobset_spec())
    paths = [site.path for site in rule_sites(document, schema, lambda declared: True)]
    assert paths == [
        ("spec",),
        ("spec", "mlPolicy"),
        ("spec", "template", "spec"),
    ]


# --- hostile input ------------------------------------------------------------------------

_DOCUMENTS = [
    (kind, _as_kind(document, kind))
    for rule_id, cases in CASES.items()
    for case in cases
    for document in (case.invalid, case.valid)
    for kind in _kinds(rule_id)
]


@given(data=st.data())
def test_no_input_makes_check_rules_raise(data: st.DataObject) -> None:
    kind, document = data.draw(st.sampled_from(_DOCUMENTS))
    path = data.draw(st.sampled_from(paths_of(document)))
    hostile = drop_nulls(replaced(document, path, data.draw(HOSTILE)))
    assert isinstance(hostile, dict)
    schema = load_kind_schema(kind)
    found = check_rules(undefaulted(hostile), schema)
    assert all(d.code.startswith("cel.") for d in found)
