"""What the cluster's admission judges beyond one TrainJob's own objects, met as a user
meets it with `trainc validate`: the sweeper's objects and pods, the Namespaces trainc
emits, ``deploy: TrainJob`` (the TrainJob applied, its JobSet made by the Trainer
controller), and an UPDATE of what the base revision deployed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.support.cli import run
from tests.support.gitrepo import git
from tests.support.manifests import write

CASES = Path(__file__).parents[1] / "cases"


def _case(root: Path, case: str) -> Path:
    """The case directory ``case`` as a repository of its own."""
    shutil.copytree(CASES / case, root)
    (root / "expect.yaml").unlink(missing_ok=True)
    (root / ".git").mkdir()
    return root


def _findings(root: Path, *args: str) -> tuple[int, list[dict[str, Any]]]:
    completed = run(root, "validate", "--format", "json", *args)
    assert completed.returncode in (0, 1), completed.stderr
    found: list[dict[str, Any]] = json.loads(completed.stdout)["diagnostics"]
    return completed.returncode, [d for d in found if d["severity"] != "info"]


def test_deploy_trainjob_judges_the_trainjob_as_the_gitops_tool_applies_it(
    tmp_path: Path,
) -> None:
    """A policy on trainjobs refuses the TrainJob the GitOps tool applies; a policy that
    admits JobSets only from the Trainer controller admits the one Trainer creates."""
    root = _case(tmp_path / "repo", "vap/invalid/denied--trainjob")
    code, found = _findings(root)
    assert code == 1
    [denied] = found
    assert (denied["code"], denied["file"], denied["line"]) == ("vap.denied", "trainjob.yaml", 4)
    assert denied["message"].startswith(
        "the TrainJob 'job', applied by the GitOps tool, is refused: "
        'trainjobs.trainer.kubeflow.org "job" is forbidden: ValidatingAdmissionPolicy '
        "'trainjob-team' with binding 'trainjob-team' denied request: every TrainJob must "
        "carry a team label"
    ), denied["message"]


#: ``deploy: TrainJob`` with a Trainer controller identity the case's JobSet policy refuses.
OTHER_TRAINER = (
    "deploy: TrainJob\ncluster:\n  manifests: [platform/*.yaml]\n  identities:\n"
    "    trainerController: {username: 'system:serviceaccount:trainer:manager'}\n"
)


def test_nothing_is_created_after_a_refused_trainjob(tmp_path: Path) -> None:
    """The Trainer controller never sees a TrainJob the API server refused: the JobSet
    the policies would refuse from this Trainer identity (once the TrainJob is admitted,
    below) is not judged, nor its pods."""
    root = _case(tmp_path / "repo", "vap/invalid/denied--trainjob")
    write(root, "trainc.yaml", OTHER_TRAINER)
    _, found = _findings(root)
    assert [(d["code"], d["line"]) for d in found] == [("vap.denied", 4)]
    assert found[0]["message"].startswith("the TrainJob 'job', applied by the GitOps tool")


def test_without_deploy_trainjob_the_gitops_tool_applies_the_jobset(tmp_path: Path) -> None:
    root = _case(tmp_path / "repo", "vap/invalid/denied--trainjob")
    write(root, "trainc.yaml", "cluster:\n  manifests: [platform/*.yaml]\n")
    _, found = _findings(root)
    assert [(d["code"], d["line"]) for d in found] == [("vap.denied", 4)]
    assert "the JobSet 'job', applied by the GitOps tool, is refused" in found[0]["message"]
    assert "JobSets are created by the Trainer controller only" in found[0]["message"]


def test_the_trainer_controller_identity_is_configurable(tmp_path: Path) -> None:
    root = _case(tmp_path / "repo", "vap/valid/denied--trainjob")
    write(root, "trainc.yaml", OTHER_TRAINER)
    _, found = _findings(root)
    assert [(d["code"], d["line"]) for d in found] == [("vap.denied", 5)]
    assert (
        "the JobSet 'job', created by the Trainer controller, is refused" in (found[0]["message"])
    )


def _based(root: Path, case: str) -> Path:
    """The case's ``base/`` committed, then its own files written over it: the edit."""
    root.mkdir()
    git(root, "init", "-q")
    shutil.copytree(CASES / case / "base", root, dirs_exist_ok=True)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    shutil.copy(CASES / case / "trainjob.yaml", root / "trainjob.yaml")
    return root


