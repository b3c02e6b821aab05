"""What a platform team's first week printed, replayed in a repository from ``trainc init``.

Each test writes the file a data scientist or a platform admin wrote, runs the command
they ran, and reads the message they got: it must name the value, the cause and the fix.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke
from tests.support.manifests import write

#: The TrainJob ``trainc init`` writes, with the resources a data scientist gives it.
JOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  labels:
    team: vision
spec:
  runtimeRef:
    name: {runtime}
  trainer:
    numNodes: 4
    image: pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime
{resources}"""


@pytest.fixture
def scaffold(tmp_path: Path, invoke: Invoke) -> Path:
    """A repository as ``trainc init`` writes it."""
    assert invoke(tmp_path, "init").code == 0
    return tmp_path


def _job(name: str, resources: str, runtime: str = "torch-distributed") -> str:
    return JOB.format(name=name, runtime=runtime, resources=resources)


def _findings(out: str, code: str) -> list[dict[str, object]]:
    return [d for d in json.loads(out)["diagnostics"] if d["code"] == code]


def test_a_fraction_of_a_gpu_is_named_as_a_quantity_with_the_whole_number_fix(
    scaffold: Path, invoke: Invoke
) -> None:
    unquoted = "    resourcesPerNode:\n      limits:\n        nvidia.com/gpu: 0.5\n"
    write(scaffold, "jobs/half.yaml", _job("half", unquoted))
    first = invoke(scaffold, "validate", "jobs/half.yaml")
    assert first.code == 1
    assert "error[schema.type]" in first.out
    # Quoting would only trade this error for the next: the hint says what is valid.
    assert 'write the quantity as a string: "0.5"' not in first.out
    assert "help: nvidia.com/gpu is counted in whole units, and 500m is 0.5:" in first.out
    assert "write a whole number such as 1" in first.out

    write(scaffold, "jobs/half.yaml", _job("half", unquoted.replace("0.5", '"0.5"')))
    quoted = invoke(scaffold, "validate", "jobs/half.yaml")
    assert quoted.code == 1
    assert "resource.Quantity{" not in quoted.out
    assert (
        "containers[0].resources.limits[nvidia.com/gpu]: "
        'Invalid value: "500m": must be an integer' in quoted.out
    )
    assert "help: nvidia.com/gpu is counted in whole units" in quoted.out


def test_a_gpu_request_without_a_limit_is_one_finding_naming_the_resource_and_the_jobs(
    scaffold: Path, invoke: Invoke, shared_dir: Path
) -> None:
    # Upstream's deepspeed runtime: with runLauncherAsNode, the TrainJob's
    # resourcesPerNode reaches both its launcher and its nodes.
    upstream = shared_dir / "upstream" / "trainer-examples" / "deepspeed_distributed.yaml"
    write(scaffold, "runtimes/deepspeed.yaml", upstream.read_text())
    config = scaffold / "trainc.yaml"
    config.write_text(
        config.read_text().replace("  # mpi:\n  #   sshAuthSecret", "  mpi:\n    sshAuthSecret")
    )
    requests = "    resourcesPerNode:\n      requests:\n        nvidia.com/gpu: 2\n"
    write(scaffold, "jobs/ds.yaml", _job("ds", requests, runtime="deepspeed-distributed"))
    result = invoke(scaffold, "validate", "--format", "json", "jobs/ds.yaml")
    assert result.code == 1
    [finding] = _findings(result.out, "pod.resource-limits")
    assert finding["line"] == 15  # the request without a limit, the one line that causes it
    assert finding["name"] == "ds"
    assert str(finding["message"]).startswith(
        "the API server would refuse the Jobs of replicatedJobs 'node' and 'launcher', "
        "created by the JobSet controller: "
    )
    assert finding["hint"] == (
        "nvidia.com/gpu is requested (2) without a limit, and it cannot be overcommitted: "
        "set limits: {nvidia.com/gpu: 2} beside the request, or the limit alone "
        "(the request defaults to it)"
    )


def test_schema_findings_of_a_job_without_namespace_name_the_namespace_it_lands_in(
    scaffold: Path, invoke: Invoke
) -> None:
    misplaced = "  resourcesPerNode:\n    limits:\n      nvidia.com/gpu: 1\n"
    write(scaffold, "jobs/a.yaml", _job("a", misplaced))
    result = invoke(scaffold, "validate", "--format", "json", "jobs/a.yaml")
    [finding] = _findings(result.out, "schema.unknown-field")
    assert finding["namespace"] == "default"
    text = invoke(scaffold, "validate", "jobs/a.yaml").out
    assert "note: TrainJob default/a, field: spec.resourcesPerNode" in text

    config = scaffold / "trainc.yaml"
    config.write_text(config.read_text().replace("# namespace: ml-team", "namespace: ml-team"))
    moved = invoke(scaffold, "validate", "--format", "json", "jobs/a.yaml")
    assert _findings(moved.out, "schema.unknown-field")[0]["namespace"] == "ml-team"


