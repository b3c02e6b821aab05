"""The sweeper's objects: the CronJob running ``trainc sweep``, its ServiceAccount and RBAC.

Once the Trainer controller is out of the loop nothing enforces a TrainJob's
``activeDeadlineSeconds`` (KEP-2899), a runtime's ``ttlSecondsAfterFinished``, trainc's
progress deadline or the removal of companions whose JobSet is gone (nothing owns them
offline; ``docs/upstream.md``, "Lifecycle: deadlines, TTL, deletion", and ``docs/design.md``,
"Lifecycle"); with a ``sweeper`` section in trainc.yaml,
``trainc compile`` emits a CronJob that runs ``trainc sweep --once``.

- **Least privilege.** Exactly the verbs the sweeper calls: it reads JobSets, patches
  (lowers ``activeDeadlineSeconds``) and deletes child Jobs, deletes orphaned PodGroups,
  claims and ConfigMaps, and records Events. No ``watch`` (one pass of lists), no pods
  (Jobs take theirs along), no secrets. ``Namespaced`` scope binds a Role in each
  namespace holding compiled TrainJobs; ``Cluster`` one ClusterRole, for all namespaces.
- **Hardened pod**, the ``restricted`` Pod Security Standard: UID 65532 (the image's
  user), read-only root filesystem, no privilege escalation or capabilities, the
  runtime's seccomp profile. The ServiceAccount's token is mounted only where asked for.
- **A bounded run.** ``concurrencyPolicy: Forbid`` keeps two sweeps from racing; a run
  missed by a minute is skipped (each run sees the whole state, the next catches up); a
  hung run is killed after ten minutes and not retried (the schedule is the retry);
  finished runs stay a day for inspection.

Every object is labelled as trainc's and annotated with the config file it came from, so
the header of its generated file names trainc.yaml as the place to change it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, assert_never

from trainc.build.job import BuiltJob
from trainc.config.settings import RepoConfig, SweeperSettings
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_object, copy_json
from trainc.model.labels import (
    ACTIVE_DEADLINE_ANNOTATION,
    APP_COMPONENT_LABEL,
    APP_NAME_LABEL,
    APP_NAME_TRAINC,
    COSCHEDULING_API_VERSION,
    JOBSET_API_VERSION,
    JOBSET_KIND,
    MANAGED_BY_LABEL,
    MANAGED_BY_TRAINC,
    PROGRESS_DEADLINE_ANNOTATION,
    SOURCE_ANNOTATION,
    SWEEPER_COMPONENT,
    TTL_ANNOTATION,
    VOLCANO_API_VERSION,
)

_RBAC: Final = "rbac.authorization.k8s.io/v1"


def _group(api_version: str) -> str:
    return api_version.split("/", maxsplit=1)[0]


#: (API group, resources, verbs): exactly the calls ``trainc sweep`` makes.
PERMISSIONS: Final[tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]] = (
    (_group(JOBSET_API_VERSION), ("jobsets",), ("get", "list")),
    ("batch", ("jobs",), ("get", "list", "patch", "delete")),
    ("", ("configmaps", "persistentvolumeclaims"), ("get", "list", "delete")),
    (_group(COSCHEDULING_API_VERSION), ("podgroups",), ("get", "list", "delete")),
    (_group(VOLCANO_API_VERSION), ("podgroups",), ("get", "list", "delete")),
    ("", ("events",), ("create",)),
)

_CONTAINER: Final = "sweeper"
_USER: Final = 65532
#: Seconds after a missed schedule a run may still start; later, the next run catches up.
_STARTING_DEADLINE: Final = 60
#: One run's wall-clock bound; the sweep bounds its own calls well within it.
_RUN_DEADLINE: Final = 600
#: How long a finished run's Job (and pod log) stays for inspection.
_RUN_TTL: Final = 86400
#: On the sweeper's runs only the app labels: trainc's managed-by label would make its own
#: Jobs look like a JobSet's child Jobs to the sweeper.
_APP_LABELS: Final[Mapping[str, JsonValue]] = {
    APP_COMPONENT_LABEL: SWEEPER_COMPONENT,
    APP_NAME_LABEL: APP_NAME_TRAINC,
}
#: Files named in the no-sweeper warning before "and N more".
_LISTED: Final = 3
_LIFECYCLE_ANNOTATIONS: Final = (
    ACTIVE_DEADLINE_ANNOTATION,
    TTL_ANNOTATION,
    PROGRESS_DEADLINE_ANNOTATION,
)


@dataclass(frozen=True, slots=True)
class SweptJob:
    """What the sweeper depends on, of one compiled TrainJob: kept after its objects go."""

    namespace: str
    source: str
    lifecycle: bool
    """Whether its JobSet carries a deadline, TTL or progress deadline to enforce."""

    @classmethod
    def of(cls, job: BuiltJob) -> SweptJob:
        """The summary of ``job``, taken before its objects are written and let go."""
        return cls(job.namespace, job.source, _has_lifecycle(job.objects))


def build_sweeper(config: RepoConfig, namespaces: Collection[str]) -> tuple[JsonObject, ...]:
    """The sweeper for compiled jobs in ``namespaces``; nothing when trainc.yaml configures
    none.

    Namespaced scope covers ``namespaces``, or the configured default namespace when there
    are none (the jobs to come will land there). Validation already judged the sweeper's
    settings (:mod:`trainc.config.sweeper`).
    """
    settings = config.sweeper
    if settings is None:
        return ()
    return sweeper_objects(settings, namespaces or {config.namespace}, source=config.config_file)


def sweeper_objects(
    settings: SweeperSettings, namespaces: Iterable[str], *, source: str | None
) -> tuple[JsonObject, ...]:
    """ServiceAccount, CronJob and RBAC; ``namespaces`` are swept under Namespaced scope."""
    swept = sorted(set(namespaces))
    metadata = _metadata(settings.service_account_name, settings.namespace, source)
    account: JsonObject = {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": metadata,
        "automountServiceAccountToken": False,
    }
    cron_job: JsonObject = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": copy_json(metadata),
        "spec": _cron_job_spec(settings, sweep_args(settings, swept)),
    }
    return (account, cron_job, *_rbac(settings, swept, source))


#: Where the CronJob holds the sweeper's pod spec, and the one container in it.
_POD_SPEC: Final = ("spec", "jobTemplate", "spec", "template", "spec")
_CONTAINER_PATH: Final = (*_POD_SPEC, "containers", 0)
#: The trainc.yaml setting (under ``sweeper``) behind each field the CronJob gets from one.
_SETTINGS: Final[tuple[tuple[FieldPath, str], ...]] = (
    ((*_CONTAINER_PATH, "image"), "image"),
    ((*_CONTAINER_PATH, "resources"), "resources"),
    ((*_POD_SPEC, "imagePullSecrets"), "imagePullSecrets"),
    ((*_POD_SPEC, "serviceAccountName"), "serviceAccountName"),
    (("spec", "schedule"), "schedule"),
    (("metadata", "namespace"), "namespace"),
)


def sweeper_setting(obj: JsonObject, path: FieldPath) -> FieldPath:
    """The trainc.yaml setting behind the value at ``path`` of ``obj``, one of the
    sweeper's objects (the CronJob, for its Jobs' and pods' values): ``("sweeper",
    "resources", "limits", "cpu")`` for the container's CPU limit; ``("sweeper",)`` when
    no one setting is (the hardened securityContext, a label, the RBAC objects, which
    ``scope`` places in the swept namespaces)."""
    if obj.get("kind") not in ("CronJob", "ServiceAccount"):
        return ("sweeper",)
    for field, setting in _SETTINGS:
        if path[: len(field)] == field:
            return ("sweeper", setting, *path[len(field) :])
    return ("sweeper",)


def sweep_args(settings: SweeperSettings, namespaces: Sequence[str]) -> list[str]:
    """The container's arguments: one pass over the swept namespaces, then exit."""
    match settings.scope:
        case "Cluster":
            scope = ["--all-namespaces"]
        case "Namespaced":
            scope = [arg for namespace in namespaces for arg in ("--namespace", namespace)]
        case _:
            assert_never(settings.scope)
    return ["sweep", "--once", *scope, "--grace", str(settings.grace_seconds)]


