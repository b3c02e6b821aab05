from tests.support.builders import located, make_runtime, make_trainjob, rjob, with_jobset_metadata
from trainc.checks.webhooks.volcano import check_volcano_queue
from trainc.load.defaulted import DefaultedObject

QUEUE = "scheduling.volcano.sh/queue-name"


def _runtime(queue: str | None = None, *, volcano: bool = True) -> DefaultedObject:
    runtime = make_runtime(
        podGroupPolicy={"volcano": {}} if volcano else {"coscheduling": {}},
        replicated_jobs=[rjob("node", ancestor="trainer")],
    )
    return with_jobset_metadata(
        runtime, {"annotations": {QUEUE: queue}} if queue is not None else None
    )


def _patched(queue: str) -> DefaultedObject:
    return make_trainjob(
        runtimePatches=[
            {
                "manager": "kueue.x-k8s.io/manager",
                "trainingRuntimeSpec": {"template": {"metadata": {"annotations": {QUEUE: queue}}}},
            }
        ]
    )


def test_empty_runtime_queue_points_at_the_runtime():
    findings = check_volcano_queue(make_trainjob(), _runtime(""))

    assert located(findings) == [
        ("xobj.volcano-queue-empty", f"spec.template.metadata.annotations[{QUEUE}]")
    ]
    assert findings[0].file == "runtime.yaml"
    assert findings[0].message.startswith("Volcano queue name must not be empty")


def test_empty_patched_queue_points_at_the_patch():
    findings = check_volcano_queue(_patched(""), _runtime("research"))

    assert located(findings) == [
        (
            "xobj.volcano-queue-empty",
            f"spec.runtimePatches[0].trainingRuntimeSpec.template.metadata.annotations[{QUEUE}]",
        )
    ]


def test_later_value_wins():
    assert check_volcano_queue(_patched("research"), _runtime("")) == []


def test_queue_is_only_volcano_business():
    assert check_volcano_queue(_patched(""), _runtime(volcano=False)) == []
    assert check_volcano_queue(make_trainjob(), _runtime()) == []
