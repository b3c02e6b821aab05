"""Flux: run the trainer inside a Flux Framework instance spanning the ``node`` pods.

Reproduces the structure Trainer's Flux plugin gives a JobSet (``upstream-semantics.md``
§2.10): the trainer command becomes ``/bin/bash /etc/flux-config/entrypoint.sh
"<command and args>"`` with args cleared; the ``node`` job gets the ``flux-installer``
init container (image ``FLUX_VIEW_IMAGE`` from the trainer environment, else Trainer's
default), the ``flux-install``, ``spack-install`` and ``shared-memory`` emptyDirs, the
``<tj>-flux-entrypoint`` ConfigMap (mode 0755) and the CURVE certificate Secret (0400),
mounted as upstream mounts them; the build emits that ConfigMap with ``entrypoint.sh``
and ``init.sh``. The scripts are trainc's own (:mod:`trainc.build.fluxscripts`), not
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

from trainc.build.context import BuildContext, container, pod_spec
from trainc.build.endpoints import pod_hostnames, subdomain
from trainc.build.fluxscripts import FluxCluster, entrypoint_script, hostlist, init_script
from trainc.build.k8s import manifest, upsert_volume_mounts, upsert_volumes
from trainc.build.secrets import ProvisionedSecret
from trainc.build.trainer import node_resources, trainer_container
from trainc.model.json import JsonObject, as_list, as_object
from trainc.model.labels import (
    ANCESTOR_TRAINER,
    FLUX_CURVE_SECRET_ANNOTATION,
    FLUX_INSTALLER_IMAGE,
    FLUX_VIEW_IMAGE_ENV,
    NODE_CONTAINER,
    NODE_JOB,
)
from trainc.model.mlpolicy import FluxMLPolicySource
from trainc.resolve.resources import gpu_count

_INSTALLER = "flux-installer"
_CONFIG_DIR = "/etc/flux-config"
_DEFAULTS = {
    FLUX_VIEW_IMAGE_ENV: FLUX_INSTALLER_IMAGE,
    "FLUX_NETWORK_DEVICE": "eth0",
    "FLUX_QUEUE_POLICY": "fcfs",
}
_CONFIG_MAP_MODE, _CURVE_MODE = 0o755, 0o400

CURVE_SECRET = ProvisionedSecret(
    annotation=FLUX_CURVE_SECRET_ANNOTATION,
    setting="compile.flux.curveSecret",
    code="compile.flux-curve-secret",
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

    def enforce_ml_policy(self, context: BuildContext) -> None:
        """Wrap the trainer command; add the installer, volumes and mounts to ``node``."""
        if _policy(context) is None:
            return
        for job in context.jobs_with_ancestor(ANCESTOR_TRAINER):
            main = container(pod_spec(job), NODE_CONTAINER)
            if main is not None:
                _wrap_command(main)
        node_job = context.replicated_job(NODE_JOB)
        if node_job is None:
            return
        curve = CURVE_SECRET.name(context, context.settings.flux_curve_secret)
        # Upstream's per-job name stands in when none is configured: the build fails on
        # the diagnostic anyway, and the JobSet stays a valid object meanwhile.
        pod = pod_spec(node_job)
        entrypoint = _config_map_name(context)
        upsert_volumes(pod, _volumes(entrypoint, curve or f"{context.job.name}-flux-curve"))
        pod["initContainers"] = [
            *as_list(pod.get("initContainers")),
            _installer(entrypoint, _settings(context)[FLUX_VIEW_IMAGE_ENV]),
        ]
        main = container(pod, NODE_CONTAINER)
        if main is not None:
            upsert_volume_mounts(main, _mounts(entrypoint))

    def build(self, context: BuildContext) -> list[JsonObject]:
        """The ConfigMap ``<tj>-flux-entrypoint`` with ``entrypoint.sh`` and ``init.sh``."""
        policy = _policy(context)
        if policy is None:
            return []
        cluster = _cluster(context, policy)
        return [
            manifest(
                "v1",
                "ConfigMap",
                _config_map_name(context),
                context.job.namespace,
                data={"entrypoint.sh": entrypoint_script(cluster), "init.sh": init_script(cluster)},
            )
        ]


def _policy(context: BuildContext) -> FluxMLPolicySource | None:
    ml_policy = context.job.runtime_spec.ml_policy
    return ml_policy.flux if ml_policy is not None else None


def _config_map_name(context: BuildContext) -> str:
    return f"{context.job.name}-flux-entrypoint"


def _settings(context: BuildContext) -> dict[str, str]:
    """Trainer's defaults, overridden by the trainer ``node`` container's env.

    That env is the runtime's with the TrainJob's upserted (ApplyTrainJob ran first), so
    the TrainJob wins, as upstream has it. Only literal values count; an empty one is
    ignored rather than producing an invalid image or bind address.
    """
    settings = dict(_DEFAULTS)
    main = trainer_container(context)
    for entry in as_list(main.get("env") if main is not None else None):
        name, value = as_object(entry).get("name"), as_object(entry).get("value")
        if isinstance(name, str) and name in settings and isinstance(value, str) and value:
            settings[name] = value
    return settings


def _wrap_command(main: JsonObject) -> None:
    """The command and args become one string handed to the entrypoint (§2.10)."""
    words = [*as_list(main.get("command")), *as_list(main.get("args"))]
    original = " ".join(str(word) for word in words).strip()
    main["command"] = ["/bin/bash", f"{_CONFIG_DIR}/entrypoint.sh", original]
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


def _cluster(context: BuildContext, policy: FluxMLPolicySource) -> FluxCluster:
    """The instance: one broker per ``node`` pod, sized by the final pod count."""
    node = context.pod_set(NODE_JOB)
    hostnames = pod_hostnames(context, node) if node is not None else []
    trainer = context.job.spec.trainer
    tasks = trainer.num_proc_per_node if trainer is not None else None
    settings = _settings(context)
    return FluxCluster(
        hosts=hostlist(hostnames),
        leader=hostnames[0] if hostnames else f"{context.job.name}-{NODE_JOB}-0-0",
        domain=f"{subdomain(context)}.{context.job.namespace}.svc.cluster.local",
        network_device=settings["FLUX_NETWORK_DEVICE"],
        queue_policy=settings["FLUX_QUEUE_POLICY"],
        nodes=len(hostnames),
        tasks_per_node=tasks or policy.num_proc_per_node or 1,
        gpus_per_node=gpu_count(node_resources(context)),
    )
