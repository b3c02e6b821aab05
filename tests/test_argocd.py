"""The Argo CD plugin: deploy/argocd run as the CMP sidecar runs it, and the inputs it reads.

The generate command is taken from ``deploy/argocd/plugin.yaml`` and run the way
argocd-cmp-server runs it (``docs/upstream.md``, "Delivery: Argo CD, Flux, pre-commit"): no
shell, in the Application's
source directory, stdin not a terminal, with the sidecar's own environment plus the build
environment, ``ARGOCD_ENV_*`` for ``spec.source.plugin.env`` and ``PARAM_*`` for its
parameters (empty values are never passed).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.argocd import argocd_overrides
from trainc.cache.location import CACHE_DIR_VARIABLE, NO_CACHE_VARIABLE
from trainc.cache.store import LAYOUT, Store
from trainc.config.file import CONFIG_FILE_NAME
from trainc.config.settings import PLACEHOLDER_IMAGE_REPOSITORY, Overrides
from trainc.errors import UsageError

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy" / "argocd"
EXAMPLES = ROOT / "examples"

#: What the repo server sends for every Application (reposerver ``newEnv`` + ``KUBE_*``).
BUILD_ENVIRONMENT = {
    "ARGOCD_APP_NAME": "training",
    "ARGOCD_APP_NAMESPACE": "ml-prod",
    "ARGOCD_APP_PROJECT_NAME": "default",
    "ARGOCD_APP_REVISION": "f913b6cbf58aa5ae5ca1f8a2b149477aebcbd9d8",
    "ARGOCD_APP_REVISION_SHORT": "f913b6c",
    "ARGOCD_APP_REVISION_SHORT_8": "f913b6cb",
    "ARGOCD_APP_SOURCE_PATH": "ml/training",
    "ARGOCD_APP_SOURCE_REPO_URL": "https://git.example.com/ml/training.git",
    "ARGOCD_APP_SOURCE_TARGET_REVISION": "main",
    # Argo CD drops the `+` of a cluster's v1.29.3+k3s1.
    "KUBE_VERSION": "v1.29.3k3s1",
    "KUBE_API_VERSIONS": "v1,apps/v1,batch/v1,jobset.x-k8s.io/v1alpha2",
}


def load(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


PLUGIN = load(DEPLOY / "plugin.yaml")


def sidecar_environment(
    *, env: dict[str, str] | None = None, parameters: dict[str, str] | None = None, **build: str
) -> dict[str, str]:
    """The environment argocd-cmp-server gives its commands for one Application.

    The sidecar's own variables (this process's, less anything Argo-like from the
    developer's shell, with this interpreter's scripts first on PATH), the build
    environment with ``build`` over it, ``spec.source.plugin.env`` as ``ARGOCD_ENV_*``,
    and string ``parameters`` as JSON and ``PARAM_*``; empty values dropped.
    """
    own = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("ARGOCD_", "PARAM_", "KUBE_"))
    }
    own["PATH"] = os.pathsep.join((str(Path(sys.executable).parent), own.get("PATH", "")))
    application = {f"ARGOCD_ENV_{name}": value for name, value in (env or {}).items()}
    params = [{"name": name, "string": value} for name, value in (parameters or {}).items()]
    application["ARGOCD_APP_PARAMETERS"] = json.dumps(params)
    for name, value in (parameters or {}).items():
        application["PARAM_" + re.sub("[^A-Z0-9_]", "_", name.upper())] = value
    wanted = {**BUILD_ENVIRONMENT, **build, **application}
    return {**own, **{name: value for name, value in wanted.items() if value}}


def generate(app: Path, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """plugin.yaml's generate command, exactly as the CMP server runs it."""
    spec = PLUGIN["spec"]["generate"]
    return subprocess.run(
        [*spec["command"], *spec.get("args", [])],
        cwd=app,
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def kubernetes_objects(stream: str) -> list[dict[str, Any]]:
    """The documents of a YAML stream, each checked to be a Kubernetes object."""
    documents = list(YAML(typ="safe").load_all(stream))
    for document in documents:
        assert isinstance(document, dict), document
        assert isinstance(document.get("apiVersion"), str), document
        assert isinstance(document.get("kind"), str), document
        assert isinstance(document["metadata"]["name"], str), document
    return documents


def identity(obj: dict[str, Any]) -> tuple[str, str, str]:
    metadata = obj["metadata"]
    return obj["kind"], metadata.get("namespace", ""), metadata["name"]


def discovers(app: Path) -> bool:
    """plugin.yaml's discover rule applied to ``app`` as Argo CD applies it.

    ``fileName`` is a ``filepath.Glob`` pattern and ``find.glob`` a ``**`` glob, both
    joined to the Application's source directory; a match is any path they name.
    """
    rule = PLUGIN["spec"]["discover"]
    pattern = rule["fileName"] if "fileName" in rule else rule["find"]["glob"]
    return any(app.glob(pattern))


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    """The example repository as the sidecar receives it: a copy, rendered/ included."""
    return Path(shutil.copytree(EXAMPLES, tmp_path / "training"))


def test_generate_streams_what_ci_renders_and_logs_only_to_stderr(examples: Path) -> None:
    result = generate(examples, sidecar_environment())
    assert result.returncode == 0, result.stderr
    committed = [
        document
        for path in sorted((EXAMPLES / "rendered").rglob("*.yaml"))
        if path.name != "kustomization.yaml"
        for document in YAML(typ="safe").load_all(path.read_text(encoding="utf-8"))
    ]
    # trainc.yaml's namespace and kubernetesVersion win over the destination's.
    assert sorted(kubernetes_objects(result.stdout), key=identity) == sorted(
        committed, key=identity
    )
    assert result.stderr.strip(), "the report goes to stderr"
    assert "\x1b[" not in result.stderr


@pytest.mark.parametrize(
    ("breakage", "code", "reported"),
    [
        ("job", 1, "error[cel.trainjob.name-format]"),
        ("config", 1, "trainc.yaml"),
        ("env", 2, "PARAM_ENV staging: no such environment"),
        ("namespace", 2, "PARAM_NAMESPACE='ML_Prod' is not a namespace name"),
    ],
)
def test_a_failure_exits_non_zero_with_nothing_on_stdout(
    examples: Path, breakage: str, code: int, reported: str
) -> None:
    parameters = {}
    if breakage == "job":
        write(examples, "jobs/broken.yaml", trainjob_yaml("Broken", runtime="torch-distributed"))
    elif breakage == "config":
        write(examples, CONFIG_FILE_NAME, "namespace: [unclosed\n")
    else:
        parameters = {breakage: {"env": "staging", "namespace": "ML_Prod"}[breakage]}
    result = generate(examples, sidecar_environment(parameters=parameters))
    assert result.returncode == code
    # Empty stdout with exit 0 would be an empty application, and auto-prune would act.
    assert result.stdout == ""
    assert reported in result.stderr


TEMPLATED_REPO = {
    CONFIG_FILE_NAME: """\
values:
  registry: registry.example.com
environments:
  prod:
    values:
      registry: registry.prod.example.com
""",
    "runtime.yaml": TORCH_RUNTIME,
    "jobs/train.yaml.j2": """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: train
spec:
  runtimeRef:
    name: torch
  trainer:
    image: {{ registry }}/train:1.0
""",
}


@pytest.fixture
def templated(tmp_path: Path) -> Path:
    """An Application whose trainc.yaml sets no namespace and has a `prod` environment."""
    for name, text in TEMPLATED_REPO.items():
        write(tmp_path, name, text)
    return tmp_path


def placement(result: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    """(namespace, image) of the one JobSet generated."""
    assert result.returncode == 0, result.stderr
    (jobset,) = [obj for obj in kubernetes_objects(result.stdout) if obj["kind"] == "JobSet"]
    pod = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    return jobset["metadata"]["namespace"], pod["containers"][0]["image"]


@pytest.mark.parametrize(
    ("application", "expected"),
    [
        # Nothing chosen: the destination namespace, trainc.yaml's top-level values.
        ({}, ("ml-prod", "registry.example.com/train:1.0")),
        ({"parameters": {"env": "prod"}}, ("ml-prod", "registry.prod.example.com/train:1.0")),
        ({"env": {"TRAINC_ENV": "prod"}}, ("ml-prod", "registry.prod.example.com/train:1.0")),
        # The parameter wins over the plugin env (which names no environment at all).
        (
            {"parameters": {"env": "prod"}, "env": {"TRAINC_ENV": "staging"}},
            ("ml-prod", "registry.prod.example.com/train:1.0"),
        ),
        ({"parameters": {"namespace": "research"}}, ("research", "registry.example.com/train:1.0")),
        ({"env": {"TRAINC_NAMESPACE": "research"}}, ("research", "registry.example.com/train:1.0")),
        # Without a destination namespace (ARGOCD_APP_NAMESPACE unset): `default`.
        ({"ARGOCD_APP_NAMESPACE": ""}, ("default", "registry.example.com/train:1.0")),
    ],
)
def test_parameters_and_plugin_env_choose_the_environment_and_namespace(
    templated: Path, application: dict[str, Any], expected: tuple[str, str]
) -> None:
    assert placement(generate(templated, sidecar_environment(**application))) == expected


def test_warnings_go_to_stderr_and_the_objects_still_to_stdout(templated: Path) -> None:
    write(templated, "jobs/deadline.yaml", trainjob_yaml("deadline", deadline=3600))
    result = generate(templated, sidecar_environment())
    assert result.returncode == 0, result.stderr
    # A deadline without a sweeper in trainc.yaml: nothing would enforce it.
    assert "warning[compile.no-sweeper]" in result.stderr
    assert {obj["metadata"]["name"] for obj in kubernetes_objects(result.stdout)} == {
        "deadline",
        "train",
    }


def test_trainc_yaml_namespace_wins_over_the_destination_with_a_warning(templated: Path) -> None:
    write(templated, CONFIG_FILE_NAME, "namespace: ml-team\n" + TEMPLATED_REPO[CONFIG_FILE_NAME])
    overridden = generate(templated, sidecar_environment())
    assert placement(overridden)[0] == "ml-team"
    assert "trainc.yaml:1:1: warning[config.namespace-overrides-destination]" in (overridden.stderr)
    assert "'ml-prod'" in overridden.stderr
    chosen = generate(templated, sidecar_environment(parameters={"namespace": "research"}))
    assert placement(chosen)[0] == "research"
    assert "config.namespace-overrides-destination" not in chosen.stderr


def test_validate_reads_the_same_inputs(templated: Path) -> None:
    result = subprocess.run(
        ["trainc", "validate"],
        cwd=templated,
        env=sidecar_environment(parameters={"env": "staging"}),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 2
    assert "PARAM_ENV staging" in result.stderr


def test_outside_argo_cd_nothing_is_read(templated: Path) -> None:
    stray = sidecar_environment(parameters={"env": "staging", "namespace": "Not_Valid"})
    del stray["ARGOCD_APP_NAME"]
    assert placement(generate(templated, stray)) == ("default", "registry.example.com/train:1.0")


def test_discover_matches_a_directory_with_trainc_yaml_only(examples: Path) -> None:
    assert discovers(examples)
    assert not discovers(examples / "jobs")
    assert not discovers(examples / "runtimes")


# --- The files in deploy/argocd ---------------------------------------------------------


def test_plugin_yaml_is_a_plugin_config_running_trainc_without_a_shell() -> None:
    assert PLUGIN["apiVersion"] == "argoproj.io/v1alpha1"
    assert PLUGIN["kind"] == "ConfigManagementPlugin"
    assert PLUGIN["metadata"]["name"] == "trainc"
    assert PLUGIN["spec"]["version"] == "v1"
    generate_spec = PLUGIN["spec"]["generate"]
    assert generate_spec["command"] == ["trainc", "compile", "-o", "-"]
    assert "args" not in generate_spec
    # Only the first of fileName, find.glob, find.command counts; trainc uses fileName.
    assert PLUGIN["spec"]["discover"] == {"fileName": CONFIG_FILE_NAME}
    assert "init" not in PLUGIN["spec"]


def test_announced_parameters_have_titles_tooltips_and_no_defaults() -> None:
    static = PLUGIN["spec"]["parameters"]["static"]
    assert [parameter["name"] for parameter in static] == ["env", "namespace"]
    for parameter in static:
        assert set(parameter) == {"name", "title", "tooltip"}
        # Each names its plugin env alternative, which trainc reads too (tested above).
        assert f"TRAINC_{parameter['name'].upper()}" in parameter["tooltip"]


def test_the_documented_application_uses_the_plugin_as_configured() -> None:
    guide = (ROOT / "docs" / "argocd.md").read_text(encoding="utf-8")
    (application,) = [
        document
        for block in re.findall(r"```yaml\n(.*?)```", guide, flags=re.DOTALL)
        if (document := YAML(typ="safe").load(block)).get("kind") == "Application"
    ]
    plugin = application["spec"]["source"]["plugin"]
    assert plugin["name"] == f"{PLUGIN['metadata']['name']}-{PLUGIN['spec']['version']}"
    announced = {parameter["name"] for parameter in PLUGIN["spec"]["parameters"]["static"]}
    assert {parameter["name"] for parameter in plugin["parameters"]} <= announced
    assert {entry["name"] for entry in plugin["env"]} <= {"TRAINC_ENV", "TRAINC_NAMESPACE"}


def sidecar(patch: Any) -> dict[str, Any]:
    (container,) = [
        c for c in patch["spec"]["template"]["spec"]["containers"] if c["name"] == "trainc"
    ]
    return container  # type: ignore[no-any-return]  # parsed YAML


def test_the_sidecar_patch_runs_the_cmp_server_as_argo_cd_requires() -> None:
    patch = load(DEPLOY / "repo-server-patch.yaml")
    assert (patch["apiVersion"], patch["kind"]) == ("apps/v1", "Deployment")
    assert patch["metadata"]["name"] == "argocd-repo-server"
    container = sidecar(patch)
    # The image's entrypoint is trainc: command replaces it, and no args drops its CMD.
    assert container["command"] == ["/var/run/argocd/argocd-cmp-server"]
    assert "args" not in container
    # The image the docs' kustomize `images:` entry renames to the one a team pushed.
    assert container["image"].rpartition(":")[0] == PLACEHOLDER_IMAGE_REPOSITORY
    security = container["securityContext"]
    assert (security["runAsUser"], security["runAsNonRoot"]) == (999, True)
    volumes = {volume["name"]: volume for volume in patch["spec"]["template"]["spec"]["volumes"]}
    mounts = {mount["mountPath"]: mount for mount in container["volumeMounts"]}
    assert mounts["/var/run/argocd"]["name"] == "var-files"
    assert mounts["/home/argocd/cmp-server/plugins"]["name"] == "plugins"
    config = mounts["/home/argocd/cmp-server/config/plugin.yaml"]
    assert config["subPath"] == "plugin.yaml"
    kustomization = load(DEPLOY / "kustomization.yaml")
    (generator,) = [
        generator
        for generator in kustomization["configMapGenerator"]
        if generator["name"] == "trainc-cmp-plugin"
    ]
    assert volumes[config["name"]]["configMap"]["name"] == generator["name"]
    assert generator["files"] == ["plugin.yaml"]
    scratch = mounts["/tmp"]["name"]  # noqa: S108 - the sidecar's mount path, not a file
    assert volumes[scratch] == {"name": scratch, "emptyDir": {}}
    assert kustomization["kind"] == "Component"
    assert kustomization["patches"] == [{"path": "repo-server-patch.yaml"}]


#: The parts of Argo CD's own argocd-repo-server Deployment that the patch relies on.
REPO_SERVER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: argocd-repo-server
spec:
  selector:
    matchLabels: {app.kubernetes.io/name: argocd-repo-server}
  template:
    metadata:
      labels: {app.kubernetes.io/name: argocd-repo-server}
    spec:
      containers:
        - name: argocd-repo-server
          image: quay.io/argoproj/argocd:latest
          volumeMounts:
            - {name: plugins, mountPath: /home/argocd/cmp-server/plugins}
      volumes:
        - {name: var-files, emptyDir: {}}
        - {name: plugins, emptyDir: {}}
"""


#: Argo CD's own argocd-cm (install.yaml has it), into which the component merges a key.
ARGOCD_CM = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  labels: {app.kubernetes.io/name: argocd-cm, app.kubernetes.io/part-of: argocd}
data:
  url: https://argocd.example.com
"""


def kustomize_with_argo_cd(tmp_path: Path) -> dict[str, dict[str, Any]]:
    """The component built over the parts of Argo CD's install it patches, by object name."""
    shutil.copytree(DEPLOY, tmp_path / "trainc")
    write(tmp_path, "argocd-cm.yaml", ARGOCD_CM)
    write(tmp_path, "repo-server.yaml", REPO_SERVER)
    write(
        tmp_path,
        "kustomization.yaml",
        "namespace: argocd\nresources: [argocd-cm.yaml, repo-server.yaml]\ncomponents: [trainc]\n",
    )
    return {obj["metadata"]["name"]: obj for obj in kubectl("kustomize", ".", cwd=tmp_path)}


def kubectl(*args: str, cwd: Path) -> list[dict[str, Any]]:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed")
    result = subprocess.run(
        ["kubectl", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return list(YAML(typ="safe").load_all(result.stdout))


def test_the_component_generates_the_config_map_the_sidecar_mounts(tmp_path: Path) -> None:
    objects = kustomize_with_argo_cd(tmp_path)
    deployment = objects.pop("argocd-repo-server")
    objects.pop("argocd-cm")
    (config_map,) = objects.values()
    assert config_map["data"] == {"plugin.yaml": (DEPLOY / "plugin.yaml").read_text("utf-8")}
    volumes = deployment["spec"]["template"]["spec"]["volumes"]
    # The name carries a content hash: a changed plugin.yaml rolls the repo server over.
    assert {"name": "trainc-cmp-plugin", "configMap": {"name": config_map["metadata"]["name"]}} in (
        volumes
    )
    assert config_map["metadata"]["name"].startswith("trainc-cmp-plugin-")
    assert sidecar(deployment)["command"] == ["/var/run/argocd/argocd-cmp-server"]
    assert [c["name"] for c in deployment["spec"]["template"]["spec"]["containers"]] == [
        "trainc",
        "argocd-repo-server",
    ]


def test_the_patch_applies_with_kubectl_patch(tmp_path: Path) -> None:
    write(tmp_path, "repo-server.yaml", REPO_SERVER)
    patch = str(DEPLOY / "repo-server-patch.yaml")
    (patched,) = kubectl(
        "patch",
        "-f",
        "repo-server.yaml",
        "--local",
        "--patch-file",
        patch,
        "-o",
        "yaml",
        cwd=tmp_path,
    )
    assert (
        sidecar(patched)["volumeMounts"]
        == sidecar(load(DEPLOY / "repo-server-patch.yaml"))["volumeMounts"]
    )
    names = [volume["name"] for volume in patched["spec"]["template"]["spec"]["volumes"]]
    assert sorted(names) == [
        "plugins",
        "trainc-cache",
        "trainc-cmp-plugin",
        "trainc-cmp-tmp",
        "var-files",
    ]


# --- The cache of the sidecar ------------------------------------------------------------


def cache_settings() -> tuple[PurePosixPath, PurePosixPath, dict[str, Any]]:
    """The sidecar's TRAINC_CACHE_DIR, the mount path of the volume holding it, and that
    volume, as repo-server-patch.yaml sets them."""
    patch = load(DEPLOY / "repo-server-patch.yaml")
    container = sidecar(patch)
    environment = {variable["name"]: variable["value"] for variable in container["env"]}
    cache_dir = PurePosixPath(environment[CACHE_DIR_VARIABLE])
    (mount,) = [
        mount for mount in container["volumeMounts"] if cache_dir.is_relative_to(mount["mountPath"])
    ]
    volumes = {volume["name"]: volume for volume in patch["spec"]["template"]["spec"]["volumes"]}
    return cache_dir, PurePosixPath(mount["mountPath"]), volumes[mount["name"]]


def test_the_sidecar_keeps_the_cache_on_a_bounded_volume_of_its_own() -> None:
    cache_dir, mount, volume = cache_settings()
    # A directory trainc creates below the mount, so that all of it is the sidecar
    # user's, whoever owns the volume's root.
    assert cache_dir.parent == mount
    # Not on the volumes the sidecar shares with the repo server, nor on its /tmp.
    assert volume["name"] not in {"var-files", "plugins", "trainc-cmp-tmp"}
    assert set(volume) == {"name", "emptyDir"}
    assert re.fullmatch(r"[1-9][0-9]*(Mi|Gi)", volume["emptyDir"]["sizeLimit"])
    environment = {v["name"] for v in sidecar(load(DEPLOY / "repo-server-patch.yaml"))["env"]}
    assert NO_CACHE_VARIABLE not in environment


def test_the_plugin_renders_the_same_with_the_cache_on_an_empty_dir(
    examples: Path, tmp_path: Path
) -> None:
    """The volume as the kubelet makes an emptyDir (world-writable), the sidecar's
    TRAINC_CACHE_DIR re-rooted onto it: trainc creates the cache directory and a private
    store in it, and renders, twice, what it renders without a cache."""
    cache_dir, mount, _ = cache_settings()
    volume = tmp_path / "volume"
    volume.mkdir()
    volume.chmod(0o777)
    local = volume / cache_dir.relative_to(mount)
    environment = {**sidecar_environment(), CACHE_DIR_VARIABLE: str(local)}
    environment.pop(NO_CACHE_VARIABLE, None)  # every test runs with it (tests/conftest.py)
    with_cache = environment
    shown = subprocess.run(
        ["trainc", "cache", "dir"], env=with_cache, capture_output=True, text=True, check=True
    )
    assert shown.stdout == f"{local}\n"
    store = Store.open(local)
    assert isinstance(store, Store), store
    assert (local / LAYOUT).stat().st_mode & 0o777 == 0o700
    without = generate(examples, {**sidecar_environment(), NO_CACHE_VARIABLE: "1"})
    assert without.returncode == 0, without.stderr
    for _ in range(2):
        cached = generate(examples, with_cache)
        assert (cached.returncode, cached.stdout) == (0, without.stdout), cached.stderr
    assert [path for path in (local / LAYOUT / "packs").rglob("*") if path.is_file()]


# --- The mapping itself (trainc.argocd) ---------------------------------------------------


def test_outside_argo_cd_the_mapping_is_empty() -> None:
    assert argocd_overrides({"PARAM_ENV": "prod", "KUBE_VERSION": "v1.29.0"}) == Overrides()


def test_every_input_and_its_precedence() -> None:
    environ = {
        "ARGOCD_APP_NAME": "training",
        "ARGOCD_APP_NAMESPACE": "ml-prod",
        "PARAM_ENV": "prod",
        "ARGOCD_ENV_TRAINC_ENV": "staging",
        "PARAM_NAMESPACE": "",
        "ARGOCD_ENV_TRAINC_NAMESPACE": "research",
        "KUBE_VERSION": "v1.30.2",
    }
    assert argocd_overrides(environ) == Overrides(
        environment="prod",
        environment_source="PARAM_ENV",
        namespace="research",
        default_namespace="ml-prod",
        kubernetes_version="1.30",
    )
    assert argocd_overrides({"ARGOCD_APP_NAME": "training"}) == Overrides()


@pytest.mark.parametrize(
    ("kube_version", "expected"),
    [
        ("v1.29.3+k3s1", "1.29"),
        ("v1.29.3k3s1", "1.29"),
        ("1.30.2", "1.30"),
        ("v1.31", "1.31"),
        # Outside the releases trainc models: judged by the nearest one.
        ("v1.28.15-gke.1020000", "1.29"),
        ("v1.310.0", "1.36"),
        ("v1.37.0", "1.36"),
        ("latest", None),
        ("v1", None),
    ],
)
def test_kube_version_gives_its_minor_version(kube_version: str, expected: str | None) -> None:
    environ = {"ARGOCD_APP_NAME": "training", "KUBE_VERSION": kube_version}
    assert argocd_overrides(environ).kubernetes_version == expected


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("PARAM_NAMESPACE", "ML"),
        ("ARGOCD_ENV_TRAINC_NAMESPACE", "team.a"),
        ("ARGOCD_APP_NAMESPACE", "n" * 64),
    ],
)
def test_a_namespace_the_api_server_would_reject_is_a_usage_error(
    variable: str, value: str
) -> None:
    with pytest.raises(UsageError, match=f"^{variable}="):
        argocd_overrides({"ARGOCD_APP_NAME": "training", variable: value})