def test_with_base_an_applied_object_that_was_deployed_is_judged_as_an_update(
    tmp_path: Path,
) -> None:
    """The policy compares the JobSet with the deployed one (``oldObject``), which only
    an UPDATE has: moving a deployed job to another team is refused."""
    root = _based(tmp_path / "repo", "vap/invalid/denied--update")
    code, found = _findings(root, "--base", "HEAD")
    assert code == 1
    [denied] = found
    assert (denied["code"], denied["line"], denied["fieldPath"]) == (
        "vap.denied",
        8,
        "metadata.labels",
    )
    assert (
        "the JobSet 'job', applied by the GitOps tool as an update of the deployed one, is "
        'refused: jobsets.jobset.x-k8s.io "job" is forbidden: ValidatingAdmissionPolicy '
        "'team-is-fixed' with binding 'team-is-fixed' denied request: the team of a deployed "
        "JobSet cannot change (from vision)"
    ) in denied["message"]


def test_without_base_the_same_objects_are_created(tmp_path: Path) -> None:
    root = _based(tmp_path / "repo", "vap/invalid/denied--update")
    assert _findings(root) == (0, [])


def test_an_edit_of_a_deployed_job_is_not_counted_again_by_an_object_count_quota(
    tmp_path: Path,
) -> None:
    """The namespace takes no new JobSet (``count/jobsets.jobset.x-k8s.io: "0"``): the
    edited TrainJob's JobSet is an UPDATE with ``--base``, which the object-count
    evaluator does not charge; without ``--base`` it is a CREATE, refused."""
    root = _based(tmp_path / "repo", "quota/invalid/exceeded--update")
    shutil.copy(CASES / "quota/valid/exceeded--update/trainjob.yaml", root / "trainjob.yaml")
    assert _findings(root, "--base", "HEAD") == (0, [])
    code, found = _findings(root)
    assert code == 1
    assert [(d["code"], d["line"]) for d in found] == [("quota.exceeded", 6)]
    assert (
        "exceeded quota: frozen, requested: count/jobsets.jobset.x-k8s.io=1"
        in (found[0]["message"])
    )


def test_a_trainjob_new_since_the_base_is_created(tmp_path: Path) -> None:
    root = _based(tmp_path / "repo", "vap/invalid/denied--update")
    trainjob = (root / "trainjob.yaml").read_text(encoding="utf-8")
    (root / "trainjob.yaml").write_text(trainjob.replace("name: job", "name: other"), "utf-8")
    assert _findings(root, "--base", "HEAD") == (0, [])


def test_an_emitted_namespace_is_judged_at_the_setting_that_emits_it(tmp_path: Path) -> None:
    root = _case(tmp_path / "repo", "vap/invalid/denied--namespace-emitted")
    code, found = _findings(root)
    assert code == 1
    [denied] = found
    assert (denied["code"], denied["file"], denied["line"], denied["fieldPath"]) == (
        "vap.denied",
        "trainc.yaml",
        2,
        "compile.namespaces",
    )
    assert denied["message"].startswith(
        "the Namespace 'ml', emitted by trainc (compile.namespaces) and applied by the GitOps "
        'tool, is refused: namespaces "ml" is forbidden: ValidatingAdmissionPolicy '
        "'namespace-team' with binding 'namespace-team' denied request: every Namespace must "
        "carry a team label"
    ), denied["message"]
    assert "set `compile.namespaces: Omit`" in denied["hint"]


#: A policy on the pods of the namespaces trainc manages, selected by the label trainc
#: gives the Namespaces it emits.
MANAGED_PODS = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: managed-pods-limited
spec:
  matchConstraints:
    namespaceSelector:
      matchLabels:
        app.kubernetes.io/managed-by: trainc
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [pods]
  validations:
    - expression: "object.spec.containers.all(c, has(c.resources) && has(c.resources.limits))"
      message: pods in trainc's namespaces set limits
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: managed-pods-limited
spec:
  policyName: managed-pods-limited
  validationActions: [Deny]
