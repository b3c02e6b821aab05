"""The runtime index answers each reference once, and answers it per namespace."""

from __future__ import annotations

from tests.support.builders import make_runtime, make_trainjob
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import as_object, get_path
from trainc.resolve.index import LookupFailure, RuntimeIndex


def _namespaced(name: str, namespace: str) -> DefaultedObject:
    kind = "TrainingRuntime"
    return make_trainjob(name, namespace=namespace, runtime="shared", runtime_kind=kind)


def test_trainjobs_naming_one_runtime_find_the_same_object() -> None:
    runtime = make_runtime("torch-distributed")
    index = RuntimeIndex([runtime])
    first, second = make_trainjob("a"), make_trainjob("b")
    assert index.lookup(first) is runtime
    assert index.lookup(second) is runtime


def test_a_trainingruntime_is_found_only_in_its_own_namespace_however_often_asked() -> None:
    runtime = make_runtime("shared", kind="TrainingRuntime", namespace="team-a")
    index = RuntimeIndex([runtime])
    for _ in range(2):
        assert index.lookup(_namespaced("a", "team-a")) is runtime
        elsewhere = index.lookup(_namespaced("b", "team-b"))
        assert isinstance(elsewhere, LookupFailure)
        assert "namespace 'team-b'" in elsewhere.message
        assert elsewhere.hint is not None
        assert "team-a" in elsewhere.hint


def test_a_reference_of_the_wrong_shape_is_a_failure_not_a_crash() -> None:
    index = RuntimeIndex([make_runtime()])
    job = make_trainjob()
    ref = as_object(get_path(job.data, ("spec", "runtimeRef")))
    ref["name"] = ["torch-distributed"]
    found = index.lookup(job)
    assert isinstance(found, LookupFailure)
    assert found.message == "spec.runtimeRef.name is not set"
