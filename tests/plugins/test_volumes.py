"""VolumesPlugin: KEP-572 claim templates compiled into PVCs and explicit pod volumes."""

from __future__ import annotations

import copy
from collections.abc import Sequence

import pytest

from tests.build.support import TRAINER_PLUGINS, compile_job, frozen, jobset_of, pod, start
from tests.support.builders import container, located, make_runtime, make_trainjob, rjob
from trainc.config.settings import CompileSettings
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, JsonValue, as_list, as_object
from trainc.plugins.volumes import VolumesPlugin, check_volume_claim_names, check_volume_claims
from trainc.resolve.context import Resolution
from trainc.resolve.provenance import Derived

_CACHE_SPEC: JsonObject = {
    "accessModes": ["ReadWriteMany"],
    "resources": {"requests": {"storage": "50Gi"}},
    "storageClassName": "nfs",
}
_CHECKPOINT_SPEC: JsonObject = {
    "accessModes": ["ReadWriteOnce"],
    "resources": {"requests": {"storage": "200Gi"}},
}
_SCRATCH: JsonObject = {"name": "scratch", "emptyDir": {}}


def _mount(name: str, path: str) -> JsonValue:
    return [{"name": name, "mountPath": path}]


def _runtime(*, policies: list[JsonValue] | None = None) -> DefaultedObject:
    """KEP-572 story 1, split: ``cache`` is mounted only by the dataset initializer (by an
    init container), ``checkpoints`` only by the trainer; the model initializer mounts none.
    """
    return make_runtime(
        replicated_jobs=[
            rjob(
                "dataset-initializer",
                ancestor="dataset-initializer",
                containers=["dataset-initializer"],
                init_containers=[container("warm-cache", volumeMounts=_mount("cache", "/cache"))],
            ),
            rjob(
                "model-initializer", ancestor="model-initializer", containers=["model-initializer"]
            ),
            rjob(
                "node",
                ancestor="trainer",
                containers=[container("node", volumeMounts=_mount("checkpoints", "/ckpt"))],
                volumes=[_SCRATCH],
            ),
        ],
        jobset={"volumeClaimPolicies": policies if policies is not None else _policies()},
    )


def _policies() -> list[JsonValue]:
    return [
        {
            "templates": [
                {
                    "metadata": {
                        "name": "cache",
                        "labels": {"content-type": "dataset"},
                        "annotations": {"example.com/owner": "data-team"},
                    },
                    "spec": _CACHE_SPEC,
                }
            ]
        },
        {
            "templates": [{"metadata": {"name": "checkpoints"}, "spec": _CHECKPOINT_SPEC}],
            "retentionPolicy": {"whenDeleted": "Retain"},
        },
    ]


def _context(*, native: bool = False, policies: list[JsonValue] | None = None) -> Resolution:
    trainjob = make_trainjob("llm", namespace="team-a")
    return start(
        trainjob, _runtime(policies=policies), CompileSettings(native_volume_claims=native)
    )


def _compiled(context: Resolution) -> tuple[JsonObject, list[JsonObject]]:
    VolumesPlugin().pre_build_sync(context)
    return context.jobset_spec, VolumesPlugin().build(frozen(context))


def test_kep572_two_claims_become_pvcs_with_names_labels_and_annotations() -> None:
    _, claims = _compiled(_context())

    assert claims == [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": "cache-llm",
                "namespace": "team-a",
                "labels": {"content-type": "dataset", "jobset.sigs.k8s.io/jobset-name": "llm"},
                "annotations": {"example.com/owner": "data-team"},
            },
            "spec": _CACHE_SPEC,
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": "checkpoints-llm",
                "namespace": "team-a",
                "labels": {"jobset.sigs.k8s.io/jobset-name": "llm"},
                "annotations": {
                    "argocd.argoproj.io/sync-options": "Prune=false",
                    "kustomize.toolkit.fluxcd.io/prune": "disabled",
                },
            },
            "spec": _CHECKPOINT_SPEC,
        },
    ]


def test_kep572_volumes_only_in_the_pods_that_mount_them() -> None:
    spec, _ = _compiled(_context())

    assert pod(spec, "dataset-initializer")["volumes"] == [
        {"name": "cache", "persistentVolumeClaim": {"claimName": "cache-llm"}}
    ]
    assert "volumes" not in pod(spec, "model-initializer")
    assert pod(spec, "node")["volumes"] == [
        _SCRATCH,
        {"name": "checkpoints", "persistentVolumeClaim": {"claimName": "checkpoints-llm"}},
    ]