"""


def test_the_labels_of_an_emitted_namespace_are_the_namespace_labels(tmp_path: Path) -> None:
    """No Namespace manifest declares 'ml': the one trainc emits is what the cluster
    holds, so a namespace selector reads its labels."""
    root = _case(tmp_path / "repo", "vap/invalid/denied--namespace-emitted")
    write(root, "platform/policies.yaml", MANAGED_PODS)
    _, found = _findings(root)
    assert [(d["code"], d["file"]) for d in found] == [("vap.denied", "runtime.yaml")]
    assert "pods in trainc's namespaces set limits" in found[0]["message"]


def test_without_emitted_namespaces_the_selector_cannot_be_read(tmp_path: Path) -> None:
    root = _case(tmp_path / "repo", "vap/invalid/denied--namespace-emitted")
    write(root, "platform/policies.yaml", MANAGED_PODS)
    write(root, "trainc.yaml", "cluster:\n  manifests: [platform/*.yaml]\n")
    _, found = _findings(root)
    assert [d["code"] for d in found] == ["vap.not-evaluated"]
    assert "declare the Namespace 'ml'" in found[0]["hint"]


def test_a_declared_namespace_wins_over_the_emitted_one(tmp_path: Path) -> None:
    root = _case(tmp_path / "repo", "vap/invalid/denied--namespace-emitted")
    write(root, "platform/policies.yaml", MANAGED_PODS)
    write(
        root, "platform/namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ml\n"
    )
    assert _findings(root) == (0, [])


def test_the_sweeper_pods_a_quota_refuses_sit_on_its_resources_setting(tmp_path: Path) -> None:
    """The quota of the sweeper's namespace tracks CPU limits; trainc.yaml's
    ``sweeper.resources`` sets none. Judged once, whatever the number of TrainJobs."""
    root = _case(tmp_path / "repo", "quota/invalid/must-specify--sweeper")
    job = (root / "trainjob.yaml").read_text(encoding="utf-8")
    write(root, "second.yaml", job.replace("name: job", "name: second"))
    code, found = _findings(root)
    assert code == 1
    [refused] = found
    assert (refused["code"], refused["file"], refused["line"], refused["fieldPath"]) == (
        "quota.must-specify",
        "trainc.yaml",
        4,
        "sweeper.resources",
    )
    assert refused["message"] == (
        "the API server would refuse the pods of the sweeper's CronJob 'trainc-sweeper', "
        "created by the Job controller: failed quota: compute: must specify limits.cpu for: "
        "sweeper"
    )
    assert refused["hint"].startswith("set resources.limits.cpu on container 'sweeper'")
    assert refused["hint"].endswith("in trainc.yaml that is `sweeper.resources`")


def test_the_sweeper_objects_and_pods_meet_the_platform_policies(tmp_path: Path) -> None:
    root = _case(tmp_path / "repo", "vap/invalid/denied--sweeper")
    code, found = _findings(root)
    assert code == 1
    assert [(d["code"], d["line"], d["fieldPath"]) for d in found] == [
        ("vap.denied", 1, "sweeper"),
        ("vap.denied", 2, "sweeper.image"),
    ]
    assert found[0]["message"] == (
        "the sweeper's CronJob 'trainc-sweeper', applied by the GitOps tool, is refused: "
        'cronjobs.batch "trainc-sweeper" is forbidden: ValidatingAdmissionPolicy '
        "'cronjob-team' with binding 'cronjob-team' denied request: every CronJob must carry "
        "a team label"
    )
    assert found[1]["message"] == (
        "the pods of the sweeper's CronJob 'trainc-sweeper', created by the Job controller, "
        "are refused: pods \"…\" is forbidden: ValidatingAdmissionPolicy 'approved-registry' "
        "with binding 'approved-registry' denied request: images must come from "
        "registry.internal/"
    )


def test_compile_refuses_to_emit_a_sweeper_the_cluster_refuses(tmp_path: Path) -> None:
    root = _case(tmp_path / "repo", "vap/invalid/denied--sweeper")
    completed = run(root, "compile", "-o", "out")
    assert completed.returncode == 1, completed.stderr
    assert "error[vap.denied]: the sweeper's CronJob 'trainc-sweeper'" in completed.stderr
    assert not (root / "out").exists()


#: Policies of a platform that lets only its own team create JobSets (updates of deployed
#: ones are the GitOps tool's) and wants every Job to carry a cost centre.
CREATE_ONLY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-new-jobsets
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [jobset.x-k8s.io]
        apiVersions: [v1alpha2]
        operations: [CREATE]
        resources: [jobsets]
  validations:
    - expression: "false"
      message: only the platform team creates JobSets
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-new-jobsets
spec:
  policyName: no-new-jobsets
  validationActions: [Deny]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: cost-centre
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [batch]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [jobs]
  validations:
    - expression: "'cost-centre' in object.metadata.?labels.orValue({})"
      message: every Job names its cost centre
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: cost-centre
spec:
  policyName: cost-centre
  validationActions: [Deny]
"""


def test_a_deployed_jobset_applied_again_is_an_update_whose_jobs_are_judged(
    tmp_path: Path,
) -> None:
    """A policy on JobSet CREATEs does not refuse the update of a deployed one, so its
    Jobs are created and judged, as on the cluster; without ``--base`` the JobSet is new,
    refused, and creates no Job."""
    root = _based(tmp_path / "repo", "vap/invalid/denied--update")
    shutil.copy(CASES / "vap/invalid/denied--update/base/trainjob.yaml", root / "trainjob.yaml")
    (root / "platform" / "create-only.yaml").write_text(CREATE_ONLY, encoding="utf-8")
    _, updated = _findings(root, "--base", "HEAD")
    assert [(d["code"], d["message"].split(" is forbidden")[0]) for d in updated] == [
        (
            "vap.denied",
            "TrainJob ml/job: the Job of replicatedJob 'node', created by the JobSet "
            'controller, is refused: jobs.batch "job-node-0"',
        )
    ], updated
    _, created = _findings(root)
    assert ["only the platform team creates JobSets" in d["message"] for d in created] == [True]
