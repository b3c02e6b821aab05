from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.build.support import (
    CompiledJob,
    Obj,
    compile_job,
    container_of,
    frozen,
    job_spec,
    jobset_of,
    pod,
    start,
)
from tests.support.builders import (
    container,
    defaulted,
    located,
    make_runtime,
    make_trainjob,
    objects_from_file,
    rjob,
)
from trainc.config.settings import CompileSettings
from trainc.diagnostics import Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import as_object
from trainc.model.labels import FLUX_CURVE_SECRET_ANNOTATION
from trainc.plugins.flux import (
    FluxCluster,
    FluxPlugin,
    broker_config,
    check_flux_init_containers,
    entrypoint_script,
    hostlist,
    init_script,
)
from trainc.plugins.jobset import JobSetPlugin
from trainc.plugins.plainml import PlainMLPlugin

PLUGIN = FluxPlugin()
#: Flux and what it relies on: the TrainJob's overrides applied first, PlainML's count.
PLUGINS = (JobSetPlugin(), PlainMLPlugin(), PLUGIN)
SETTINGS = CompileSettings(flux_curve_secret="flux-curve")  # noqa: S106 - a Secret name


def flux_runtime(
    *,
    node: Obj | None = None,
    num_proc_per_node: int | None = None,
    annotations: Obj | None = None,
    jobset: Obj | None = None,
) -> DefaultedObject:
    """flux-runtime.yaml's shape: one trainer ``node`` job on ubuntu."""
    flux: Obj = {} if num_proc_per_node is None else {"numProcPerNode": num_proc_per_node}
    runtime = make_runtime(
        "flux-distributed",
        ml_policy={"numNodes": 1, "flux": flux},
        replicated_jobs=[
            rjob("node", ancestor="trainer", containers=[container("node", **(node or {}))])
        ],
        jobset=jobset,
    )
    if annotations is not None:
        as_object(runtime.data["metadata"])["annotations"] = annotations
    return runtime


def flux_trainjob(**trainer: Any) -> DefaultedObject:
    return make_trainjob("lammps", namespace="hpc", runtime="flux-distributed", trainer=trainer)


def compiled(
    runtime: DefaultedObject, trainjob: DefaultedObject, settings: CompileSettings = SETTINGS
) -> CompiledJob:
    return compile_job(trainjob, runtime, settings, plugins=PLUGINS)


def spec_of(result: CompiledJob) -> Obj:
    return as_object(jobset_of(result.objects)["spec"])


def scripts(result: CompiledJob) -> dict[str, str]:
    (config_map,) = [o for o in result.objects if o["kind"] == "ConfigMap"]
    return {key: str(value) for key, value in as_object(config_map["data"]).items()}


def test_does_nothing_without_a_flux_policy() -> None:
    runtime = make_runtime(ml_policy={"numNodes": 2, "torch": {}})
    context = start(make_trainjob(trainer={"numNodes": 4}), runtime, SETTINGS)
    PLUGIN.enforce_ml_policy(context)
    assert context.jobset_spec == context.job.template
    assert FluxPlugin().build(frozen(context)) == []
    assert context.findings == []


def test_the_trainer_command_and_args_become_one_entrypoint_argument() -> None:
    runtime = flux_runtime(node={"command": ["lmp"], "args": ["-in", "in.reaxc.hns"]})
    main = container_of(spec_of(compiled(runtime, flux_trainjob(numNodes=2))))
    assert main["command"] == [
        "/bin/bash",
        "/etc/flux-config/entrypoint.sh",
        "lmp -in in.reaxc.hns",
    ]
    assert "args" not in main


def test_the_trainjob_command_and_args_win() -> None:
    runtime = flux_runtime(node={"command": ["lmp"], "args": ["-in", "in.reaxc.hns"]})
    trainjob = flux_trainjob(command=["python", "train.py"], args=["--epochs", "3"])
    main = container_of(spec_of(compiled(runtime, trainjob)))
    assert main["command"][2] == "python train.py --epochs 3"
    assert "args" not in main


