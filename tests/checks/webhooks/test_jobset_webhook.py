import pytest

from tests.support.builders import (
    cross_object,
    defaulted,
    located,
    make_runtime,
    object_from_yaml,
    rjob,
)
from trainc.checks.webhooks.jobset_webhook import check_jobset_template
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonValue

SPEC = "spec.template.spec"
RJOB = f"{SPEC}.replicatedJobs"


def _runtime(*jobs: JsonValue, **jobset: JsonValue) -> DefaultedObject:
    return make_runtime(replicated_jobs=list(jobs) or None, jobset=jobset)


INIT = rjob(
    "dataset-initializer", ancestor="dataset-initializer", containers=["dataset-initializer"]
)


def test_first_job_cannot_depend_on_anything():
    runtime = _runtime(
        rjob("node", ancestor="trainer", dependsOn=[{"name": "node", "status": "Ready"}])
    )

    findings = check_jobset_template(runtime)

    assert located(findings) == [("xobj.jobset-depends-on", f"{RJOB}[0].dependsOn")]
    assert findings[0].message.startswith("DependsOn can't be set for the first ReplicatedJob")


def test_depends_on_a_later_job_says_to_reorder():
    runtime = _runtime(
        rjob("node", ancestor="trainer"),
        rjob("launcher", dependsOn=[{"name": "init", "status": "Complete"}]),
        rjob("init", containers=["init"]),
    )

    [finding] = check_jobset_template(runtime)

    assert located([finding]) == [("xobj.jobset-depends-on", f"{RJOB}[1].dependsOn[0].name")]
    assert finding.message == "replicatedJob: launcher cannot depend on replicatedJob: init"
    assert (
        finding.hint
        == "move replicatedJob 'init' before 'launcher': a job waits only for earlier ones"
    )


def test_depends_on_a_misspelt_job_suggests_the_name():
    runtime = _runtime(
        INIT,
        rjob(
            "node", ancestor="trainer", dependsOn=[{"name": "dataset-init", "status": "Complete"}]
        ),
    )

    [finding] = check_jobset_template(runtime)

    assert finding.hint == "did you mean 'dataset-initializer'?"


def test_depends_on_earlier_jobs_is_valid():
    runtime = _runtime(
        INIT,
        rjob(
            "node",
            ancestor="trainer",
            dependsOn=[{"name": "dataset-initializer", "status": "Complete"}],
        ),
    )

    assert check_jobset_template(runtime) == []


@pytest.mark.parametrize(
    ("subdomain", "expected"),
    [
        ("my.service", "a DNS-1035 label must consist of lower case alphanumeric characters"),
        ("s" * 64, ".spec.network.subdomain is too long, must be less than 63 characters"),
        ("1abc", "a DNS-1035 label must consist of lower case alphanumeric characters"),
    ],
)
def test_subdomain_must_be_a_dns_1035_label(subdomain, expected):
    findings = check_jobset_template(_runtime(network={"subdomain": subdomain}))

    assert located(findings) == [("xobj.jobset-subdomain", f"{SPEC}.network.subdomain")]
    assert findings[0].message.startswith(expected)


def test_valid_subdomain_passes():
    assert check_jobset_template(_runtime(network={"subdomain": "training"})) == []


@pytest.mark.parametrize(
    ("group", "expected"),
    [
        ("Workers", "a DNS-1035 label must consist"),
        ("g" * 64, ".spec.replicatedJob[].groupName is too long, must be less than 63 characters"),
    ],
)
def test_group_name_must_be_a_dns_1035_label(group, expected):
    findings = check_jobset_template(_runtime(rjob("node", ancestor="trainer", groupName=group)))

    assert located(findings) == [("xobj.jobset-group-name", f"{RJOB}[0].groupName")]
    assert findings[0].message.startswith(expected)


def test_job_names_must_stay_dns_labels():
    findings = check_jobset_template(_runtime(rjob("Node_1", ancestor="trainer")))

    assert located(findings) == [("xobj.jobset-job-name", f"{RJOB}[0].name")]
    assert findings[0].message.startswith("a DNS-1035 label must consist")


@pytest.mark.parametrize("managed_by", ["jobset-controller", "example.com/" + "x" * 60])
def test_managed_by_must_be_a_short_domain_prefixed_path(managed_by):
    findings = check_jobset_template(_runtime(managedBy=managed_by))

    assert located(findings) == [("xobj.jobset-managed-by", f"{SPEC}.managedBy")]


def test_finding_lines_come_from_the_runtime_file():
    text = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
  labels:
    trainer.kubeflow.org/webhook-validation: disabled
spec:
  template:
    spec:
      network:
        subdomain: Bad_Name
      replicatedJobs: []
"""
    findings = cross_object([defaulted(object_from_yaml(text))])

    assert [(d.code, d.line) for d in findings] == [
        ("xobj.jobset-subdomain", 11),
    ]


def test_well_formed_template_passes():
    workers = rjob(
        "workers", containers=["w"], replicas=4, groupName="workers", job_spec={"parallelism": 8}
    )
    runtime = _runtime(
        rjob("node", ancestor="trainer"),
        workers,
        network={"subdomain": "training", "enableDNSHostnames": True},
        managedBy="jobset.sigs.k8s.io/jobset-controller",
    )

    assert check_jobset_template(runtime) == []
