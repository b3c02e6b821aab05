import pytest

from tests.support.builders import container, located, make_runtime, make_trainjob, resolved, rjob
from trainc.checks.created.names import check_name_budgets, name_budget_problems
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonObject, JsonValue

TRAINER = rjob("node", ancestor="trainer")


def _runtime(job: JsonObject) -> DefaultedObject:
    jobs: list[JsonValue] = [job] if job["name"] == "node" else [job, TRAINER]
    return make_runtime(replicated_jobs=jobs)


# The JobSet webhook's name budgets (jobset_webhook.go): max len(<tj>) per replicatedJob and
# pod count, len(<tj>) <= 53 - len(<rjob>) - digits(completions - 1).
@pytest.mark.parametrize(
    ("job", "num_nodes", "budget"),
    [
        (
            rjob(
                "dataset-initializer",
                ancestor="dataset-initializer",
                containers=[container("dataset-initializer")],
            ),
            None,
            33,
        ),
        (
            rjob(
                "model-initializer",
                ancestor="model-initializer",
                containers=[container("model-initializer")],
            ),
            None,
            35,
        ),
        (rjob("launcher"), None, 44),
        (TRAINER, 10, 48),
        (TRAINER, 11, 47),
        (TRAINER, 100, 47),
        (TRAINER, 1000, 46),
        (TRAINER, 10000, 45),
    ],
)
def test_budgets_match_upstream_table(job, num_nodes, budget):
    trainer = {"numNodes": num_nodes} if num_nodes is not None else None
    runtime = _runtime(job)

    fits = make_trainjob("a" * budget, trainer=trainer)
    too_long = make_trainjob("a" * (budget + 1), trainer=trainer)

    assert check_name_budgets(resolved(fits, runtime)) == []
    findings = check_name_budgets(resolved(too_long, runtime))
    assert located(findings) == [("xobj.jobset-name-budget", "metadata.name")]
    assert findings[0].message.startswith(
        "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"
    )
    assert findings[0].hint == (
        f"shorten metadata.name to at most {budget} characters for runtime 'torch-distributed'"
    )


def test_job_name_overflow_uses_the_job_message():
    findings = check_name_budgets(resolved(make_trainjob("a" * 60), make_runtime()))

    assert located(findings) == [("xobj.jobset-name-budget", "metadata.name")]
    assert findings[0].message.startswith(
        "JobSet name is too long, job names generated for this JobSet will exceed 63 characters"
    )


def test_non_ancestor_replicas_lengthen_job_names():
    workers = rjob("workers", containers=["w"], replicas=100)
    runtime = make_runtime(replicated_jobs=[TRAINER, workers])

    # "-workers-99-0-abcde" leaves 44 characters for the TrainJob name.
    assert check_name_budgets(resolved(make_trainjob("a" * 44), runtime)) == []
    assert len(check_name_budgets(resolved(make_trainjob("a" * 45), runtime))) == 1


def test_a_job_that_is_not_indexed_has_no_pod_budget():
    node = rjob("node", ancestor="trainer", job_spec={"completionMode": "NonIndexed"})
    runtime = make_runtime(replicated_jobs=[node])

    # "-node-0" is the only budget: 56 characters for the TrainJob name.
    assert check_name_budgets(resolved(make_trainjob("a" * 56), runtime)) == []
    assert len(check_name_budgets(resolved(make_trainjob("a" * 57), runtime))) == 1


def test_the_output_check_reads_the_same_budgets():
    spec: JsonObject = {
        "replicatedJobs": [
            {
                "name": "node",
                "replicas": 1,
                "template": {"spec": {"completionMode": "Indexed", "completions": 2}},
            }
        ]
    }

    problems = [problem for _, problem in name_budget_problems("a" * 49, spec)]

    assert problems == [
        "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters: "
        f"'{'a' * 49}-node-0-1-abcde' has 64 characters"
    ]
