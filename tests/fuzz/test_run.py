"""The long run's plan: the whole budget, shared evenly, and no empty share."""

from __future__ import annotations

from tests.fuzz.run import Chunk, plan, properties

TARGETS = [("test_load", "a"), ("test_cli", "b"), ("test_cli", "c")]


def test_the_budget_is_shared_evenly_by_property_and_job() -> None:
    chunks = plan(100, 2, TARGETS)
    assert sum(chunk.examples for chunk in chunks) == 100
    assert {chunk.examples for chunk in chunks} == {16, 17}
    assert sorted({chunk.label for chunk in chunks}) == [
        "test_cli::b",
        "test_cli::c",
        "test_load::a",
    ]


def test_a_budget_smaller_than_the_shares_leaves_none_empty() -> None:
    assert plan(2, 2, TARGETS) == [Chunk("test_load", "a", 1), Chunk("test_cli", "b", 1)]


def test_every_property_of_the_fuzz_modules_is_planned() -> None:
    assert sorted(properties()) == [
        ("test_cli", "test_any_command_line_exits_0_1_or_2_and_usage_errors_print_nothing"),
        ("test_cli", "test_input_errors_exit_1_and_never_an_internal_error"),
        ("test_compile", "test_any_repository_compiles_to_valid_output_or_located_findings"),
        ("test_compile", "test_valid_repositories_stay_valid_and_compile_to_valid_output"),
        ("test_load", "test_every_file_loads_to_trainer_objects_or_located_findings"),
        ("test_validate", "test_any_repository_validates_to_located_findings"),
    ]
