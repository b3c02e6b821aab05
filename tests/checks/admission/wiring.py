"""Shared set-up of the admission families' wiring tests: a platform file read into a
ClusterObjects, and a TrainJob on a runtime resolved into an AdmissionInput."""

from __future__ import annotations

from tests.support.builders import container, make_runtime, make_trainjob, resolved, rjob
from trainc.checks.admission.cluster import cluster_objects
from trainc.checks.admission.created import AdmissionInput
from trainc.config.limits import InputLimits
from trainc.config.settings import ClusterSettings
from trainc.load.cluster_files import ClusterDocuments
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import JsonObject, JsonValue, as_object, get_path

NAMESPACE = "research"
_POD_SPEC = ("template", "spec", "template", "spec")

#: A claim template ``data`` of 100Gi, and a ``node`` container that mounts it.
DATA_CLAIMS: JsonObject = {
    "volumeClaimPolicies": [
        {
            "templates": [
                {
                    "metadata": {"name": "data"},
                    "spec": {
                        "accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": "100Gi"}},
                    },
                }
            ]
        }
    ]
}
DATA_NODE = container("node", volumeMounts=[{"name": "data", "mountPath": "/data"}])


def admission_input(
    platform: str,
    *,
    node: JsonObject | None = None,
    ml_policy: JsonValue = None,
    jobset: JsonObject | None = None,
    trainers: tuple[str, ...] = ("node",),
    applied: tuple[JsonObject, ...] = (),
    pod: JsonObject | None = None,
    **trainer: JsonValue,
) -> AdmissionInput:
    """TrainJob ``llama`` in ``research`` on runtime ``torch-gang`` (one ``node``
    replicatedJob whose container is ``node``; ``trainers`` names more trainer jobs alike;
    ``pod`` adds fields to their pod spec), against the cluster ``platform`` holds."""
    parsed = parse_documents(SourceFile(path="platform.yaml", text=platform), InputLimits())
    assert not parsed.diagnostics, parsed.diagnostics
    cluster = cluster_objects(
        ClusterSettings(manifests=("platform.yaml",)),
        ClusterDocuments(manifests=tuple(parsed.documents)),
        default_namespace=NAMESPACE,
    )
    assert not cluster.findings, cluster.findings
    main = node if node is not None else container("node")
    replicated_jobs = [rjob(name, ancestor="trainer", containers=[main]) for name in trainers]
    for replicated_job in replicated_jobs:
        as_object(get_path(replicated_job, _POD_SPEC)).update(pod or {})
    runtime = make_runtime(
        "torch-gang", ml_policy=ml_policy, jobset=jobset, replicated_jobs=replicated_jobs
    )
    if trainer:
        job = make_trainjob("llama", namespace=NAMESPACE, runtime="torch-gang", trainer=trainer)
    else:
        job = make_trainjob("llama", namespace=NAMESPACE, runtime="torch-gang")
    return AdmissionInput(resolved(job, runtime), cluster, (1, 33), applied)
