"""Runtime patches: upstream vectors T3-T5 and SMP semantics (``docs/upstream.md``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.builders import container, make_runtime, make_trainjob, rjob
from trainc.errors import CompilerBug
from trainc.model.json import as_list, get_path
from trainc.model.labels import ANCESTOR_LABEL
from trainc.model.schematree import load_kind_schema
from trainc.resolve.patches import PatchedTemplate, apply_runtime_patches

Doc = dict[str, Any]

SCHEMA = load_kind_schema("TrainingRuntime")
_POD_IN_JOBSET = ("replicatedJobs", 0, "template", "spec", "template", "spec")
_PVC: Doc = {"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}


def _mount(name: str, path: str) -> Doc:
    return {"name": name, "mountPath": path}


def _env(**values: str) -> list[Any]:
    return [{"name": name, "value": value} for name, value in values.items()]


def _names(items: Any, key: str = "name") -> list[Any]:
    return [item[key] for item in items]


def _merge_spec(original: Doc, patch: Doc) -> Doc:
    """The JobSet spec ``original`` with ``patch`` as a TrainJob's one runtime patch."""
    return apply_runtime_patches({"spec": original}, [{"template": {"spec": patch}}], SCHEMA).spec


def _in_job(pod: Doc) -> Doc:
    return {"replicatedJobs": [{"name": "job", "template": {"spec": {"template": {"spec": pod}}}}]}


def _merge(original: Doc, patch: Doc) -> Doc:
    """The pod spec ``original`` with ``patch``, each the pod of the same replicatedJob."""
    merged = get_path(_merge_spec(_in_job(original), _in_job(patch)), _POD_IN_JOBSET)
    assert isinstance(merged, dict)
    return merged


# --- upstream vectors ---------------------------------------------------------------------

_MOUNTS: dict[str, list[Any]] = {
    "dataset-initializer": [_mount("initializer", "/workspace/dataset")],
    "model-initializer": [_mount("initializer", "/workspace/model")],
    "node": [
        _mount("initializer", "/workspace/dataset"),
        _mount("initializer", "/workspace/model"),
    ],
}


def _base_runtime(pods: dict[str, Doc] | None = None) -> Doc:
    """``MakeTrainingRuntimeWrapper``'s JobSet template; ``pods`` sets pod-spec fields per job."""
    jobs: list[Any] = []
    for name, mounts in _MOUNTS.items():
        job: Doc = rjob(
            name,
            ancestor=name if name != "node" else "trainer",
            containers=[container(name, volumeMounts=mounts)],
            volumes=[_PVC],
            groupName="default",
        )
        job["template"]["spec"]["template"]["spec"].update(
            copy.deepcopy((pods or {}).get(name, {}))
        )
        jobs.append(job)
    runtime = make_runtime("test-runtime", kind="TrainingRuntime", replicated_jobs=jobs)
    data: Doc = runtime.data
    template: Doc = data["spec"]["template"]
    return template


def _patched(runtime_template: Doc, *patches: Doc) -> PatchedTemplate:
    """``patches`` as a defaulted TrainJob carries them, applied in order."""
    runtime_patches: list[Any] = [
        {"manager": f"test.io/manager-{index}", "trainingRuntimeSpec": patch}
        for index, patch in enumerate(patches, start=1)
    ]
    trainjob = make_trainjob("test-job", runtime="test-runtime", runtimePatches=runtime_patches)
    data: Doc = trainjob.data
    defaulted: list[Any] = data["spec"]["runtimePatches"]
    specs = [patch["trainingRuntimeSpec"] for patch in defaulted]
    return apply_runtime_patches(runtime_template, specs, SCHEMA)


def _job_patch(
    name: str,
    *,
    pod: Doc | None = None,
    job_metadata: Doc | None = None,
    pod_metadata: Doc | None = None,
) -> Doc:
    """A ``trainingRuntimeSpec`` that patches replicatedJob ``name``."""
    pod_template: Doc = {"spec": pod or {}}
    if pod_metadata is not None:
        pod_template["metadata"] = pod_metadata
    template: Doc = {"spec": {"template": pod_template}}
    if job_metadata is not None:
        template["metadata"] = job_metadata
    return {"template": {"spec": {"replicatedJobs": [{"name": name, "template": template}]}}}


def _job(patched: PatchedTemplate, name: str) -> Doc:
    (job,) = [
        job for job in as_list(patched.spec["replicatedJobs"]) if get_path(job, ("name",)) == name
    ]
    assert isinstance(job, dict)
    return job