def _metadata(name: str, namespace: str | None, source: str | None) -> JsonObject:
    metadata: JsonObject = {
        "name": name,
        "labels": {**_APP_LABELS, MANAGED_BY_LABEL: MANAGED_BY_TRAINC},
    }
    if namespace is not None:
        metadata["namespace"] = namespace
    if source is not None:
        metadata["annotations"] = {SOURCE_ANNOTATION: source}
    return metadata


def _cron_job_spec(settings: SweeperSettings, args: list[str]) -> JsonObject:
    pod: JsonObject = {
        "restartPolicy": "Never",
        "serviceAccountName": settings.service_account_name,
        "automountServiceAccountToken": True,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": _USER,
            "runAsGroup": _USER,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [
            {
                "name": _CONTAINER,
                "image": settings.image,
                "args": list(args),
                "resources": {"requests": dict(settings.requests), "limits": dict(settings.limits)},
                "securityContext": {
                    "allowPrivilegeEscalation": False,
                    "readOnlyRootFilesystem": True,
                    "capabilities": {"drop": ["ALL"]},
                },
            }
        ],
    }
    if settings.image_pull_secrets:
        pod["imagePullSecrets"] = [{"name": secret} for secret in settings.image_pull_secrets]
    return {
        "schedule": settings.schedule,
        "concurrencyPolicy": "Forbid",
        "startingDeadlineSeconds": _STARTING_DEADLINE,
        "successfulJobsHistoryLimit": 1,
        "failedJobsHistoryLimit": 3,
        "jobTemplate": {
            "metadata": {"labels": dict(_APP_LABELS)},
            "spec": {
                "activeDeadlineSeconds": _RUN_DEADLINE,
                "backoffLimit": 0,
                "ttlSecondsAfterFinished": _RUN_TTL,
                "template": {"metadata": {"labels": dict(_APP_LABELS)}, "spec": pod},
            },
        },
    }


