"""Flux: run the trainer inside a Flux Framework instance spanning the ``node`` pods.

Reproduces the structure Trainer's Flux plugin gives a JobSet (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/flux/flux.go):
the trainer command becomes ``/bin/bash /etc/flux-config/entrypoint.sh
"<command and args>"`` with args cleared; the ``node`` job gets the ``flux-installer``
init container (image ``FLUX_VIEW_IMAGE`` from the trainer environment, else Trainer's
default), the ``flux-install``, ``spack-install`` and ``shared-memory`` emptyDirs, the
``<tj>-flux-entrypoint`` ConfigMap (mode 0755) and the CURVE certificate Secret (0400),
mounted as upstream mounts them; the compiler emits that ConfigMap with ``entrypoint.sh``
and ``init.sh`` (:mod:`trainc.compiler.plugins.flux`). The scripts are trainc's own, not
exercised on a live cluster yet.

Deviations. Upstream derives the CURVE Secret ``<tj>-flux-curve`` from the TrainJob's
UID; trainc has no UID and never emits secret material, so the ``flux-curve`` volume
references a Secret (key ``curve.cert``) provisioned out of band, named by the runtime
annotation ``trainc.dev/flux-curve-secret`` or trainc.yaml's ``compile.flux.curveSecret``
(the annotation wins), else compiling fails with ``compile.flux-curve-secret``. The
broker addresses use the JobSet's subdomain (upstream assumes the TrainJob name). Upstream
mounts ``shared-memory`` read-only, which defeats a memory-backed ``/dev/shm``; trainc
mounts it writable. Runtime args, which upstream leaves beside the wrapped command where
the entrypoint appends them again, join the wrapped command instead: same process. The
instance spans the final ``node`` pod count (upstream dereferences ``trainer.numNodes``
and fails without it), and ``flux run -g`` shares a node's GPUs among its tasks
(upstream asks every task for all of them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from trainc.diagnostics import Rule, Severity
from trainc.model.json import JsonObject, JsonValue, as_list, as_object
from trainc.model.labels import (
    ANCESTOR_TRAINER,
    FLUX_CURVE_SECRET_ANNOTATION,
    FLUX_INSTALLER_IMAGE,
    FLUX_VIEW_IMAGE_ENV,
    NODE_CONTAINER,
    NODE_JOB,
)
from trainc.model.mlpolicy import FluxMLPolicySource
from trainc.model.runtime import TrainingRuntimeSpec
from trainc.resolve.context import Resolution, container, pod_spec
from trainc.resolve.edits import append_items, upsert_volume_mounts, upsert_volumes
from trainc.resolve.provenance import Origin
from trainc.resolve.secrets import ProvisionedSecret
from trainc.resolve.trainer import trainer_container

COMPILE_FLUX_CURVE_SECRET = Rule(
    "compile.flux-curve-secret",
    Severity.ERROR,
    "a Flux runtime names no valid CURVE certificate Secret, which trainc never generates",
    compiled=True,
)


_INSTALLER = "flux-installer"
_CONFIG_DIR = "/etc/flux-config"
_DEFAULTS: Final = {
    FLUX_VIEW_IMAGE_ENV: FLUX_INSTALLER_IMAGE,
    "FLUX_NETWORK_DEVICE": "eth0",
    "FLUX_QUEUE_POLICY": "fcfs",
}
_CONFIG_MAP_MODE, _CURVE_MODE = 0o755, 0o400

CURVE_SECRET = ProvisionedSecret(
    annotation=FLUX_CURVE_SECRET_ANNOTATION,
    setting="compile.flux.curveSecret",
    code=COMPILE_FLUX_CURVE_SECRET.code,
    policy=("spec", "mlPolicy", "flux"),
    contents="a Secret with key curve.cert, the ZeroMQ CURVE certificate Flux brokers share",
    generated="a CURVE key pair derived from the TrainJob's UID",
    provision=(
        "create it with `flux keygen curve.cert` and `kubectl create secret generic <name> "
        "--from-file=curve.cert` in each namespace, or with sealed-secrets or External Secrets"
    ),
)


@dataclass(frozen=True, slots=True)
class FluxPlugin:
    """Trainer's Flux plugin with trainc's scripts; a no-op unless ``mlPolicy.flux`` is set."""

    @property
    def name(self) -> str:
        """Upstream's name of the concern."""
        return "flux"

    def enforce_ml_policy(self, context: Resolution) -> None:
        """Wrap the trainer command; add the installer, volumes and mounts to ``node``."""
        if policy_of(context.job.runtime_spec) is None:
            return
        origin = context.derived(
            "flux", "Flux instance wiring", context.runtime_at("spec", "mlPolicy", "flux")
        )
        for job in context.jobs_with_ancestor(ANCESTOR_TRAINER):
            main = container(pod_spec(job), NODE_CONTAINER)
            if main is not None:
                _wrap_command(context, main, origin)
        node_job = context.replicated_job(NODE_JOB)
        if node_job is None:
            return
        curve = CURVE_SECRET.name(context, context.settings.flux_curve_secret)
        # Upstream's per-job name stands in when none is configured: validation fails on
        # the finding anyway, and the JobSet stays a valid object meanwhile.
        pod = pod_spec(node_job)
        entrypoint = config_map_name(context.job.name)
        volumes = _volumes(entrypoint, curve or f"{context.job.name}-flux-curve")
        upsert_volumes(context.trace, pod, volumes, origin)
        image = flux_settings(trainer_container(context))[FLUX_VIEW_IMAGE_ENV]
        append_items(context.trace, pod, "initContainers", [_installer(entrypoint, image)], origin)
        main = container(pod, NODE_CONTAINER)
        if main is not None:
            upsert_volume_mounts(context.trace, main, _mounts(entrypoint), origin)


