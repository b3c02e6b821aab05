from collections.abc import Sequence

import pytest

from tests.support.builders import container, located, make_runtime, make_trainjob, rjob
from trainc.checks.webhooks.volumes import check_volume_claim_names, check_volume_claims
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, JsonValue

POLICIES = "spec.template.spec.volumeClaimPolicies"
POD = "spec.template.spec.replicatedJobs[0].template.spec.template.spec"


def _claim(name: str) -> JsonObject:
    return {
        "metadata": {"name": name},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }


def _runtime(
    *names: str, mounts: Sequence[str] = ("initializer",), volumes: list[JsonValue] | None = None
) -> DefaultedObject:
    node = container("node", volumeMounts=[{"name": m, "mountPath": f"/{m}"} for m in mounts])
    return make_runtime(
        replicated_jobs=[rjob("node", ancestor="trainer", containers=[node], volumes=volumes)],
        jobset={"volumeClaimPolicies": [{"templates": [_claim(n) for n in names]}]},
    )


@pytest.mark.parametrize("name", ["Initializer", "", "a_b"])
def test_template_names_are_dns_subdomains(name):
    findings = check_volume_claims(_runtime(name, mounts=[name]))

    assert located(findings) == [
        ("xobj.volume-claim-name", f"{POLICIES}[0].templates[0].metadata.name")
    ]
    assert findings[0].message.startswith("a lowercase RFC 1123 subdomain must consist")


def test_template_names_are_unique():
    findings = check_volume_claims(_runtime("initializer", "initializer"))

    assert located(findings) == [
        ("xobj.volume-claim-name", f"{POLICIES}[0].templates[1].metadata.name")
    ]


def test_some_container_mounts_each_template():
    findings = check_volume_claims(_runtime("initializer", "cache"))

    assert located(findings) == [
        ("xobj.volume-claim-no-mount", f"{POLICIES}[0].templates[1].metadata.name")
    ]
    assert findings[0].message == (
        "replicatedJob containers don't have a matching volumeMount: cache from VolumeClaimPolicies"
    )


def test_pod_volume_must_not_shadow_a_template():
    volumes: list[JsonValue] = [{"name": "initializer", "emptyDir": {}}]

    findings = check_volume_claims(_runtime("initializer", volumes=volumes))

    assert located(findings) == [("xobj.volume-claim-volume-conflict", f"{POD}.volumes[0].name")]
    assert findings[0].message == (
        "volume name conflicts with VolumeClaimPolicy template name: initializer"
    )


def test_claim_name_plus_trainjob_name_fits_a_label():
    runtime = _runtime("initializer")

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
        make_trainjob(runtimePatches=[patch]), _runtime("initializer")
    )

    assert located(findings) == [
        (
            "xobj.volume-claim-volume-conflict",
            "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0]"
            ".template.spec.template.spec.volumes[0].name",
        )
    ]


def test_mounted_unique_templates_pass():
    runtime = _runtime("initializer")

    assert check_volume_claims(runtime) == []
    assert check_volume_claim_names(make_trainjob(), runtime) == []
