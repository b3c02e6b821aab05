from __future__ import annotations

from trainc.config.policy_settings import merge_params, select_policies
from trainc.config.settings import PolicySettings
from trainc.model.json import JsonObject


def test_merge_is_shallow_and_config_wins() -> None:
    defaults: JsonObject = {"registries": ["a", "b"], "limits": {"cpu": 1, "gpu": 2}, "mode": "x"}
    merged = merge_params(defaults, {"registries": ["c"], "limits": {"gpu": 4}})
    assert merged == {"registries": ["c"], "limits": {"gpu": 4}, "mode": "x"}
    assert merge_params(None, None) == {}


def test_selection() -> None:
    settings = PolicySettings(
        enable=frozenset({"b1", "r1"}),
        disable=frozenset({"r2", "b1"}),
    )
    selection = select_policies(
        settings, repository={"r1", "r2"}, builtin={"b1", "b2"}, config_file="trainc.yaml"
    )
    assert selection.runs("r1", builtin=False)
    assert not selection.runs("r2", builtin=False)  # disabled
    assert not selection.runs("b1", builtin=True)  # enabled, but disable wins
    assert not selection.runs("b2", builtin=True)  # built-ins are off by default
    # Repository policies are always on, so enabling one is a mistake worth reporting.
    assert [d.message for d in selection.diagnostics] == [
        "policies.enable names 'r1', which is no built-in policy",
    ]
