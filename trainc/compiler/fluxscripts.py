"""The two scripts of a Flux TrainJob: ``init.sh`` prepares Flux, ``entrypoint.sh`` runs it.

Trainer's Flux plugin ships its own templates
(https://github.com/kubeflow/trainer/tree/master/pkg/runtime/framework/plugins/flux); these
are trainc's, written from the Flux documentation (flux-start(1), flux-broker(1),
flux-config-bootstrap(5), flux-R(1)) to do the same job, and **they have not been
exercised on a live cluster yet**. The ``flux-installer`` init container runs
``init.sh`` from a flux-view image, where spack installed Flux under
``/opt/views/._view/<hash>`` with links into ``/opt/software``: it copies both into the
shared ``/mnt/flux`` volume and writes the broker configuration. The trainer container
runs ``entrypoint.sh``, which restores ``/opt/software``, installs the CURVE certificate
from the mounted Secret, describes the node's resources (R) and starts one broker per
pod; rank 0 runs the training command with ``flux run`` across all of them, the other
ranks rejoin until rank 0 shuts the instance down.

Everything variable (hosts, DNS domain, sizes, the user's settings) is fixed at compile
time and quoted for the shell or TOML, so identical input gives identical text.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

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