def policy_of(runtime_spec: TrainingRuntimeSpec) -> FluxMLPolicySource | None:
    """The runtime's ``mlPolicy.flux``, None when the runtime is not a Flux runtime."""
    ml_policy = runtime_spec.ml_policy
    return ml_policy.flux if ml_policy is not None else None


def config_map_name(name: str) -> str:
    """The entrypoint ConfigMap of TrainJob ``name``: ``<tj>-flux-entrypoint``."""
    return f"{name}-flux-entrypoint"


def flux_settings(main: JsonObject | None) -> dict[str, str]:
    """Trainer's defaults, overridden by the trainer ``node`` container's env.

    That env is the runtime's with the TrainJob's upserted (the PlainML plugin runs before
    Flux), so the TrainJob wins, as upstream has it. Only literal values count; an empty one is
    ignored rather than producing an invalid image or bind address.
    """
    settings = dict(_DEFAULTS)
    for entry in as_list(main.get("env") if main is not None else None):
        name, value = as_object(entry).get("name"), as_object(entry).get("value")
        if isinstance(name, str) and name in settings and isinstance(value, str) and value:
            settings[name] = value
    return settings


def _wrap_command(context: Resolution, main: JsonObject, origin: Origin) -> None:
    """The command and args become one string handed to the entrypoint, as upstream's."""
    words = [*as_list(main.get("command")), *as_list(main.get("args"))]
    original = " ".join(str(word) for word in words).strip()
    command: list[JsonValue] = ["/bin/bash", f"{_CONFIG_DIR}/entrypoint.sh", original]
    context.trace.put(main, "command", command, origin)
    main.pop("args", None)


def _volumes(entrypoint: str, curve: str) -> list[JsonObject]:
    return [
        {"name": "spack-install", "emptyDir": {}},
        {"name": "flux-install", "emptyDir": {}},
        {"name": entrypoint, "configMap": {"name": entrypoint, "defaultMode": _CONFIG_MAP_MODE}},
        {"name": "shared-memory", "emptyDir": {"medium": "Memory"}},
        {"name": "flux-curve", "secret": {"secretName": curve, "defaultMode": _CURVE_MODE}},
    ]


def _installer(entrypoint: str, image: str) -> JsonObject:
    return {
        "name": _INSTALLER,
        "image": image,
        "command": ["/bin/bash", f"{_CONFIG_DIR}/init.sh"],
        "volumeMounts": [
            {"name": "flux-install", "mountPath": "/mnt/flux"},
            {"name": entrypoint, "mountPath": _CONFIG_DIR, "readOnly": True},
        ],
    }


def _mounts(entrypoint: str) -> list[JsonObject]:
    return [
        {"name": "flux-install", "mountPath": "/mnt/flux"},
        {"name": "spack-install", "mountPath": "/opt/software"},
        {"name": entrypoint, "mountPath": _CONFIG_DIR, "readOnly": True},
        {"name": "flux-curve", "mountPath": "/curve", "readOnly": True},
        {"name": "shared-memory", "mountPath": "/dev/shm"},  # noqa: S108 - a mount path, not a temp file
    ]
