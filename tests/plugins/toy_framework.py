"""A small framework plugin, whole in one module: all that adding a framework to trainc takes.

The toy framework runs its trainer with the worker count its runtime announces in the
annotation ``toy.example.com/workers`` (an annotation, so that the test needs no new API
field; a real framework adds its ``mlPolicy`` source in :mod:`trainc.model`). Like
Trainer's ML plugins it has a part in each stage, and nothing outside this module knows it:

- validate: a TrainJob must leave ``TOY_WORKERS`` to the plugin, as Torch, MPI and
  XGBoost reserve their variables (``xobj.reserved-env``);
- enforce (``EnforceMLPolicy``): every trainer ``node`` container gets ``TOY_WORKERS``;
- build: a ConfigMap ``<tj>-toy`` holding the worker count.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, as_list, as_object, get_path
from trainc.model.labels import ANCESTOR_TRAINER, NODE_CONTAINER
from trainc.plugins.shared.objects import manifest
from trainc.resolve.context import Resolution, container, pod_spec
from trainc.resolve.edits import env_value, upsert_env
from trainc.resolve.resolved import ResolvedJob

TOY_ANNOTATION = "toy.example.com/workers"
TOY_ENV = "TOY_WORKERS"


@dataclass(frozen=True, slots=True)
class ToyPlugin:
    """The toy framework; a no-op on a runtime without its annotation."""

    @property
    def name(self) -> str:
        """The framework's name, in traces."""
        return "toy"

    def validate_trainjob(
        self, trainjob: DefaultedObject, runtime: DefaultedObject
    ) -> list[Diagnostic]:
        """``trainer.env`` may not set the variable the plugin sets."""
        if _workers(runtime) is None:
            return []
        env = as_list(get_path(trainjob.data, ("spec", "trainer", "env")))
        return [
            trainjob.finding(
                ("spec", "trainer", "env", index, "name"),
                "xobj.reserved-env",
                f"{TOY_ENV} is reserved for the toy runtime: the toy plugin sets it",
                hint="delete it",
            )
            for index, entry in enumerate(env)
            if as_object(entry).get("name") == TOY_ENV
        ]

    def enforce_ml_policy(self, context: Resolution) -> None:
        """Give every trainer ``node`` container the worker count."""
        workers = _workers(context.job.runtime)
        if workers is None:
            return
        cause = context.runtime_at("metadata", "annotations", TOY_ANNOTATION)
        origin = context.derived("toy", "the worker count of the runtime", cause)
        for job in context.jobs_with_ancestor(ANCESTOR_TRAINER):
            node = container(pod_spec(job), NODE_CONTAINER)
            if node is not None:
                upsert_env(context.trace, node, [env_value(TOY_ENV, workers)], origin)

    def build(self, job: ResolvedJob) -> list[JsonObject]:
        """The ConfigMap ``<tj>-toy`` with the worker count."""
        workers = _workers(job.runtime)
        if workers is None:
            return []
        return [
            manifest("v1", "ConfigMap", f"{job.name}-toy", job.namespace, data={"workers": workers})
        ]


def _workers(runtime: DefaultedObject) -> str | None:
    value = as_object(get_path(runtime.data, ("metadata", "annotations"))).get(TOY_ANNOTATION)
    return value if isinstance(value, str) else None