def test_validating_the_policies_directory_counts_its_policy_files(
    scaffold: Path, invoke: Invoke
) -> None:
    result = invoke(scaffold, "validate", "-q", "policies/")
    assert result.code == 0
    assert invoke(scaffold, "validate", "policies/").out.endswith(
        "Found 2 warnings in 1 policy file.\n"
    )
    both = invoke(scaffold, "validate", "policies/team-label.yaml", "jobs/")
    assert both.out.endswith("in 1 file and 1 policy file (1 object checked).\n")
    summary = json.loads(invoke(scaffold, "validate", "--format", "json", "policies").out)
    assert (summary["summary"]["files"], summary["summary"]["policyFiles"]) == (0, 1)
    # The whole repository's count is of its input files, as before, named or not.
    for whole in ((), (".",)):
        run = json.loads(invoke(scaffold, "validate", "--format", "json", *whole).out)
        assert (run["summary"]["files"], run["summary"]["policyFiles"]) == (2, 0)


def test_a_mis_indented_field_is_pointed_to_where_it_belongs(
    scaffold: Path, invoke: Invoke
) -> None:
    too_little = "  resourcesPerNode:\n    limits:\n      nvidia.com/gpu: 1\n"
    write(scaffold, "jobs/a.yaml", _job("a", too_little))
    [finding] = _findings(
        invoke(scaffold, "validate", "--format", "json", "jobs/a.yaml").out,
        "schema.unknown-field",
    )
    assert (finding["line"], finding["fieldPath"]) == (13, "spec.resourcesPerNode")
    assert finding["hint"] == (
        "did you mean 'spec.trainer.resourcesPerNode'? The line may be indented to the wrong level"
    )

    too_much = _job("b", "").replace(
        "  runtimeRef:\n    name: torch-distributed\n  trainer:\n    numNodes: 4\n",
        "  trainer:\n    numNodes: 4\n    runtimeRef:\n      name: torch-distributed\n",
    )
    write(scaffold, "jobs/a.yaml", too_much)
    [deep] = _findings(
        invoke(scaffold, "validate", "--format", "json", "jobs/a.yaml").out,
        "schema.unknown-field",
    )
    assert deep["fieldPath"] == "spec.trainer.runtimeRef"
    assert str(deep["hint"]).startswith("did you mean 'spec.runtimeRef'?")


def test_a_cel_compile_error_points_at_its_column_in_the_policy_file(
    scaffold: Path, invoke: Invoke
) -> None:
    # The scaffold's policy, a typo put in its expression and a rule added, folded.
    policy = scaffold / "policies" / "team-label.yaml"
    folded = (
        "    - expression: >-\n"
        "        has(object.metadata.labels) &&\n"
        "        object.metadata.labels.team ==== 'vision'\n"
        '      message: "only vision"\n'
        "  validationActions:"
    )
    policy.write_text(
        policy.read_text()
        .replace("labels) && 'team'", "labels) &&& 'team'")
        .replace("  validationActions:", folded)
    )
    result = invoke(scaffold, "validate", "--format", "json", "policies/")
    assert result.code == 1
    one_line, second = _findings(result.out, "policy.invalid")
    # The third `&`, in the double-quoted string on line 12.
    assert (one_line["line"], one_line["column"]) == (12, 50)
    assert str(one_line["message"]).startswith("expression does not compile: <input>:1:31:")
    # The second `==`, on the folded block's second line, not its first.
    assert (second["line"], second["column"]) == (16, 39)
    text = invoke(scaffold, "validate", "policies/").out
    assert "16 |         object.metadata.labels.team ==== 'vision'\n" in text
    assert "   |                                       ^\n" in text


def test_explain_credits_each_torchrun_variable_to_its_cause(
    scaffold: Path, invoke: Invoke
) -> None:
    gpus = "    resourcesPerNode:\n      limits:\n        nvidia.com/gpu: 1\n"
    write(scaffold, "jobs/a.yaml", _job("a", gpus))

    def explained(variable: str) -> str:
        result = invoke(scaffold, "explain", "jobs/a.yaml", "--field", f"env[{variable}]")
        assert result.code == 0, result.err
        return result.out

    # numNodes is line 11 of the TrainJob, resourcesPerNode line 13, its name line 4;
    # the runtime's `torch: {}` is line 14 of runtimes/torch-distributed.yaml.
    assert "torch plugin: torchrun environment (from jobs/a.yaml:11)" in explained("PET_NNODES")
    assert "(from jobs/a.yaml:13)" in explained("PET_NPROC_PER_NODE")
    assert "(from jobs/a.yaml:4)" in explained("PET_MASTER_ADDR")
    rank = explained("PET_NODE_RANK")
    assert "(from runtimes/torch-distributed.yaml:14)" in rank

    # Without numNodes in the TrainJob, the count is the runtime's mlPolicy.numNodes.
    write(scaffold, "jobs/a.yaml", _job("a", gpus).replace("    numNodes: 4\n", ""))
    assert "(from runtimes/torch-distributed.yaml:13)" in explained("PET_NNODES")
