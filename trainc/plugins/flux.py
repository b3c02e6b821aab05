"""Flux: run the trainer inside a Flux Framework instance spanning the ``node`` pods.

Reproduces the structure Trainer's Flux plugin gives a JobSet (https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/flux/flux.go):
the trainer command becomes ``/bin/bash /etc/flux-config/entrypoint.sh
"<command and args>"`` with args cleared; the ``node`` job gets the ``flux-installer``
init container (image ``FLUX_VIEW_IMAGE`` from the trainer environment, else Trainer's
default), the ``flux-install``, ``spack-install`` and ``shared-memory`` emptyDirs, the
``<tj>-flux-entrypoint`` ConfigMap (mode 0755) and the CURVE certificate Secret (0400),
mounted as upstream mounts them. Validate: the ``node`` job must leave the name
``flux-installer`` to the plugin's init container (checked once per runtime a TrainJob
uses). Build: the ConfigMap ``<tj>-flux-entrypoint`` with ``entrypoint.sh`` and
``init.sh``, which start one Flux broker per ``node`` pod, sized by the final pod count.

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

The scripts: ``init.sh`` prepares Flux, ``entrypoint.sh`` runs it. Trainer's Flux plugin
ships its own templates
(https://github.com/kubeflow/trainer/tree/master/pkg/runtime/framework/plugins/flux); these
are trainc's, written from the Flux documentation (flux-start(1), flux-broker(1),
flux-config-bootstrap(5), flux-R(1)) to do the same job, and **they have not been exercised
on a live cluster yet**. The ``flux-installer`` init container runs ``init.sh`` from a
flux-view image, where spack installed Flux under ``/opt/views/._view/<hash>`` with links
into ``/opt/software``: it copies both into the shared ``/mnt/flux`` volume and writes the
broker configuration. The trainer container runs ``entrypoint.sh``, which restores
``/opt/software``, installs the CURVE certificate from the mounted Secret, describes the
node's resources (R) and starts one broker per pod; rank 0 runs the training command with
``flux run`` across all of them, the other ranks rejoin until rank 0 shuts the instance
down.

Everything variable (hosts, DNS domain, sizes, the user's settings) is fixed at compile
time and quoted for the shell or TOML, so identical input gives identical text.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from typing import Final

from trainc.checks.shared.template import containers, named, replicated_jobs
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, JsonValue, as_list, as_object, get_path
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
from trainc.plugins.shared.objects import manifest
from trainc.records import dataclass
from trainc.resolve.context import Resolution, container, pod_spec
from trainc.resolve.edits import append_items, upsert_volume_mounts, upsert_volumes
from trainc.resolve.endpoints import pod_hostnames, subdomain
from trainc.resolve.provenance import Origin
from trainc.resolve.resolved import ResolvedJob
from trainc.resolve.secrets import ProvisionedSecret
from trainc.resolve.trainer import gpus_per_node, trainer_container, trainer_node

XOBJ_FLUX_RESERVED_INIT_CONTAINER = Rule(
    "xobj.flux-reserved-init-container",
    Severity.ERROR,
    "the flux-installer init container is reserved",
)

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

    def validate_used_runtime(self, runtime: DefaultedObject) -> list[Diagnostic]:
        """The runtime's ``node`` job leaves the installer's name to the plugin."""
        return check_flux_init_containers(runtime)

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

    def build(self, job: ResolvedJob) -> list[JsonObject]:
        """The entrypoint ConfigMap; none unless the runtime is a Flux runtime."""
        policy = policy_of(job.runtime_spec)
        if policy is None:
            return []
        cluster = _cluster(job, policy)
        return [
            manifest(
                "v1",
                "ConfigMap",
                config_map_name(job.name),
                job.namespace,
                data={"entrypoint.sh": entrypoint_script(cluster), "init.sh": init_script(cluster)},
            )
        ]


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


def _cluster(job: ResolvedJob, policy: FluxMLPolicySource) -> FluxCluster:
    """The instance: one broker per ``node`` pod, sized by the final pod count."""
    node = next((pod_set for pod_set in job.pod_sets if pod_set.name == NODE_JOB), None)
    hostnames = pod_hostnames(job.name, node) if node is not None else []
    trainer = job.spec.trainer
    tasks = trainer.num_proc_per_node if trainer is not None else None
    settings = flux_settings(trainer_node(job.spec, job.pod_sets, job.jobset_spec))
    return FluxCluster(
        hosts=hostlist(hostnames),
        leader=hostnames[0] if hostnames else f"{job.name}-{NODE_JOB}-0-0",
        domain=f"{subdomain(job.name, job.jobset_spec)}.{job.namespace}.svc.cluster.local",
        network_device=settings["FLUX_NETWORK_DEVICE"],
        queue_policy=settings["FLUX_QUEUE_POLICY"],
        nodes=len(hostnames),
        tasks_per_node=tasks or policy.num_proc_per_node or 1,
        gpus_per_node=gpus_per_node(job.spec, job.template),
    )


_BASE = "/mnt/flux"
_CONFIG = f"{_BASE}/config"
_PORT = 8050


@dataclass(frozen=True, slots=True, kw_only=True)
class FluxCluster:
    """What the scripts need to know about one TrainJob's Flux instance."""

    hosts: str
    """Hostlist of the broker pods in rank order, e.g. ``job-node-0-[0-3]``."""

    leader: str
    """Hostname of rank 0, which runs the command."""

    domain: str
    """DNS suffix that makes a pod hostname resolvable (``<subdomain>.<ns>.svc.cluster.local``)."""

    network_device: str
    """Interface the brokers listen on."""

    queue_policy: str
    """Fluxion's queue policy (``fcfs``, ``easy``, ...)."""

    nodes: int
    """Pods (brokers) in the instance."""

    tasks_per_node: int
    """Tasks ``flux run`` starts per node; also the cores R declares per node."""

    gpus_per_node: int
    """GPUs per node, declared in R and shared evenly among its tasks; 0 for none."""