def _pod(patched: PatchedTemplate, name: str) -> Doc:
    pod: Doc = _job(patched, name)["template"]["spec"]["template"]["spec"]
    return pod


_ZONES = {
    "key": "topology.kubernetes.io/zone",
    "operator": "In",
    "values": ["antarctica-east1", "antarctica-west1"],
}
_SCHEDULING: Doc = {
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [_ZONES]}]
            }
        }
    },
    "nodeSelector": {"node.kubernetes.io/instance-type": "p5.48xlarge"},
    "schedulingGates": [{"name": "kueue.x-k8s.io/admission"}],
    "tolerations": [{"key": "example.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
}


def _volumes_patch(container_name: str, prefix: str) -> Doc:
    """T3's pod-spec patch part: a secret and a claim, mounted into ``container_name``."""
    return {
        **copy.deepcopy(_SCHEDULING),
        "containers": [
            {
                "name": container_name,
                "volumeMounts": [
                    _mount(f"{prefix}_secret", f"{prefix}_secret_mount_path"),
                    _mount(f"{prefix}_claim", f"{prefix}_claim_mount_path"),
                ],
            }
        ],
        "volumes": [
            {"name": f"{prefix}_secret", "secret": {"secretName": f"{prefix}_secret_name"}},
            {
                "name": f"{prefix}_claim",
                "persistentVolumeClaim": {"claimName": f"{prefix}_claim_name"},
            },
        ],
    }


def test_t3_pod_spec_patches_from_two_managers_land_on_their_jobs() -> None:
    init: Doc = {"name": "override-init-container", "image": "init:1"}
    runtime = _base_runtime(
        {
            "dataset-initializer": {
                "initContainers": [
                    {**init, "env": _env(INIT_ENV="original_init", DATASET_PATH="runtime")}
                ]
            },
            "node": {
                "initContainers": [{**init, "env": _env(INIT_ENV="original_init")}],
                "containers": [
                    container("node", env=_env(TRAIN_JOB="original"), volumeMounts=_MOUNTS["node"]),
                    container("override-container", env=_env(CONTAINER_ENV="original_container")),
                ],
            },
        }
    )
    dataset_patch = _volumes_patch("dataset-initializer", "initializer")
    dataset_patch["initContainers"] = [
        {"name": init["name"], "env": _env(INIT_ENV="override_init", NEW_VALUE="from_overrides")}
    ]
    node_patch = _volumes_patch("node", "node")
    node_patch["containers"].append(
        {"name": "override-container", "env": _env(CONTAINER_ENV="override_container")}
    )
    node_patch.update(
        serviceAccountName="override-sa",
        initContainers=[{"name": init["name"], "env": _env(INIT_ENV="override_init")}],
        imagePullSecrets=[{"name": "registry-credential"}],
        terminationGracePeriodSeconds=300,
    )
    patched = _patched(
        runtime,
        _job_patch("dataset-initializer", pod=dataset_patch),
        _job_patch("node", pod=node_patch),
    )

    # Upstream compares env, volumes and mounts order-insensitively; trainc pins SMP's order.
    dataset = _pod(patched, "dataset-initializer")
    assert dataset["initContainers"][0]["env"] == _env(
        INIT_ENV="override_init", NEW_VALUE="from_overrides", DATASET_PATH="runtime"
    )
    assert _names(dataset["containers"][0]["volumeMounts"], "mountPath") == [
        "initializer_secret_mount_path",
        "initializer_claim_mount_path",
        "/workspace/dataset",
    ]
    assert _names(dataset["volumes"]) == ["initializer_secret", "initializer_claim", "initializer"]
    assert {key: dataset[key] for key in _SCHEDULING} == _SCHEDULING
    assert "serviceAccountName" not in dataset

    node = _pod(patched, "node")
    assert node["serviceAccountName"] == "override-sa"
    assert node["terminationGracePeriodSeconds"] == 300
    assert node["imagePullSecrets"] == [{"name": "registry-credential"}]
    assert node["initContainers"][0]["env"] == _env(INIT_ENV="override_init")
    assert node["containers"][0]["env"] == _env(TRAIN_JOB="original")
    assert node["containers"][1]["env"] == _env(CONTAINER_ENV="override_container")
    assert _names(node["containers"][0]["volumeMounts"], "mountPath") == [
        "node_secret_mount_path",
        "node_claim_mount_path",
        "/workspace/dataset",
        "/workspace/model",
    ]
    assert _names(node["volumes"]) == ["node_secret", "node_claim", "initializer"]
    assert {key: node[key] for key in _SCHEDULING} == _SCHEDULING

    assert set(_pod(patched, "model-initializer")) == {"containers", "volumes"}


def test_t4_job_and_pod_template_metadata_per_job() -> None:
    patched = _patched(
        _base_runtime(),
        _job_patch(
            "dataset-initializer",
            job_metadata={"labels": {"job-k1": "job-v1"}},
            pod_metadata={"labels": {"k1": "v1"}, "annotations": {"a1": "v1"}},
        ),
        _job_patch(
            "node",
            job_metadata={"labels": {"job-k2": "job-v2"}},
            pod_metadata={"labels": {"k2": "v2"}, "annotations": {"a2": "v2"}},
        ),
    )
    dataset, node = _job(patched, "dataset-initializer"), _job(patched, "node")
    assert dataset["template"]["metadata"]["labels"] == {
        ANCESTOR_LABEL: "dataset-initializer",
        "job-k1": "job-v1",
    }
    assert dataset["template"]["spec"]["template"]["metadata"] == {
        "labels": {"k1": "v1"},
        "annotations": {"a1": "v1"},
    }
    assert node["template"]["metadata"]["labels"] == {ANCESTOR_LABEL: "trainer", "job-k2": "job-v2"}
    assert node["template"]["spec"]["template"]["metadata"] == {
        "labels": {"k2": "v2"},
        "annotations": {"a2": "v2"},
    }
    assert "metadata" not in _job(patched, "model-initializer")["template"]["spec"]["template"]


_P5 = {"node.kubernetes.io/instance-type": "p5.48xlarge"}
_P5EN = {"node.kubernetes.io/instance-type": "p5en.48xlarge"}


@pytest.mark.parametrize(
    ("second", "expected"),
    [
        ({"serviceAccountName": "test-sa"}, {"nodeSelector": _P5, "serviceAccountName": "test-sa"}),
        ({"nodeSelector": _P5EN}, {"nodeSelector": _P5EN}),
    ],
    ids=["different-fields-both-land", "same-key-later-wins"],
)
def test_t5_patch_precedence(second: Doc, expected: Doc) -> None:
    patched = _patched(
        _base_runtime(),
        _job_patch("node", pod={"nodeSelector": _P5}),
        _job_patch("node", pod=second),
    )
    node = _pod(patched, "node")
    assert {key: node[key] for key in expected} == expected


# --- strategic merge patch semantics --------------------------------------------------------


def test_containers_merge_by_name_and_keep_unpatched_fields() -> None:
    original = {"containers": [container("a", args=["x"]), container("b")]}
    merged = _merge(original, {"containers": [{"name": "b", "args": ["y"]}]})
    assert merged["containers"] == [container("a", args=["x"]), container("b", args=["y"])]


@pytest.mark.parametrize(
    ("original", "patch", "expected"),
    [
        # A replaced item keeps its place and a new one follows it...
        ("AB", "BC", "ABC"),
        # ...but, as apimachinery's mergeSortedSlice orders them, a new item goes ahead of
        # the original-only items after it, so a patch of only new items puts them first.
        ("AB", "AC", "ACB"),
        ("AB", "C", "CAB"),
        # Patched items take the patch's order.
        ("ABC", "CA", "BCA"),
    ],
)
def test_env_merges_by_name_in_apimachinery_order(original: str, patch: str, expected: str) -> None:
    def pod(names: str, value: str) -> Doc:
        return {"containers": [{"name": "n", "env": [{"name": n, "value": value} for n in names]}]}

    env = _merge(pod(original, "old"), pod(patch, "new"))["containers"][0]["env"]
    assert env == [{"name": n, "value": "new" if n in patch else "old"} for n in expected]


def test_volume_mounts_merge_by_mount_path_not_name() -> None:
    original = {
        "containers": [{"name": "n", "volumeMounts": [_mount("data", "/a"), _mount("data", "/b")]}]
    }
    patch = {
        "containers": [{"name": "n", "volumeMounts": [_mount("other", "/b"), _mount("data", "/c")]}]
    }
    merged = _merge(original, patch)["containers"][0]["volumeMounts"]
    assert merged == [_mount("data", "/a"), _mount("other", "/b"), _mount("data", "/c")]


def test_ports_merge_by_container_port_alone() -> None:
    original = {
        "containers": [
            {"name": "n", "ports": [{"containerPort": 80, "protocol": "TCP", "name": "http"}]}
        ]
    }
    patch = {
        "containers": [
            {
                "name": "n",
                "ports": [{"containerPort": 80, "protocol": "UDP"}, {"containerPort": 81}],
            }
        ]
    }
    assert _merge(original, patch)["containers"][0]["ports"] == [
        {"containerPort": 80, "protocol": "UDP", "name": "http"},
        {"containerPort": 81},
    ]


def test_lists_without_a_patch_strategy_are_replaced_inside_merged_structs() -> None:
    def terms(zone: str) -> Doc:
        expression = {"key": "zone", "operator": "In", "values": [zone]}
        return {"nodeSelectorTerms": [{"matchExpressions": [expression]}]}

    preferred = [{"weight": 1, "preference": terms("a")["nodeSelectorTerms"][0]}]
    required = "requiredDuringSchedulingIgnoredDuringExecution"
    original = {
        "tolerations": [{"key": "a", "operator": "Exists"}],
        "affinity": {
            "nodeAffinity": {
                required: terms("a"),
                "preferredDuringSchedulingIgnoredDuringExecution": preferred,
            }
        },
    }
    patch = {"tolerations": [{"key": "b"}], "affinity": {"nodeAffinity": {required: terms("b")}}}
    merged = _merge(original, patch)
    assert merged["tolerations"] == [{"key": "b"}]
    assert merged["affinity"]["nodeAffinity"] == {
        required: terms("b"),
        "preferredDuringSchedulingIgnoredDuringExecution": preferred,
    }


def test_maps_merge_key_by_key_and_null_deletes() -> None:
    original = {
        "nodeSelector": {"a": "1", "b": "2"},
        "serviceAccountName": "sa",
        "hostNetwork": True,
    }
    patch = {"nodeSelector": {"a": None, "c": "3"}, "serviceAccountName": None, "priority": None}
    assert _merge(original, patch) == {"nodeSelector": {"b": "2", "c": "3"}, "hostNetwork": True}
    assert _merge({}, {"securityContext": {"runAsUser": 1, "runAsGroup": None}}) == {
        "securityContext": {"runAsUser": 1}
    }


def test_volumes_merge_by_name_and_retain_keys_needs_the_directive() -> None:
    secret = {"name": "initializer", "secret": {"secretName": "s"}}
    # Trainer's patches never carry $retainKeys, so both sources end up in one volume.
    assert _merge({"volumes": [_PVC]}, {"volumes": [secret]})["volumes"] == [{**_PVC, **secret}]
    retained = {**secret, "$retainKeys": ["name", "secret"]}
    assert _merge({"volumes": [_PVC]}, {"volumes": [retained]})["volumes"] == [secret]


def test_patch_directives_on_list_items_and_maps() -> None:
    original = {"containers": [container("a"), container("b"), container("c")]}
    deleted = _merge(original, {"containers": [{"name": "b", "$patch": "delete"}]})
    assert _names(deleted["containers"]) == ["a", "c"]
    replaced = _merge(original, {"containers": [{"$patch": "replace"}, container("z")]})
    assert replaced["containers"] == [container("z")]
    affinity: Doc = {"affinity": {"podAffinity": {}, "nodeAffinity": {}}}
    assert _merge(affinity, {"affinity": {"$patch": "replace", "podAntiAffinity": {}}}) == {
        "affinity": {"podAntiAffinity": {}}
    }
    assert _merge(affinity, {"affinity": {"$patch": "delete"}}) == {"affinity": {}}
    assert _merge({}, {"affinity": {"$patch": "delete"}}) == {}
    ordering = {
        "$setElementOrder/containers": [{"name": "c"}, {"name": "a"}],
        "containers": [{"name": "c"}],
    }
    assert _names(_merge(original, ordering)["containers"]) == ["a", "b", "c"]


def test_merge_lists_of_scalars_are_unions_in_apimachinery_order() -> None:
    def job(*finalizers: str) -> Doc:
        template = {"metadata": {"finalizers": list(finalizers)}}
        return {"replicatedJobs": [{"name": "job", "template": template}]}

    merged = _merge_spec(job("a", "b"), job("c", "a"))
    assert merged["replicatedJobs"][0]["template"]["metadata"]["finalizers"] == ["c", "a", "b"]


def test_fields_the_schema_does_not_know_are_replaced() -> None:
    assert _merge({"x-unknown": {"a": 1}}, {"x-unknown": {"b": 2}}) == {"x-unknown": {"b": 2}}


def test_replicated_jobs_keep_runtime_order_and_metadata_overlays_in_patch_order() -> None:
    runtime = _base_runtime()
    runtime["metadata"] = {"labels": {"conflictLabel": "runtime", "kept": "yes"}}
    reversed_jobs = [
        {"name": "node"},
        {"name": "model-initializer"},
        {"name": "dataset-initializer"},
    ]
    first = {"metadata": {"labels": {"conflictLabel": "first"}, "annotations": {"a": "first"}}}
    later = {
        "metadata": {"labels": {"conflictLabel": "override"}, "annotations": {"a": "override"}}
    }
    patched = _patched(
        runtime,
        {"template": {**first, "spec": {"replicatedJobs": reversed_jobs}}},
        {"template": later},
    )
    assert _names(patched.spec["replicatedJobs"]) == [
        "dataset-initializer",
        "model-initializer",
        "node",
    ]
    assert patched.metadata == {
        "labels": {"conflictLabel": "override", "kept": "yes"},
        "annotations": {"a": "override"},
    }
    assert apply_runtime_patches({}, [], SCHEMA) == PatchedTemplate(metadata={}, spec={})


def test_inputs_are_never_modified_nor_shared_with_the_result() -> None:
    runtime = _base_runtime()
    patch = _job_patch("node", pod={**_SCHEDULING, "volumes": [{"name": "v", "emptyDir": {}}]})
    before = copy.deepcopy((runtime, patch))
    patched = apply_runtime_patches(runtime, [patch], SCHEMA)
    assert (runtime, patch) == before
    _pod(patched, "node")["nodeSelector"]["extra"] = "x"
    _pod(patched, "node")["volumes"].clear()
    _pod(patched, "model-initializer")["containers"].clear()
    assert (runtime, patch) == before


def test_a_schema_without_a_jobset_template_is_a_compiler_bug() -> None:
    with pytest.raises(CompilerBug, match=r"TrainJob schema has no spec\.template\.spec"):
        apply_runtime_patches({}, [], load_kind_schema("TrainJob"))


# --- properties ----------------------------------------------------------------------------

_NAMES = st.sampled_from("abcd")
_TEXT = st.text(alphabet="xyz", max_size=3)


def _maps(required: dict[str, Any], **optional: Any) -> st.SearchStrategy[Doc]:
    return st.fixed_dictionaries(required, optional=optional)


def _keyed(items: st.SearchStrategy[Doc], key: str = "name") -> st.SearchStrategy[list[Doc]]:
    """Lists whose items have unique merge keys, as schema-valid list-maps do."""
    return st.lists(items, max_size=3, unique_by=lambda item: str(item[key]))


_CONTAINERS = _keyed(
    _maps(
        {"name": _NAMES},
        image=_TEXT,
        env=_keyed(_maps({"name": _NAMES, "value": _TEXT})),
        volumeMounts=_keyed(_maps({"name": _NAMES, "mountPath": _NAMES}), "mountPath"),
    )
)
_POD_SPECS = _maps(
    {},
    containers=_CONTAINERS,
    initContainers=_CONTAINERS,
    nodeSelector=st.dictionaries(_NAMES, _TEXT, max_size=3),
    tolerations=st.lists(_maps({"key": _NAMES}), max_size=2),
    serviceAccountName=_TEXT,
)
_JOBSET_SPECS = _maps(
    {},
    suspend=st.booleans(),
    replicatedJobs=_keyed(
        _maps(
            {"name": _NAMES},
            template=_maps({"spec": _maps({"template": _maps({"spec": _POD_SPECS})})}),
        )
    ),
)


@given(_JOBSET_SPECS)
def test_an_empty_patch_and_a_patch_with_itself_change_nothing(spec: Doc) -> None:
    assert _merge_spec(spec, {}) == spec
    assert _merge_spec(spec, copy.deepcopy(spec)) == spec


@given(_JOBSET_SPECS, _JOBSET_SPECS)
def test_merging_is_deterministic_and_leaves_its_inputs_alone(original: Doc, patch: Doc) -> None:
    before = copy.deepcopy((original, patch))
    merged = _merge_spec(original, patch)
    assert (original, patch) == before
    assert _merge_spec(original, patch) == merged
    jobs = {*_names(original.get("replicatedJobs", [])), *_names(patch.get("replicatedJobs", []))}
    assert set(_names(merged.get("replicatedJobs", []))) == jobs