def _rules() -> list[JsonValue]:
    return [
        {"apiGroups": [group], "resources": list(resources), "verbs": list(verbs)}
        for group, resources, verbs in PERMISSIONS
    ]


def _rbac(
    settings: SweeperSettings, namespaces: Sequence[str], source: str | None
) -> list[JsonObject]:
    """A Role and RoleBinding per swept namespace, or one ClusterRole and its binding."""
    name = settings.service_account_name
    subject: JsonObject = {
        "kind": "ServiceAccount",
        "name": name,
        "namespace": settings.namespace,
    }
    match settings.scope:
        case "Cluster":
            places: list[tuple[str, str | None]] = [("Cluster", None)]
        case "Namespaced":
            places = [("", namespace) for namespace in namespaces]
        case _:
            assert_never(settings.scope)
    objects: list[JsonObject] = []
    for prefix, namespace in places:
        role: JsonObject = {
            "apiVersion": _RBAC,
            "kind": f"{prefix}Role",
            "metadata": _metadata(name, namespace, source),
            "rules": _rules(),
        }
        binding: JsonObject = {
            "apiVersion": _RBAC,
            "kind": f"{prefix}RoleBinding",
            "metadata": _metadata(name, namespace, source),
            "roleRef": {"apiGroup": _group(_RBAC), "kind": f"{prefix}Role", "name": name},
            "subjects": [dict(subject)],
        }
        objects += [role, binding]
    return objects


def _has_lifecycle(objects: Iterable[JsonObject]) -> bool:
    for obj in objects:
        if obj.get("kind") == JOBSET_KIND:
            annotations = as_object(as_object(obj.get("metadata")).get("annotations"))
            if any(key in annotations for key in _LIFECYCLE_ANNOTATIONS):
                return True
    return False