def hostlist(hostnames: Sequence[str]) -> str:
    """RFC 29 hostlist of ``<prefix><index>`` names, order kept: ``a-0-[0-2,5]``."""
    groups: dict[str, list[int]] = {}
    for hostname in hostnames:
        prefix, _, index = hostname.rpartition("-")
        groups.setdefault(f"{prefix}-", []).append(int(index))
    return ",".join(f"{prefix}[{_ranges(indexes)}]" for prefix, indexes in groups.items())


def _ranges(indexes: list[int]) -> str:
    """``0-2,5`` for [0, 1, 2, 5]: consecutive runs collapsed, order kept."""
    runs: list[list[int]] = []
    for index in indexes:
        if runs and index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return ",".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def _toml(value: str) -> str:
    """A TOML basic string: JSON's escapes are a subset of TOML's."""
    return json.dumps(value)


def broker_config(cluster: FluxCluster) -> str:
    """``broker.toml``: bootstrap the instance from a static host list (flux-config-bootstrap)."""
    return "\n".join(
        [
            "[access]",
            "allow-guest-user = true",
            "allow-root-owner = true",
            "",
            "[bootstrap]",
            f"curve_cert = {_toml(f'{_CONFIG}/etc/curve/curve.cert')}",
            f"default_port = {_PORT}",
            f"default_bind = {_toml(f'tcp://{cluster.network_device}:%p')}",
            f"default_connect = {_toml(f'tcp://%h.{cluster.domain}:%p')}",
            f"hosts = [{{ host = {_toml(cluster.hosts)} }}]",
            "",
            "[resource]",
            f"path = {_toml(f'{_CONFIG}/etc/flux/system/R')}",
            "",
            "[sched-fluxion-qmanager]",
            f"queue-policy = {_toml(cluster.queue_policy)}",
            "",
        ]
    )


def init_script(cluster: FluxCluster) -> str:
    """``init.sh``, run by the ``flux-installer`` init container."""
    return "\n".join(
        [
            "#!/bin/bash",
            "# trainc's Flux setup, run by the flux-installer init container.",
            "# Written by trainc, not Trainer; not yet exercised on a live cluster.",
            "set -euo pipefail",
            f"config={_CONFIG}",
            'mkdir -p "$config/etc/flux/config" "$config/etc/flux/system" "$config/etc/curve" \\',
            f'  "$config/run/flux" "$config/var/lib/flux" {_BASE}/view',
            "cat > \"$config/etc/flux/config/broker.toml\" <<'TOML'",
            broker_config(cluster) + "TOML",
            "# spack installed Flux under /opt/views/._view/<hash>, linking into /opt/software:",
            "# copy both into the volume the trainer container mounts.",
            f"cp -R /opt/views/._view/*/. {_BASE}/view/",
            f"cp -R /opt/software {_BASE}/software",
            f'echo "Flux is ready in {_BASE}"',
            "",
        ]
    )