def test_claims_are_recorded_for_the_compiler_in_policy_order() -> None:
    context = _context()
    VolumesPlugin().pre_build_sync(context)

    assert [(claim.name, claim.retain) for claim in context.claims] == [
        ("cache", False),
        ("checkpoints", True),
    ]
    assert [claim.claim_name("llm") for claim in context.claims] == ["cache-llm", "checkpoints-llm"]


def test_a_template_without_a_name_is_left_to_validation() -> None:
    """xobj.volume-claim-name reports it; resolving (for policies) must not fail on it."""
    unnamed: list[JsonValue] = [{"templates": [{"spec": _CACHE_SPEC}]}, *_policies()]
    context = _context(policies=unnamed)
    VolumesPlugin().pre_build_sync(context)

    assert [claim.name for claim in context.claims] == ["cache", "checkpoints"]


def test_claim_volumes_are_traced_to_the_policies() -> None:
    context = _context()
    VolumesPlugin().pre_build_sync(context)

    node = ("replicatedJobs", 2, "template", "spec", "template", "spec")
    origin = frozen(context).origin((*node, "volumes", 1))
    assert isinstance(origin, Derived)
    assert origin.actor == "trainc's volumes plugin"
    assert origin.cause.source is context.job.runtime
    assert origin.cause.path[-1] == "volumeClaimPolicies"
    # The runtime's own volume keeps its line.
    assert not isinstance(frozen(context).origin((*node, "volumes", 0)), Derived)


def test_policies_leave_the_jobset_because_the_claims_are_manifests() -> None:
    spec, _ = _compiled(_context())

    assert "volumeClaimPolicies" not in spec


def test_explicit_delete_retention_is_the_default() -> None:
    policies = _policies()
    as_object(policies[1])["retentionPolicy"] = {"whenDeleted": "Delete"}
    _, claims = _compiled(_context(policies=policies))

    assert "annotations" not in as_object(claims[1]["metadata"])


def test_retain_keeps_other_argocd_sync_options() -> None:
    policies = _policies()
    template = as_object(as_list(as_object(policies[1])["templates"])[0])
    as_object(template["metadata"])["annotations"] = {
        "argocd.argoproj.io/sync-options": "ServerSideApply=true"
    }
    _, claims = _compiled(_context(policies=policies))

    assert as_object(claims[1]["metadata"])["annotations"] == {
        "argocd.argoproj.io/sync-options": "ServerSideApply=true,Prune=false",
        "kustomize.toolkit.fluxcd.io/prune": "disabled",
    }


def test_a_pod_mounting_two_claims_gets_both_in_template_order() -> None:
    context = _context()
    node = as_object(as_list(pod(context.jobset_spec, "node")["containers"])[0])
    as_list(node["volumeMounts"]).append({"name": "cache", "mountPath": "/cache"})
    spec, _ = _compiled(context)

    assert [as_object(v)["name"] for v in as_list(pod(spec, "node")["volumes"])] == [
        "scratch",
        "cache",
        "checkpoints",
    ]


def test_native_mode_leaves_the_spec_as_is_and_emits_nothing() -> None:
    context = _context(native=True)
    before = copy.deepcopy(context.jobset_spec)

    spec, claims = _compiled(context)

    assert claims == []
    assert spec == before
    assert len(as_list(spec["volumeClaimPolicies"])) == 2


@pytest.mark.parametrize("policies", [[], None])
def test_no_policies_no_change(policies: list[JsonValue] | None) -> None:
    runtime = make_runtime(
        replicated_jobs=[rjob("node", ancestor="trainer")],
        jobset={"volumeClaimPolicies": policies} if policies is not None else None,
    )
    context = start(make_trainjob(), runtime)
    before = copy.deepcopy(context.jobset_spec)

    spec, claims = _compiled(context)

    assert claims == []
    assert spec == {k: v for k, v in before.items() if k != "volumeClaimPolicies"}