def test_no_command_leaves_an_empty_argument_for_an_interactive_instance() -> None:
    spec = spec_of(compiled(flux_runtime(), flux_trainjob(numNodes=2)))
    assert container_of(spec)["command"] == [
        "/bin/bash",
        "/etc/flux-config/entrypoint.sh",
        "",
    ]


def test_node_gets_the_installer_volumes_and_mounts() -> None:
    spec = spec_of(compiled(flux_runtime(), flux_trainjob(numNodes=2)))
    assert pod(spec, "node")["volumes"] == [
        {"name": "spack-install", "emptyDir": {}},
        {"name": "flux-install", "emptyDir": {}},
        {
            "name": "lammps-flux-entrypoint",
            "configMap": {"name": "lammps-flux-entrypoint", "defaultMode": 0o755},
        },
        {"name": "shared-memory", "emptyDir": {"medium": "Memory"}},
        {"name": "flux-curve", "secret": {"secretName": "flux-curve", "defaultMode": 0o400}},
    ]
    assert pod(spec, "node")["initContainers"] == [
        {
            "name": "flux-installer",
            "image": "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy",
            "command": ["/bin/bash", "/etc/flux-config/init.sh"],
            "volumeMounts": [
                {"name": "flux-install", "mountPath": "/mnt/flux"},
                {
                    "name": "lammps-flux-entrypoint",
                    "mountPath": "/etc/flux-config",
                    "readOnly": True,
                },
            ],
        }
    ]
    assert container_of(spec)["volumeMounts"] == [
        {"name": "flux-install", "mountPath": "/mnt/flux"},
        {"name": "spack-install", "mountPath": "/opt/software"},
        {"name": "lammps-flux-entrypoint", "mountPath": "/etc/flux-config", "readOnly": True},
        {"name": "flux-curve", "mountPath": "/curve", "readOnly": True},
        {"name": "shared-memory", "mountPath": "/dev/shm"},  # noqa: S108 - a mount path
    ]


def test_the_installer_is_appended_after_the_runtime_init_containers() -> None:
    runtime = make_runtime(
        "flux-distributed",
        ml_policy={"flux": {}},
        replicated_jobs=[rjob("node", ancestor="trainer", init_containers=["setup"])],
    )
    names = [
        c["name"]
        for c in pod(spec_of(compiled(runtime, flux_trainjob())), "node")["initContainers"]
    ]
    assert names == ["setup", "flux-installer"]


@pytest.mark.parametrize(
    ("runtime_env", "trainjob_env", "image"),
    [
        ([], [], "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy"),
        ([{"name": "FLUX_VIEW_IMAGE", "value": "rocky:9"}], [], "rocky:9"),
        (
            [{"name": "FLUX_VIEW_IMAGE", "value": "rocky:9"}],
            [{"name": "FLUX_VIEW_IMAGE", "value": "noble"}],
            "noble",
        ),
        (
            [{"name": "FLUX_VIEW_IMAGE", "value": ""}],
            [],
            "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy",
        ),
    ],
)
def test_the_view_image_comes_from_the_trainer_environment(
    runtime_env: list[Obj], trainjob_env: list[Obj], image: str
) -> None:
    runtime = flux_runtime(node={"env": runtime_env} if runtime_env else None)
    spec = spec_of(compiled(runtime, flux_trainjob(env=trainjob_env)))
    assert pod(spec, "node")["initContainers"][0]["image"] == image


# ----------------------------------------------------------------------------- scripts


def test_scripts_describe_the_instance() -> None:
    runtime = flux_runtime(num_proc_per_node=2)
    built = scripts(compiled(runtime, flux_trainjob(numNodes=4, numProcPerNode=4)))
    assert sorted(built) == ["entrypoint.sh", "init.sh"]
    assert 'hosts = [{ host = "lammps-node-0-[0-3]" }]' in built["init.sh"]
    assert 'default_connect = "tcp://%h.lammps.hpc.svc.cluster.local:%p"' in built["init.sh"]
    assert "flux R encode --hosts='lammps-node-0-[0-3]' --cores=0-3 \\" in built["entrypoint.sh"]
    assert "flux run -N 4 -n 16 $*" in built["entrypoint.sh"]
    assert 'if [ "$(hostname)" != lammps-node-0-0 ]; then' in built["entrypoint.sh"]
    assert "not yet exercised on a live cluster" in built["entrypoint.sh"]


