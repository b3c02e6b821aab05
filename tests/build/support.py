"""Helpers for resolution and compiler tests: resolutions of test jobs, lookups into JobSets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trainc.build.job import build_job
from trainc.config.settings import CompileSettings
from trainc.diagnostics import Diagnostic
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, JsonValue, as_list, as_object, get_path
from trainc.plugins.jax import JAXPlugin
from trainc.plugins.jobset import JobSetPlugin
from trainc.plugins.plainml import PlainMLPlugin
from trainc.plugins.registry import PLUGINS
from trainc.plugins.torch import TorchPlugin
from trainc.plugins.xgboost import XGBoostPlugin
from trainc.resolve.context import Resolution
from trainc.resolve.framework import freeze
from trainc.resolve.job import resolve_job
from trainc.resolve.job import start as start_resolution
from trainc.resolve.phases import Plugin
from trainc.resolve.resolved import ResolvedJob

#: Built objects as tests read them: plain JSON, indexed freely.
Obj = dict[str, Any]

#: The JobSet and framework plugins, in registry order, for tests that add one more plugin.
TRAINER_PLUGINS: tuple[Plugin, ...] = (
    JobSetPlugin(),
    TorchPlugin(),
    PlainMLPlugin(),
    JAXPlugin(),
    XGBoostPlugin(),
)

_SETTINGS = CompileSettings()


def start(
    trainjob: DefaultedObject, runtime: DefaultedObject, settings: CompileSettings = _SETTINGS
) -> Resolution:
    """A fresh resolution of ``trainjob`` on ``runtime``, before any plugin ran."""
    return start_resolution(trainjob, runtime, settings)


def frozen(context: Resolution) -> ResolvedJob:
    """The resolution as it stands, for a builder under test."""
    return freeze(context)


@dataclass(frozen=True)
class CompiledJob:
    """One TrainJob resolved and built: its objects, and what resolving it found."""

    resolved: ResolvedJob
    objects: tuple[JsonObject, ...]

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """What resolution found (building reports nothing)."""
        return self.resolved.findings


def compile_job(
    trainjob: DefaultedObject,
    runtime: DefaultedObject,
    settings: CompileSettings = _SETTINGS,
    plugins: Sequence[Plugin] = PLUGINS,
) -> CompiledJob:
    """Every object built for ``trainjob`` on ``runtime``, by all of trainc's plugins."""
    resolved = resolve_job(trainjob, runtime, settings, plugins=plugins)
    return CompiledJob(resolved, build_job(resolved).objects)


def jobset_of(objects: Sequence[JsonObject]) -> Obj:
    """The one JobSet among built objects."""
    (jobset,) = [o for o in objects if o.get("kind") == "JobSet"]
    return jobset


def rjob(spec: Mapping[str, Any], name: str) -> Obj:
    """replicatedJob ``name`` of a JobSet spec (or of a JobSet)."""
    jobs = spec["replicatedJobs"] if "replicatedJobs" in spec else spec["spec"]["replicatedJobs"]
    (job,) = [j for j in jobs if j.get("name") == name]
    return as_object(job)


def job_spec(spec: Mapping[str, Any], name: str) -> Obj:
    """The Job spec of replicatedJob ``name``."""
    return as_object(get_path(rjob(spec, name), ("template", "spec")))


def pod(spec: Mapping[str, Any], name: str) -> Obj:
    """The pod spec of replicatedJob ``name``."""
    return as_object(get_path(job_spec(spec, name), ("template", "spec")))


def container_of(
    spec: Mapping[str, Any], job: str = "node", name: str = "node", key: str = "containers"
) -> Obj:
    """Container ``name`` (or init container, with ``key``) of replicatedJob ``job``."""
    (found,) = [c for c in as_list(pod(spec, job).get(key)) if as_object(c).get("name") == name]
    return as_object(found)


def env(target: Mapping[str, Any]) -> dict[str, JsonValue]:
    """A container's environment as name → value (or its ``valueFrom``)."""
    return {
        str(entry["name"]): entry.get("value", entry.get("valueFrom"))
        for entry in map(as_object, as_list(target.get("env")))
    }


def env_names(target: Mapping[str, Any]) -> list[str]:
    """A container's environment variable names, in order."""
    return [str(as_object(entry).get("name")) for entry in as_list(target.get("env"))]
