"""The cost bound: never on realistic manifests, always before pathological ones run long."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.cel import rules_at
from trainc.model.schematree import load_kind_schema
from trainc.schema.cel.cost import (
    PER_CALL_LIMIT,
    PER_OBJECT_BUDGET,
    CostBudget,
    Profile,
    Shape,
    estimate,
    profile,
)
from trainc.schema.cel.engine import Program
from trainc.schema.cel.rules import check_rules
from trainc.schema.cel.transitions import check_transitions
from trainc.schema.cel.values import rule_sites

from .builders import (
    codes,
    defaulted,
    list_schema,
    replicated_job,
    rule,
    runtime,
    violations,
)


def test_profile_counts_what_the_model_multiplies() -> None:
    assert profile("self >= 1") == Profile(operations=3)
    assert profile("self == oldSelf") == Profile(operations=3, outer_equalities=1)
    assert profile("!self.exists(c, c == 'node')") == Profile(
        operations=7, nesting=1, inner_equalities=1, longest_literal=6
    )
    assert profile("self.all(x, self.exists(y, y == x))").nesting == 2
    assert profile("sets.contains(self.a, self.b)").nesting == 2
    assert profile("self.name.matches('^a+$')").regex_calls == 1
    assert profile("self.name.startsWith('a')").string_calls == 1


def test_profile_ignores_strings_and_comments() -> None:
    assert profile("'.all(x, x)' == self // .exists(\n").nesting == 0
    assert profile('r"""a.map(""" == self').nesting == 0


def test_estimate_grows_with_nesting_and_list_length() -> None:
    small = Shape(nodes=11, longest_list=10)
    large = Shape(nodes=100_001, longest_list=100_000)
    assert estimate("self.all(x, x > 0)", small) < estimate("self.all(x, x > 0)", large)
    assert estimate("self.all(x, self.exists(y, y == x))", large) > PER_CALL_LIMIT
    assert estimate("self.all(x, x != 'node')", large) < PER_CALL_LIMIT


def test_budget_is_charged_until_overdrawn() -> None:
    budget = CostBudget(remaining=10)
    assert budget.charge(10)
    assert not budget.charge(1)
    assert CostBudget().remaining == PER_OBJECT_BUDGET == 10 * PER_CALL_LIMIT


def _realistic_runtime() -> Any:
    """A large but ordinary runtime: 8 replicatedJobs, 100 env vars each, a 20 KB script."""
    jobs = []
    for index in range(8):
        job = replicated_job(f"job-{index}")
        container = job["template"]["spec"]["template"]["spec"]["containers"][0]
        container["env"] = [{"name": f"VAR_{n}", "value": "x" * 40} for n in range(100)]
        container["command"] = ["bash", "-c", "echo step\n" * 2000]
        if index:
            job["dependsOn"] = [{"name": f"job-{index - 1}", "status": "Ready"}]
        jobs.append(job)
    return runtime(template={"spec": {"replicatedJobs": jobs}})


def test_real_rules_stay_far_below_the_limits_on_realistic_manifests() -> None:
    schema = load_kind_schema("TrainingRuntime")
    data = defaulted(_realistic_runtime(), schema).data
    costs = [
        estimate(declared.rule, site.shape.plus(site.shape))
        for site in rule_sites(data, schema, lambda declared: True)
        for declared in site.rules
    ]
    assert max(costs) < PER_CALL_LIMIT // 10
    assert sum(costs) < PER_OBJECT_BUDGET // 100
    assert violations(_realistic_runtime(), schema) == []


def test_pathological_nesting_is_refused_before_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    evaluated: list[str] = []
    evaluate = Program.evaluate

    def counted(program: Program, activation: Any) -> Any:
        evaluated.append(program.expression)
        return evaluate(program, activation)

    monkeypatch.setattr(Program, "evaluate", counted)
    expression = "self.names.all(x, self.names.exists(y, y == x))"
    schema = list_schema(expression)
    data = {"spec": {"names": [f"n{i}" for i in range(100_000)]}}
    found = violations(data, schema)
    assert evaluated == []  # 10**10 comparisons never start
    assert codes(found) == [("cel.cost-exceeded", "spec")]
    assert violations({"spec": {"names": ["a", "b"]}}, schema) == []
    assert evaluated == [expression]  # a small list is evaluated
    assert "1,000,000" in found[0].message
    assert found[0].hint is not None
    assert "100,000 items" in found[0].hint


def test_the_engine_iteration_limit_is_a_cost_finding() -> None:
    schema = list_schema("self.names.all(x, x != 'node')")
    found = violations({"spec": {"names": [f"n{i}" for i in range(20_000)]}}, schema)
    assert codes(found) == [("cel.cost-exceeded", "spec")]
    assert "10,000 comprehension iterations" in found[0].message


def test_a_regex_over_a_huge_string_is_not_evaluated() -> None:
    schema = list_schema("self.names.all(x, x.matches('^[a-z]+$'))")
    found = violations({"spec": {"names": ["a" * 5_000_000]}}, schema)
    assert codes(found) == [("cel.cost-exceeded", "spec")]


@pytest.mark.parametrize("remaining", [0, 5])
def test_a_spent_budget_stops_the_remaining_rules(remaining: int) -> None:
    item = {"type": "string", "x-kubernetes-validations": [rule("self != 'x'")]}
    schema = list_schema("true", item)
    found = violations(
        {"spec": {"names": ["a", "b", "x"]}}, schema, budget=CostBudget(remaining=remaining)
    )
    assert len(found) == 1
    assert found[0].code == "cel.cost-exceeded"
    assert "10,000,000" in found[0].message


def test_a_budget_shared_with_transitions_reports_its_exhaustion_once() -> None:
    schema = list_schema("self.names.all(x, x != 'y')")
    obj = defaulted({"spec": {"names": ["a"]}}, schema)
    budget = CostBudget(remaining=1)
    first = check_rules(obj, schema, budget=budget)
    assert codes(first) == [("cel.cost-exceeded", "spec")]
    assert check_rules(obj, schema, budget=budget) == []
    assert check_transitions(obj, obj, schema, budget=budget) == []


def test_rules_at_unknown_nodes_are_none() -> None:
    assert rules_at(load_kind_schema("TrainJob"), {}) == ()