def test_runtime_tasks_per_node_apply_without_a_trainjob_value() -> None:
    result = compiled(flux_runtime(num_proc_per_node=3), flux_trainjob(numNodes=1))
    assert "flux run -N 1 -n 3 $*" in scripts(result)["entrypoint.sh"]


def test_gpus_are_declared_and_shared_among_tasks() -> None:
    resources = {"limits": {"nvidia.com/gpu": 4}}
    runtime = flux_runtime(node={"resources": resources})
    entrypoint = scripts(compiled(runtime, flux_trainjob(numProcPerNode=2)))["entrypoint.sh"]
    assert "--cores=0-1 --gpu=0-3 \\" in entrypoint
    assert "flux run -N 1 -n 2 -g 2 $*" in entrypoint


def test_the_broker_addresses_follow_a_custom_subdomain() -> None:
    runtime = flux_runtime(jobset={"network": {"subdomain": "mesh"}})
    assert (
        "tcp://%h.mesh.hpc.svc.cluster.local:%p"
        in scripts(compiled(runtime, flux_trainjob()))["init.sh"]
    )


def test_scripts_are_identical_for_identical_input() -> None:
    built = [scripts(compiled(flux_runtime(), flux_trainjob(numNodes=3))) for _ in range(3)]
    assert built[0] == built[1] == built[2]


@pytest.mark.parametrize(
    ("hostnames", "expected"),
    [
        ([], ""),
        (["j-node-0-0"], "j-node-0-[0]"),
        (["j-node-0-0", "j-node-0-1", "j-node-0-2"], "j-node-0-[0-2]"),
        (["j-node-0-0", "j-node-0-1", "j-node-0-3"], "j-node-0-[0-1,3]"),
        (["a-0-0", "b-0-0", "b-0-1"], "a-0-[0],b-0-[0-1]"),
    ],
)
def test_hostlist(hostnames: list[str], expected: str) -> None:
    assert hostlist(hostnames) == expected


def cluster(**fields: Any) -> FluxCluster:
    values: dict[str, Any] = {
        "hosts": "j-node-0-[0-1]",
        "leader": "j-node-0-0",
        "domain": "j.ns.svc.cluster.local",
        "network_device": "eth0",
        "queue_policy": "fcfs",
        "nodes": 2,
        "tasks_per_node": 1,
        "gpus_per_node": 0,
    }
    return FluxCluster(**{**values, **fields})


def test_user_settings_cannot_break_out_of_the_toml() -> None:
    hostile = cluster(queue_policy='fcfs"\n[exec]\nimp = "/bin/sh', network_device="eth0\\")
    parsed = tomllib.loads(broker_config(hostile))
    assert parsed["sched-fluxion-qmanager"]["queue-policy"] == 'fcfs"\n[exec]\nimp = "/bin/sh'
    assert parsed["bootstrap"]["default_bind"] == "tcp://eth0\\:%p"
    assert "exec" not in parsed
    # The heredoc delimiter cannot appear on a line of its own.
    assert "\nTOML\n" not in broker_config(cluster(queue_policy="x\nTOML\n"))


def test_broker_config_is_valid_toml() -> None:
    parsed = tomllib.loads(broker_config(cluster()))
    assert parsed["bootstrap"] == {
        "curve_cert": "/mnt/flux/config/etc/curve/curve.cert",
        "default_port": 8050,
        "default_bind": "tcp://eth0:%p",
        "default_connect": "tcp://%h.j.ns.svc.cluster.local:%p",
        "hosts": [{"host": "j-node-0-[0-1]"}],
    }
    assert parsed["resource"] == {"path": "/mnt/flux/config/etc/flux/system/R"}