def entrypoint_script(cluster: FluxCluster) -> str:
    """``entrypoint.sh``, run by the trainer container with the original command as ``$1``."""
    resources = f"--cores={_ranges(list(range(cluster.tasks_per_node)))}"
    flags = f"-N {cluster.nodes} -n {cluster.nodes * cluster.tasks_per_node}"
    if cluster.gpus_per_node > 0:
        resources += f" --gpu={_ranges(list(range(cluster.gpus_per_node)))}"
    # flux run's -g is per task: share the node's GPUs among its tasks (upstream passes the
    # node's count, which asks for more GPUs than a node has once it runs several tasks).
    if gpus_per_task := cluster.gpus_per_node // max(cluster.tasks_per_node, 1):
        flags += f" -g {gpus_per_task}"
    broker_options = ",".join(
        [
            "--config-path=$config/etc/flux/config",
            "-Srundir=$config/run/flux",
            "-Sstatedir=$config/var/lib/flux",
            "-Slocal-uri=local://$config/run/flux/local",
        ]
    )
    return "\n".join(
        [
            "#!/bin/bash",
            "# trainc's Flux entrypoint: one broker per pod; rank 0 runs the command across",
            "# the instance. Written by trainc, not Trainer; not yet exercised on a live cluster.",
            "set -uo pipefail",
            f"config={_CONFIG}",
            f"view={_BASE}/view",
            'export PATH="$PATH:$view/bin"',
            'export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$view/lib"',
            'for site in "$view"/lib/python3*/site-packages; do',
            '  if [ -d "$site" ]; then export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$site"; fi',
            "done",
            "# The view links into /opt/software; restore it from the init container's copy.",
            f"cp -R {_BASE}/software/. /opt/software/",
            "# Flux rejects a CURVE certificate others can read; the Secret mount is read-only.",
            'cert="$config/etc/curve/curve.cert"',
            'rm -f "$cert" && cp /curve/curve.cert "$cert" && chmod 0400 "$cert"',
            f"flux R encode --hosts={shlex.quote(cluster.hosts)} {resources} \\",
            '  > "$config/etc/flux/system/R"',
            f'broker="{broker_options}"',
            f'if [ "$(hostname)" != {shlex.quote(cluster.leader)} ]; then',
            "  # Followers rejoin until rank 0 shuts the instance down cleanly.",
            '  until flux start --broker-opts="$broker"; do',
            '    echo "flux broker exited with status $?; retrying in 15s" >&2',
            "    sleep 15",
            "  done",
            "  exit 0",
            "fi",
            'if [ -z "$*" ]; then',
            "  # No command: keep the instance up for interactive use (flux proxy).",
            '  exec flux start --broker-opts="$broker" sleep infinity',
            "fi",
            "# The command arrives as one string; split it into words, without globbing.",
            "set -f",
            "# shellcheck disable=SC2048,SC2086",
            f'exec flux start --broker-opts="$broker" flux run {flags} $*',
            "",
        ]
    )


FLUX_INSTALLER = "flux-installer"


def check_flux_init_containers(runtime: DefaultedObject) -> list[Diagnostic]:
    """A Flux runtime's ``node`` job must leave the name ``flux-installer`` to the plugin."""
    if not isinstance(as_object(get_path(runtime.data, ("spec", "mlPolicy"))).get("flux"), dict):
        return []
    rjob = named(replicated_jobs(runtime.data), NODE_JOB)
    init_containers = containers(rjob, "initContainers") if rjob is not None else []
    return [
        runtime.finding(
            container.at("name"),
            XOBJ_FLUX_RESERVED_INIT_CONTAINER.code,
            f"InitContainer '{FLUX_INSTALLER}' is reserved: the Flux plugin adds its own to "
            f"replicatedJob {NODE_JOB!r}",
            hint="rename this init container",
        )
        for container in init_containers
        if container.name == FLUX_INSTALLER
    ]
