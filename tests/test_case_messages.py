"""The words of corpus findings: formats said in words, refused updates with their fix.

``tests/test_cases.py`` pins where each finding of the corpus is; this pins what some of
them say, for the messages a newcomer meets first: a bad quantity or name in plain words
instead of a regular expression, an immutable field with what to do instead, and a value
kubectl cannot decode named as what it is, once.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_cases import ALL_CASES, Case, run_case
from trainc.diagnostics import Diagnostic, Severity

_CASES = {case.id: case for case in ALL_CASES}

#: Something only a regular expression holds: a character class with a range, an anchor
#: before a group or class, a group made optional or repeated.
_REGEX = re.compile(r"\[[^\]\s]*[A-Za-z0-9]-[A-Za-z0-9][^\]\s]*\]|\^[\[(]|\)[*?+]")

_TRAINJOB_FIX = "to change it, submit the job under a new metadata.name"
_RUNTIME_FIX = "to change it, put the change in a new runtime (a new metadata.name)"
_QUANTITY = "must be a Kubernetes quantity such as 500m, 4Gi or 2, not"

#: Case → (code, words its message or hint holds).
WORDS: dict[str, tuple[str, str]] = {
    "psa/invalid/forbidden": (
        "psa.forbidden",
        "TrainJob ml/job: the pods of replicatedJob 'node', created by the Job controller in "
        "namespace 'ml', are refused: pods \"…\" is forbidden: violates PodSecurity "
        '"restricted:latest": allowPrivilegeEscalation != false (container "node" must set '
        "securityContext.allowPrivilegeEscalation=false)",
    ),
    "psa/invalid/forbidden--pinned-version": ("psa.forbidden", 'PodSecurity "restricted:v1.21"'),
    "psa/invalid/would-violate": ("psa.would-violate", "warn: would violate PodSecurity"),
    "limitrange/invalid/max": (
        "limitrange.max",
        "the API server would refuse the pods of replicatedJob 'node', created by the Job "
        "controller: maximum cpu usage per Container is 8, but limit is 16 (LimitRange "
        "'per-container')",
    ),
    "quota/invalid/must-specify": (
        "quota.must-specify",
        "TrainJob ml/llama: the API server would refuse the pods of replicatedJob 'node', "
        "created by the Job controller: failed quota: compute: must specify limits.cpu for: node",
    ),
    "quota/invalid/exceeded--update-claim": (
        "quota.exceeded",
        "the API server would refuse the PersistentVolumeClaim 'checkpoints-llama', applied "
        "by the GitOps tool as an update of the deployed one: exceeded quota: storage, "
        "requested: requests.storage=60Gi, used: requests.storage=0",
    ),
    "quota/invalid/gang-exceeds": (
        "quota.gang-exceeds",
        "the TrainJob's pods must all run at once, and quota 'gpus' can never admit all 4 "
        "pods of this gang at once: together they request requests.nvidia.com/gpu=16, but "
        "the quota allows requests.nvidia.com/gpu=8 in the whole namespace",
    ),
    "vap/invalid/denied": (
        "vap.denied",
        "TrainJob ml/job: the pods of replicatedJob 'node', created by the Job controller, are "
        "refused: pods \"…\" is forbidden: ValidatingAdmissionPolicy 'approved-registry' with "
        "binding 'approved-registry' denied request: images must come from registry.internal/",
    ),
    "vap/invalid/not-evaluated": (
        "vap.not-evaluated",
        "ValidatingAdmissionPolicy 'may-use-gpus' with binding 'may-use-gpus' cannot be "
        "evaluated offline on them: its expressions use `authorizer`",
    ),
    "kueue/invalid/inadmissible": (
        "kueue.inadmissible",
        "Kueue would never admit the JobSet 'job', applied by the GitOps tool, queued in "
        "ClusterQueue 'gpu': the pods of replicatedJob 'node', created by the Job controller, "
        "fit its quota under no flavor, even with nothing else running: couldn't assign "
        "flavors to pod set node: insufficient quota for nvidia.com/gpu in flavor a100",
    ),
    "kueue/invalid/queue-missing": (
        "kueue.queue-missing",
        "(queue 'team-b'): LocalQueue team-b doesn't exist",
    ),
    "schema/invalid/pattern": ("schema.pattern", f"{_QUANTITY} '4 cores'"),
    "schema/invalid/pattern--memory": ("schema.pattern", f"{_QUANTITY} '16 GB'"),
    "schema/invalid/type--quantity": ("schema.type", "a Kubernetes quantity such as 500m"),
    "cel/invalid/trainjob.name-format": (
        "cel.trainjob.name-format",
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
        "with an alphabetic character",
    ),
    "cel/invalid/trainjob.storage-uri": ("cel.trainjob.storage-uri", "a URI is a scheme"),
    "meta/invalid/name-format": (
        "meta.name-format",
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters",
    ),
    "meta/invalid/namespace-format": (
        "meta.namespace-format",
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'",
    ),
    "meta/invalid/label-key": ("meta.label-key", "name part must consist of alphanumeric"),
    "meta/invalid/label-value": ("meta.label-value", "a valid label must be an empty string"),
    "cel/invalid/trainjob.trainer-immutable": ("cel.trainjob.trainer-immutable", _TRAINJOB_FIX),
    "cel/invalid/trainjob.runtime-ref-immutable": (
        "cel.trainjob.runtime-ref-immutable",
        _TRAINJOB_FIX,
    ),
    "cel/invalid/trainjob.patch-volumes-immutable": (
        "cel.trainjob.patch-volumes-immutable",
        _TRAINJOB_FIX,
    ),
    "cel/invalid/jobset.failure-policy-immutable": (
        "cel.jobset.failure-policy-immutable",
        _RUNTIME_FIX,
    ),
    "cel/invalid/jobset.depends-on-immutable": ("cel.jobset.depends-on-immutable", _RUNTIME_FIX),
    "load/invalid/syntax--non-finite": ("load.syntax", "is read as a float"),
}


def _reported(case: Case, root: Path) -> list[Diagnostic]:
    return [d for d in run_case(case, root).diagnostics if d.severity is not Severity.INFO]


@pytest.mark.parametrize("case_id", sorted(WORDS))
def test_findings_say_it_in_words(case_id: str, tmp_path: Path) -> None:
    code, words = WORDS[case_id]
    findings = _reported(_CASES[case_id], tmp_path / "repo")
    texts = [f"{d.message}\n{d.hint or ''}" for d in findings if d.code == code]
    assert texts, f"{case_id} reports no {code}"
    assert all(words in text for text in texts), texts
    leaked = [text for d in findings for text in (d.message, d.hint or "") if _REGEX.search(text)]
    assert not leaked


def test_immutable_fields_keep_the_message_their_crd_states(tmp_path: Path) -> None:
    (trainjob,) = _reported(_CASES["cel/invalid/trainjob.trainer-immutable"], tmp_path / "a")
    (runtime,) = _reported(_CASES["cel/invalid/jobset.network-immutable"], tmp_path / "b")
    assert (trainjob.message, runtime.message) == ("field is immutable", "Value is immutable")


def test_a_value_kubectl_cannot_decode_is_reported_once_as_what_it_is(tmp_path: Path) -> None:
    findings = _reported(_CASES["load/invalid/syntax--non-finite"], tmp_path / "repo")
    assert [(d.field_path, d.message.split(",")[0]) for d in findings] == [
        ("metadata.labels.loss", "'.nan' is read as a float NaN"),
        ("spec.trainer.numNodes", "'.inf' is read as a float infinity"),
        ("spec.trainer.command[3]", "'-.inf' is read as a float infinity"),
    ]


def test_the_regex_detector_finds_what_used_to_leak() -> None:
    assert _REGEX.search("regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'")
    assert _REGEX.search(r'"4 cores" does not match "^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))"')
    assert _REGEX.search("rule: self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')")
    assert not _REGEX.search("lower case alphanumeric characters or '-' (e.g. 'my-name')")