@pytest.mark.parametrize("gpus", [0, 2])
def test_scripts_are_valid_bash(tmp_path: Path, gpus: int) -> None:
    for name, text in (
        ("init.sh", init_script(cluster(gpus_per_node=gpus))),
        ("entrypoint.sh", entrypoint_script(cluster(gpus_per_node=gpus))),
    ):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        subprocess.run(["bash", "-n", str(path)], check=True)
        if shutil.which("shellcheck"):
            subprocess.run(["shellcheck", str(path)], check=True)


# ----------------------------------------------------------------------------- CURVE Secret


def curve_secret_name(result: CompiledJob) -> object:
    volumes = pod(spec_of(result), "node")["volumes"]
    (volume,) = [v for v in volumes if v["name"] == "flux-curve"]
    return volume["secret"]["secretName"]


def test_the_runtime_annotation_names_the_curve_secret() -> None:
    runtime = flux_runtime(annotations={FLUX_CURVE_SECRET_ANNOTATION: "hpc-curve"})
    result = compiled(runtime, flux_trainjob())
    assert curve_secret_name(result) == "hpc-curve"
    assert result.diagnostics == ()


def test_without_a_curve_secret_the_build_fails() -> None:
    result = compiled(flux_runtime(), flux_trainjob(), CompileSettings())
    (finding,) = result.diagnostics
    assert (finding.code, finding.severity, finding.field_path) == (
        "compile.flux-curve-secret",
        Severity.ERROR,
        "spec.mlPolicy.flux",
    )
    assert "curve.cert" in finding.message
    assert finding.hint is not None
    assert "compile.flux.curveSecret" in finding.hint
    assert FLUX_CURVE_SECRET_ANNOTATION in finding.hint
    assert curve_secret_name(result) == "lammps-flux-curve"


def test_no_secret_is_ever_built() -> None:
    for settings in (SETTINGS, CompileSettings()):
        result = compiled(flux_runtime(), flux_trainjob(numNodes=2), settings)
        assert sorted(str(o["kind"]) for o in result.objects) == ["ConfigMap", "JobSet"]


# ----------------------------------------------------------------------------- upstream example


def test_the_upstream_flux_example_compiles(shared_dir: Path) -> None:
    examples = shared_dir / "upstream" / "trainer-examples"
    (runtime,) = objects_from_file(examples / "flux-runtime.yaml")
    (trainjob,) = objects_from_file(examples / "lammps-train-job.yaml")
    result = compiled(defaulted(runtime), defaulted(trainjob))
    assert result.diagnostics == ()
    spec = spec_of(result)
    assert container_of(spec)["command"] == [
        "/bin/bash",
        "/etc/flux-config/entrypoint.sh",
        "lmp -v x 4 -v y 4 -v z 4 -in in.reaxc.hns -nocite",
    ]
    assert container_of(spec)["image"] == "ghcr.io/converged-computing/metric-lammps:latest"
    assert pod(spec, "node")["initContainers"][0]["image"] == (
        "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy"
    )
    assert job_spec(spec, "node")["parallelism"] == 2
    built = scripts(result)
    assert "lammps-flux-node-0-[0-1]" in built["init.sh"]
    assert "flux run -N 2 -n 8 $*" in built["entrypoint.sh"]


FLUX_JOBS = [rjob("node", ancestor="trainer", init_containers=["flux-installer"])]


def test_flux_reserves_the_installer_init_container():
    runtime = make_runtime(ml_policy={"flux": {}}, replicated_jobs=FLUX_JOBS)

    findings = check_flux_init_containers(runtime)

    assert located(findings) == [
        (
            "xobj.flux-reserved-init-container",
            "spec.template.spec.replicatedJobs[0].template.spec.template.spec.initContainers[0].name",
        )
    ]
    assert findings[0].message.startswith("InitContainer 'flux-installer' is reserved")


def test_installer_name_is_free_without_flux():
    assert check_flux_init_containers(make_runtime(replicated_jobs=FLUX_JOBS)) == []
