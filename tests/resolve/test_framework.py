"""The resolve framework: plugins run phase by phase, and a resolution frozen into a ResolvedJob."""

from __future__ import annotations

from dataclasses import dataclass

from tests.build.support import frozen, start
from tests.support.builders import make_runtime, make_trainjob, rjob
from trainc.config.settings import CompileSettings
from trainc.model.json import JsonObject, JsonValue
from trainc.model.labels import ANCESTOR_TRAINER
from trainc.plugins.registry import PLUGINS
from trainc.resolve.context import Resolution
from trainc.resolve.framework import plan, run_phases
from trainc.resolve.job import resolve_job
from trainc.resolve.provenance import Written
from trainc.resolve.resolved import Claim, ResolvedJob

#: What the recording plugins saw, in order: (plugin, phase).
CALLS: list[tuple[str, str]] = []


@dataclass(frozen=True)
class Recording:
    """A plugin in every phase, recording each call."""

    label: str

    @property
    def name(self) -> str:
        return self.label

    def apply_trainjob(self, context: Resolution) -> None:
        CALLS.append((self.label, "apply_trainjob"))

    def enforce_ml_policy(self, context: Resolution) -> None:
        CALLS.append((self.label, "enforce_ml_policy"))

    def build(self, job: ResolvedJob) -> list[JsonObject]:
        """Never called while resolving: building is a stage of its own, after validation."""
        CALLS.append((self.label, "build"))
        return []

    def enforce_pod_group_policy(self, context: Resolution) -> None:
        CALLS.append((self.label, "enforce_pod_group_policy"))

    def pre_build_sync(self, context: Resolution) -> None:
        CALLS.append((self.label, "pre_build_sync"))

    def settle(self, context: Resolution) -> None:
        CALLS.append((self.label, "settle"))


@dataclass(frozen=True)
class SettleOnly:
    """A plugin in the Settle phase only."""

    @property
    def name(self) -> str:
        return "settle-only"

    def settle(self, context: Resolution) -> None:
        CALLS.append(("settle-only", "settle"))


def _start(**trainer: JsonValue) -> Resolution:
    runtime = make_runtime(
        ml_policy={"numNodes": 3},
        replicated_jobs=[rjob("helper", containers=["helper"]), rjob("node", ancestor="trainer")],
    )
    return start(make_trainjob("llm", namespace="team-a", trainer=trainer or None), runtime)


# --------------------------------------------------------------------------- phases


def test_phases_run_in_order_and_plugins_in_registry_order_within_each() -> None:
    CALLS.clear()
    run_phases(_start(), (Recording("a"), SettleOnly(), Recording("b")))

    phases = ["apply_trainjob", "enforce_ml_policy", "enforce_pod_group_policy", "pre_build_sync"]
    expected = [(label, phase) for phase in phases for label in ("a", "b")]
    expected += [("a", "settle"), ("settle-only", "settle"), ("b", "settle")]
    assert expected == CALLS


def test_settle_is_the_last_phase_of_the_registry() -> None:
    settling = [type(plugin).__name__ for plugin in PLUGINS if hasattr(plugin, "settle")]
    assert settling == [
        "JobSetPlugin",
        "KueuePlugin",
        "LifecyclePlugin",
        "TrainJobMetadataPlugin",
    ]
    assert not any(hasattr(plugin, "finalize") for plugin in PLUGINS)


def test_each_phase_lists_its_plugins_in_registry_order() -> None:
    phases = plan(PLUGINS)

    def names(members: tuple[object, ...]) -> list[str]:
        return [plugin.name for plugin in PLUGINS if plugin in members]

    assert names(phases.validate_runtime) == ["volumes"]
    assert names(phases.validate_used_runtime) == ["torch", "mpi", "flux"]
    assert names(phases.validate_trainjob) == ["torch", "mpi", "xgboost", "volcano", "volumes"]
    assert names(phases.validate_resolved) == ["torch", "kueue"]
    assert names(phases.build) == ["jobset", "mpi", "flux", "coscheduling", "volcano", "volumes"]


def test_without_plugins_resolution_is_the_joined_job() -> None:
    context = _start()
    resolved = run_phases(context, ())

    assert resolved.jobset_spec is context.jobset_spec
    assert resolved.jobset_spec == resolved.template
    assert resolved.findings == ()


def test_resolve_job_takes_the_settings_to_the_plugins() -> None:
    runtime = make_runtime("mpi", ml_policy={"numNodes": 1, "mpi": {}})
    trainjob = make_trainjob("llm", runtime="mpi")
    secret = CompileSettings(mpi_ssh_secret="keys")  # noqa: S106 - a Secret's name

    assert [
        f.code for f in resolve_job(trainjob, runtime, CompileSettings(), plugins=PLUGINS).findings
    ] == ["compile.mpi-ssh-secret"]
    assert resolve_job(trainjob, runtime, secret, plugins=PLUGINS).findings == ()


# --------------------------------------------------------------------------- freeze


def test_freeze_mirrors_the_resolution() -> None:
    context = _start(numNodes=5)
    resolved = frozen(context)

    assert resolved.trainjob is context.job.trainjob
    assert resolved.runtime is context.job.runtime
    assert resolved.spec is context.job.spec
    assert resolved.runtime_spec is context.job.runtime_spec
    assert resolved.template is context.job.template
    assert resolved.jobset_spec is context.jobset_spec
    assert resolved.jobset_metadata is context.jobset_metadata
    assert resolved.trace is context.trace
    assert (resolved.name, resolved.namespace) == ("llm", "team-a")
    assert resolved.extensions == ()
    assert resolved.claims == ()


def test_freeze_takes_the_counts_as_they_stand() -> None:
    context = _start()
    assert [(p.name, p.count) for p in frozen(context).pod_sets] == [("helper", 1), ("node", 3)]

    node = context.trainer_pod_set()
    assert node is not None
    node.count = 7
    node.count_origin = context.trainjob_at("spec", "trainer", "numNodes")
    resolved = frozen(context)
    node.count = 9  # later changes do not reach the frozen job

    (helper, trainer) = resolved.pod_sets
    assert (trainer.name, trainer.ancestor, trainer.count) == ("node", ANCESTOR_TRAINER, 7)
    assert trainer.count_origin == Written(context.job.trainjob, ("spec", "trainer", "numNodes"))
    assert helper.count == 1
    assert resolved.pod_count() == 8


def test_freeze_snapshots_findings_and_claims() -> None:
    context = _start()
    finding = context.job.trainjob.finding(("spec",), "compile.no-containers", "a finding")
    claim = Claim("cache", {"metadata": {"name": "cache"}, "spec": {}}, retain=False)
    context.findings.append(finding)
    context.claims.append(claim)
    resolved = frozen(context)
    context.findings.clear()
    context.claims.clear()

    assert resolved.findings == (finding,)
    assert resolved.claims == (claim,)


def test_the_origin_of_an_untraced_value_is_the_runtime_line() -> None:
    resolved = frozen(_start())

    assert resolved.origin(("replicatedJobs", 1, "name")) == Written(
        resolved.runtime, ("spec", "template", "spec", "replicatedJobs", 1, "name")
    )
