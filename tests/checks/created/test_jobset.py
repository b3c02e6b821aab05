from tests.support.builders import located, make_runtime, make_trainjob, resolved, rjob
from trainc.checks.created.jobset import check_replicas_parallelism

RJOB = "spec.template.spec.replicatedJobs"


def test_replicas_times_parallelism_must_fit_int32():
    sidecar = rjob("sidecar", containers=["proxy"], replicas=65536, job_spec={"parallelism": 65536})
    runtime = make_runtime(replicated_jobs=[rjob("node", ancestor="trainer"), sidecar])

    findings = check_replicas_parallelism(resolved(make_trainjob(), runtime))

    assert located(findings) == [
        ("xobj.jobset-replicas-parallelism", f"{RJOB}[1].template.spec.parallelism")
    ]
    assert findings[0].message.startswith(
        "the product of replicas and parallelism must not exceed 2147483647 for "
        "replicatedJob 'sidecar'"
    )
    assert findings[0].hint is not None
    assert "parallelism = completions = pods of replicatedJob 'sidecar'" in findings[0].hint