def test_compiled_jobset_carries_the_volumes_and_no_policy() -> None:
    trainjob = make_trainjob("llm", namespace="team-a")
    result = compile_job(trainjob, _runtime(), plugins=(*TRAINER_PLUGINS, VolumesPlugin()))

    jobset = jobset_of(result.objects)
    spec = as_object(jobset["spec"])
    assert "volumeClaimPolicies" not in spec
    assert pod(spec, "dataset-initializer")["volumes"] == [
        {"name": "cache", "persistentVolumeClaim": {"claimName": "cache-llm"}}
    ]
    kinds = sorted((str(o["kind"]), str(as_object(o["metadata"])["name"])) for o in result.objects)
    assert kinds == [
        ("JobSet", "llm"),
        ("PersistentVolumeClaim", "cache-llm"),
        ("PersistentVolumeClaim", "checkpoints-llm"),
    ]


POLICIES = "spec.template.spec.volumeClaimPolicies"
POD = "spec.template.spec.replicatedJobs[0].template.spec.template.spec"


def _claim(name: str) -> JsonObject:
    return {
        "metadata": {"name": name},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }


def _claiming_runtime(
    *names: str, mounts: Sequence[str] = ("initializer",), volumes: list[JsonValue] | None = None
) -> DefaultedObject:
    node = container("node", volumeMounts=[{"name": m, "mountPath": f"/{m}"} for m in mounts])
    return make_runtime(
        replicated_jobs=[rjob("node", ancestor="trainer", containers=[node], volumes=volumes)],
        jobset={"volumeClaimPolicies": [{"templates": [_claim(n) for n in names]}]},
    )


@pytest.mark.parametrize("name", ["Initializer", "", "a_b"])
def test_template_names_are_dns_subdomains(name):
    findings = check_volume_claims(_claiming_runtime(name, mounts=[name]))

    assert located(findings) == [
        ("xobj.volume-claim-name", f"{POLICIES}[0].templates[0].metadata.name")
    ]
    assert findings[0].message.startswith("a lowercase RFC 1123 subdomain must consist")


def test_template_names_are_unique():
    findings = check_volume_claims(_claiming_runtime("initializer", "initializer"))

    assert located(findings) == [
        ("xobj.volume-claim-name", f"{POLICIES}[0].templates[1].metadata.name")
    ]


def test_some_container_mounts_each_template():
    findings = check_volume_claims(_claiming_runtime("initializer", "cache"))

    assert located(findings) == [
        ("xobj.volume-claim-no-mount", f"{POLICIES}[0].templates[1].metadata.name")
    ]
    assert findings[0].message == (
        "replicatedJob containers don't have a matching volumeMount: cache from VolumeClaimPolicies"
    )


def test_pod_volume_must_not_shadow_a_template():
    volumes: list[JsonValue] = [{"name": "initializer", "emptyDir": {}}]

    findings = check_volume_claims(_claiming_runtime("initializer", volumes=volumes))

    assert located(findings) == [("xobj.volume-claim-volume-conflict", f"{POD}.volumes[0].name")]
    assert findings[0].message == (
        "volume name conflicts with VolumeClaimPolicy template name: initializer"
    )


def test_claim_name_plus_trainjob_name_fits_a_label():
    runtime = _claiming_runtime("initializer")

    assert check_volume_claim_names(make_trainjob("a" * 51), runtime) == []
    findings = check_volume_claim_names(make_trainjob("a" * 52), runtime)
    assert located(findings) == [("xobj.volume-claim-name-too-long", "metadata.name")]
    assert findings[0].message.startswith("VolumeClaimPolicies template name is too long")


def test_patch_volume_must_not_shadow_a_template():
    patch: JsonObject = {
        "manager": "example.com/team",
        "trainingRuntimeSpec": {
            "template": {
                "spec": {
                    "replicatedJobs": [
                        {
                            "name": "node",
                            "template": {
                                "spec": {
                                    "template": {
                                        "spec": {
                                            "volumes": [{"name": "initializer", "emptyDir": {}}]
                                        }
                                    }
                                }
                            },
                        }
                    ]
                }
            }
        },
    }

    findings = check_volume_claim_names(
        make_trainjob(runtimePatches=[patch]), _claiming_runtime("initializer")
    )

    assert located(findings) == [
        (
            "xobj.volume-claim-volume-conflict",
            "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0]"
            ".template.spec.template.spec.volumes[0].name",
        )
    ]


def test_mounted_unique_templates_pass():
    runtime = _claiming_runtime("initializer")

    assert check_volume_claims(runtime) == []
    assert check_volume_claim_names(make_trainjob(), runtime) == []
