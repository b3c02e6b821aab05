"""The sweeper's CronJob, ServiceAccount and RBAC (what validation says about them:
``tests/config/test_sweeper.py``)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from trainc.build.job import BuiltJob
from trainc.build.sweeper import SweptJob, build_sweeper, sweeper_objects
from trainc.checks.output.objects import OutputCheck
from trainc.config.settings import RepoConfig, SweeperSettings
from trainc.emit.layout import layout
from trainc.model.json import JsonObject

IMAGE = "registry.example.com/ml/trainc:0.1.0"

#: What ``trainc sweep`` calls, and nothing more: written out here, not derived.
EXPECTED_RULES = [
    {"apiGroups": ["jobset.x-k8s.io"], "resources": ["jobsets"], "verbs": ["get", "list"]},
    {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "list", "patch", "delete"]},
    {
        "apiGroups": [""],
        "resources": ["configmaps", "persistentvolumeclaims"],
        "verbs": ["get", "list", "delete"],
    },
    {
        "apiGroups": ["scheduling.x-k8s.io"],
        "resources": ["podgroups"],
        "verbs": ["get", "list", "delete"],
    },
    {
        "apiGroups": ["scheduling.volcano.sh"],
        "resources": ["podgroups"],
        "verbs": ["get", "list", "delete"],
    },
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create"]},
]
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def objects(namespaces=("ml-team",), **settings: Any) -> tuple[dict[str, Any], ...]:
    return sweeper_objects(
        SweeperSettings(image=IMAGE, **settings), namespaces, source="trainc.yaml"
    )


def by_kind(built, kind: str) -> list[dict[str, Any]]:
    return [obj for obj in built if obj["kind"] == kind]


def cron_job(built) -> dict[str, Any]:
    (found,) = by_kind(built, "CronJob")
    return found


def pod_spec(built) -> Any:
    return cron_job(built)["spec"]["jobTemplate"]["spec"]["template"]["spec"]


def container(built) -> Any:
    (found,) = pod_spec(built)["containers"]
    return found


def ids(built) -> list[tuple[str, str | None, str]]:
    return [(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in built]


def jobset(name: str, annotations: dict[str, str]) -> dict[str, Any]:
    metadata = {"name": name, "namespace": "ml-team", "annotations": annotations}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": metadata}


def built_job(name: str, namespace: str = "ml-team", **annotations: str) -> SweptJob:
    source = {"trainc.dev/source": f"jobs/{name}.yaml", **annotations}
    return SweptJob.of(BuiltJob(namespace, name, f"jobs/{name}.yaml", (jobset(name, source),)))


def config(sweeper: SweeperSettings | None = None, **fields: Any) -> RepoConfig:
    return RepoConfig(root=Path("/repo"), config_file="trainc.yaml", sweeper=sweeper, **fields)


# --------------------------------------------------------------------------- objects


def test_namespaced_scope_binds_a_role_in_every_job_namespace_in_order() -> None:
    built = objects(("team-b", "team-a"))

    assert ids(built) == [
        ("ServiceAccount", "trainc-system", "trainc-sweeper"),
        ("CronJob", "trainc-system", "trainc-sweeper"),
        ("Role", "team-a", "trainc-sweeper"),
        ("RoleBinding", "team-a", "trainc-sweeper"),
        ("Role", "team-b", "trainc-sweeper"),
        ("RoleBinding", "team-b", "trainc-sweeper"),
    ]
    assert container(built)["args"] == [
        "sweep",
        "--once",
        "--namespace",
        "team-a",
        "--namespace",
        "team-b",
        "--grace",
        "600",
    ]


def test_cluster_scope_binds_one_cluster_role_and_sweeps_all_namespaces() -> None:
    built = objects(("team-a", "team-b"), scope="Cluster", grace_seconds=0)

    assert ids(built) == [
        ("ServiceAccount", "trainc-system", "trainc-sweeper"),
        ("CronJob", "trainc-system", "trainc-sweeper"),
        ("ClusterRole", None, "trainc-sweeper"),
        ("ClusterRoleBinding", None, "trainc-sweeper"),
    ]
    assert container(built)["args"] == ["sweep", "--once", "--all-namespaces", "--grace", "0"]
    (binding,) = by_kind(built, "ClusterRoleBinding")
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "trainc-sweeper",
    }


@pytest.mark.parametrize("scope", ["Namespaced", "Cluster"])
def test_rules_grant_exactly_the_verbs_the_sweeper_uses(scope: str) -> None:
    built = objects(scope=scope)
    roles = [o for o in built if o["kind"] in ("Role", "ClusterRole")]

    assert roles
    for role in roles:
        assert role["rules"] == EXPECTED_RULES
        verbs = {verb for rule in role["rules"] for verb in rule["verbs"]}
        resources = {resource for rule in role["rules"] for resource in rule["resources"]}
        assert not verbs & {"watch", "update", "deletecollection", "*"}
        assert not resources & {"secrets", "pods", "*"}


def test_bindings_name_the_sweeper_account_in_its_namespace() -> None:
    built = objects(namespace="ops", service_account_name="sweeper.team")

    for binding in by_kind(built, "RoleBinding"):
        assert binding["roleRef"] == {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "Role",
            "name": "sweeper.team",
        }
        assert binding["subjects"] == [
            {"kind": "ServiceAccount", "name": "sweeper.team", "namespace": "ops"}
        ]
    assert pod_spec(built)["serviceAccountName"] == "sweeper.team"
    assert {o["metadata"]["name"] for o in built} == {"sweeper.team"}


def test_cron_job_runs_one_bounded_sweep_at_a_time() -> None:
    spec = cron_job(objects(schedule="@hourly"))["spec"]
    job = spec["jobTemplate"]["spec"]

    assert spec["schedule"] == "@hourly"
    assert spec["concurrencyPolicy"] == "Forbid"
    assert spec["startingDeadlineSeconds"] > 10  # the controller checks every 10 s
    assert (spec["successfulJobsHistoryLimit"], spec["failedJobsHistoryLimit"]) == (1, 3)
    assert job["activeDeadlineSeconds"] > 0
    assert job["backoffLimit"] == 0
    assert job["ttlSecondsAfterFinished"] > 0
    assert job["template"]["spec"]["restartPolicy"] == "Never"


def test_pod_meets_the_restricted_pod_security_standard() -> None:
    built = objects()
    pod = pod_spec(built)

    assert pod["automountServiceAccountToken"] is True
    assert pod["securityContext"] == {
        "runAsNonRoot": True,
        "runAsUser": 65532,
        "runAsGroup": 65532,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    assert container(built)["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }
    assert container(built)["image"] == IMAGE
    # Only the sweeper's own pod mounts the account's token.
    (account,) = by_kind(built, "ServiceAccount")
    assert account["automountServiceAccountToken"] is False


def test_resources_and_pull_secrets_come_from_the_settings() -> None:
    built = objects(
        requests={"cpu": "100m", "memory": "64Mi"},
        limits={"memory": "512Mi"},
        image_pull_secrets=("registry", "mirror"),
    )

    assert container(built)["resources"] == {
        "requests": {"cpu": "100m", "memory": "64Mi"},
        "limits": {"memory": "512Mi"},
    }
    assert pod_spec(built)["imagePullSecrets"] == [{"name": "registry"}, {"name": "mirror"}]
    assert "imagePullSecrets" not in pod_spec(objects())


def test_default_resources_request_a_little_and_limit_memory() -> None:
    assert container(objects())["resources"] == {
        "requests": {"cpu": "50m", "memory": "64Mi"},
        "limits": {"memory": "256Mi"},
    }


def test_every_object_is_trainc_s_and_names_its_source() -> None:
    for obj in objects(("a", "b"), scope="Namespaced"):
        labels = obj["metadata"]["labels"]
        assert labels["app.kubernetes.io/managed-by"] == "trainc"
        assert labels["app.kubernetes.io/component"] == "sweeper"
        assert obj["metadata"]["annotations"] == {"trainc.dev/source": "trainc.yaml"}


def test_the_sweeper_s_own_runs_are_not_labelled_as_trainc_managed() -> None:
    template = cron_job(objects())["spec"]["jobTemplate"]

    for labels in (
        template["metadata"]["labels"],
        template["spec"]["template"]["metadata"]["labels"],
    ):
        assert "app.kubernetes.io/managed-by" not in labels
        assert labels["app.kubernetes.io/component"] == "sweeper"


def test_names_are_dns_subdomains_and_land_in_the_shared_layout() -> None:
    built = objects(("team-a", "team-b"))
    cluster = objects(scope="Cluster")

    for obj in (*built, *cluster):
        assert _DNS_SUBDOMAIN.fullmatch(obj["metadata"]["name"])
    assert sorted(layout([], built)) == [
        "_shared/team-a/role-trainc-sweeper.yaml",
        "_shared/team-a/rolebinding-trainc-sweeper.yaml",
        "_shared/team-b/role-trainc-sweeper.yaml",
        "_shared/team-b/rolebinding-trainc-sweeper.yaml",
        "_shared/trainc-system/cronjob-trainc-sweeper.yaml",
        "_shared/trainc-system/serviceaccount-trainc-sweeper.yaml",
        "kustomization.yaml",
    ]
    assert "_shared/clusterrole-trainc-sweeper.yaml" in layout([], cluster)


def test_output_is_deterministic() -> None:
    assert objects(("b", "a", "b")) == objects(("a", "b"))


def test_objects_share_no_mutable_parts() -> None:
    built = objects(("a", "b"))
    pristine = copy.deepcopy(built)
    built[0]["metadata"]["labels"]["x"] = "y"
    by_kind(built, "Role")[0]["rules"][0]["verbs"].append("watch")
    by_kind(built, "RoleBinding")[0]["subjects"][0]["name"] = "other"

    assert built[1] == pristine[1]
    assert by_kind(built, "Role")[1]["rules"] == EXPECTED_RULES
    assert by_kind(built, "RoleBinding")[1] == by_kind(pristine, "RoleBinding")[1]
    assert objects(("a", "b")) == pristine


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"scope": "Cluster"},
        {
            "service_account_name": "a" * 52,
            "image_pull_secrets": ("registry",),
            "requests": {"cpu": 1, "memory": "1Gi", "ephemeral-storage": "100Mi"},
            "limits": {"cpu": "2", "memory": "2Gi"},
            "schedule": "0 */2 * * 1-5",
        },
    ],
)
@pytest.mark.parametrize("kubernetes_version", ["1.33", "1.30"])
def test_objects_pass_output_validation(settings: dict[str, Any], kubernetes_version: str) -> None:
    built = objects(("team-a", "team-b"), **settings)

    assert OutputCheck(kubernetes_version).problems(built) == []


# --------------------------------------------------------------------------- build_sweeper


def test_configured_sweeper_covers_the_namespaces_of_the_compiled_jobs() -> None:
    jobs = [built_job("a", "team-b"), built_job("b", "team-a"), built_job("c", "team-b")]
    built = build_sweeper(config(SweeperSettings(image=IMAGE)), {job.namespace for job in jobs})

    assert [(k, ns) for k, ns, _ in ids(built) if k == "Role"] == [
        ("Role", "team-a"),
        ("Role", "team-b"),
    ]


def test_build_sweeper_is_sweeper_objects_for_the_config() -> None:
    settings = SweeperSettings(image=IMAGE, scope="Cluster")
    built = build_sweeper(config(settings), {"team-b"})

    assert built == sweeper_objects(settings, ["team-b"], source="trainc.yaml")


def test_without_jobs_the_sweeper_watches_the_default_namespace() -> None:
    built = build_sweeper(config(SweeperSettings(image=IMAGE), namespace="ml-team"), set())

    assert [ns for k, ns, _ in ids(built) if k == "Role"] == ["ml-team"]


def test_no_sweeper_builds_nothing() -> None:
    assert build_sweeper(config(), {"team-a"}) == ()
    assert build_sweeper(config(), set()) == ()


@pytest.mark.parametrize(
    "annotation",
    [
        "trainc.dev/active-deadline-seconds",
        "trainc.dev/ttl-seconds-after-finished",
        "trainc.dev/progress-deadline-seconds",
    ],
)
def test_lifecycle_settings_without_a_sweeper_build_nothing(annotation: str) -> None:
    jobs = [built_job(name, **{annotation: "60"}) for name in ("a", "b", "c", "d", "e")]

    assert build_sweeper(config(), {job.namespace for job in [*jobs, built_job("plain")]}) == ()


@pytest.mark.parametrize(
    ("annotations", "lifecycle"),
    [
        ({}, False),
        ({"trainc.dev/active-deadline-seconds": "60"}, True),
        ({"trainc.dev/ttl-seconds-after-finished": "0"}, True),
        ({"trainc.dev/progress-deadline-seconds": "600"}, True),
        ({"trainc.dev/other": "60"}, False),
    ],
)
def test_a_swept_job_knows_whether_its_jobset_carries_lifecycle_settings(
    annotations: dict[str, str], lifecycle: bool
) -> None:
    job = built_job("a", "team-a", **annotations)

    assert (job.namespace, job.source, job.lifecycle) == ("team-a", "jobs/a.yaml", lifecycle)


def test_only_the_jobset_s_annotations_count() -> None:
    config_map: JsonObject = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"annotations": {"trainc.dev/active-deadline-seconds": "60"}},
    }
    job = SweptJob.of(BuiltJob("ml-team", "a", "jobs/a.yaml", (config_map,)))

    assert job.lifecycle is False
