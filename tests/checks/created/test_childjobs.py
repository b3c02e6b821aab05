"""The API server's verdict on a resolved JobSet's Jobs, at the input lines behind it."""

from __future__ import annotations

import textwrap

from tests.support.builders import defaulted, object_from_yaml, resolved
from trainc.checks.created.childjobs import check_child_jobs, resolved_child_jobs
from trainc.diagnostics import Diagnostic, sort_diagnostics
from trainc.load.defaulted import DefaultedObject

VERSION = (1, 33)

RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch
spec:
  mlPolicy:
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
"""


def _runtime(extra: str = "", image: bool = False) -> DefaultedObject:
    text = RUNTIME + ("                      image: pytorch/pytorch:2.13\n" if image else "")
    return defaulted(object_from_yaml(text + extra, "runtime.yaml"))


def _trainjob(spec: str = "", name: str = "job") -> DefaultedObject:
    text = (
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
        f"metadata:\n  name: {name}\nspec:\n  runtimeRef:\n    name: torch\n"
        + textwrap.indent(textwrap.dedent(spec), "  ")
    )
    return defaulted(object_from_yaml(text, f"{name}.yaml"))


def _check(trainjob: DefaultedObject, runtime: DefaultedObject) -> list[Diagnostic]:
    job = resolved(trainjob, runtime)
    return check_child_jobs(job, VERSION, resolved_child_jobs(job))


def _where(found: list[Diagnostic]) -> list[tuple[str, str | None, int | None]]:
    return [(d.code, d.file, d.line) for d in found]


def test_a_missing_image_is_reported_at_the_runtime_container() -> None:
    found = _check(_trainjob(), _runtime())

    assert _where(found) == [("pod.image", "runtime.yaml", 20)]
    assert found[0].message == (
        "the API server would refuse the Job of replicatedJob 'node', created by the JobSet "
        "controller: spec.template.spec.containers[0].image: Required value"
    )
    assert found[0].field_path == (
        "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image"
    )


def test_the_trainjob_image_fills_the_gap() -> None:
    assert _check(_trainjob("trainer:\n  image: example.com/train:1\n"), _runtime()) == []


def test_a_gpu_request_below_its_limit_is_reported_at_the_trainjob_request() -> None:
    trainjob = _trainjob("""\
        trainer:
          resourcesPerNode:
            requests:
              nvidia.com/gpu: 2
            limits:
              nvidia.com/gpu: 4
    """)

    found = _check(trainjob, _runtime(image=True))

    # The API server names the whole requests; the line is the GPU request's own.
    assert _where(found) == [("pod.resource-limits", "job.yaml", 11)]
    assert found[0].field_path == "spec.trainer.resourcesPerNode.requests[nvidia.com/gpu]"
    assert found[0].message.endswith(
        'resources.requests: Invalid value: "2": must be equal to nvidia.com/gpu limit of 4'
    )


def test_a_value_a_runtime_patch_wrote_names_its_manager() -> None:
    trainjob = _trainjob("""\
        runtimePatches:
          - manager: example.com/scheduler
            trainingRuntimeSpec:
              template:
                spec:
                  replicatedJobs:
                    - name: node
                      template:
                        spec:
                          template:
                            spec:
                              nodeSelector:
                                zone: Europe West
    """)

    found = _check(trainjob, _runtime(image=True))

    assert _where(found) == [("pod.node-selector", "job.yaml", 19)]
    assert found[0].hint == (
        "written in the runtime patch of manager 'example.com/scheduler' of TrainJob job"
    )


def test_a_default_the_webhook_writes_is_reported_at_its_cause_with_the_rule() -> None:
    policy = textwrap.indent(
        "podFailurePolicy:\n  rules:\n    - action: FailJob\n      onExitCodes:\n"
        "        operator: In\n        values: [42]\n",
        " " * 14,
    )
    text = RUNTIME.replace(
        "            spec:\n              template:\n",
        f"            spec:\n{policy}              template:\n",
        1,
    )
    runtime = defaulted(object_from_yaml(f"{text}                      image: i\n", "runtime.yaml"))

    found = _check(_trainjob(), runtime)

    assert _where(found) == [("job.restart-policy", "runtime.yaml", 11)]
    assert found[0].hint == "set by the JobSet webhook: restartPolicy defaults to 'OnFailure'"


def test_a_runtime_mistake_is_one_finding_however_many_trainjobs_use_it() -> None:
    runtime = _runtime()

    found = [*_check(_trainjob(name="a"), runtime), *_check(_trainjob(name="b"), runtime)]

    assert len(sort_diagnostics(found)) == 1


def test_a_job_without_containers_is_left_to_the_jobset_check() -> None:
    text = RUNTIME.replace(
        "                  containers:\n                    - name: node\n",
        "                  restartPolicy: Never\n",
    )

    assert _check(_trainjob(), defaulted(object_from_yaml(text, "runtime.yaml"))) == []


def test_one_line_that_reaches_several_jobs_is_one_finding_naming_them() -> None:
    # A second trainer job, as the first: resourcesPerNode reaches both of them.
    job = RUNTIME[RUNTIME.index("        - name: node") :].replace("name: node", "name: worker", 1)
    image = "                      image: pytorch/pytorch:2.13\n"
    runtime = defaulted(object_from_yaml(RUNTIME + image + job + image, "runtime.yaml"))
    trainjob = _trainjob("""\
        trainer:
          resourcesPerNode:
            requests:
              nvidia.com/gpu: 2
    """)

    found = _check(trainjob, runtime)

    # At the request without a limit, not at the TrainJob's resourcesPerNode.
    assert _where(found) == [("pod.resource-limits", "job.yaml", 11)]
    assert found[0].message.startswith(
        "the API server would refuse the Jobs of replicatedJobs 'node' and 'worker', created "
        "by the JobSet controller: spec.template.spec.containers[0].resources.limits: "
        "Required value"
    )
    assert str(found[0].hint).startswith("nvidia.com/gpu is requested (2) without a limit")


def test_a_request_without_a_limit_in_the_runtime_stays_on_the_runtime_request() -> None:
    resources = textwrap.indent("resources:\n  requests:\n    nvidia.com/gpu: 1\n", " " * 22)
    found = _check(_trainjob(), _runtime(resources, image=True))

    assert _where(found) == [("pod.resource-limits", "runtime.yaml", 24)]
    assert found[0].kind == "ClusterTrainingRuntime"


def test_a_limit_the_trainjob_adds_clears_the_runtime_request() -> None:
    resources = textwrap.indent("resources:\n  requests:\n    nvidia.com/gpu: 1\n", " " * 22)
    trainjob = _trainjob("""\
        trainer:
          resourcesPerNode:
            limits:
              nvidia.com/gpu: 1
    """)

    assert _check(trainjob, _runtime(resources, image=True)) == []
