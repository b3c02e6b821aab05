"""An outline locates its fields where the whole TrainJob does, and stays small: its
positions in one tuple, its defaulted fields sharing the loaded ones' mappings, through a
pickle as in memory."""

from __future__ import annotations

import pickle
from pathlib import Path

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.config.settings import RepoConfig
from trainc.engine.file_pass import check_files, whole_object
from trainc.engine.outlines import OUTLINE_FIELDS, outline, share_strings
from trainc.load.defaulted import DefaultedObject
from trainc.load.inputs import find_inputs
from trainc.model.json import get_path


def _trainjob(root: Path) -> DefaultedObject:
    (root / ".git").mkdir()
    write(root, "runtime.yaml", TORCH_RUNTIME)
    write(root, "jobs/a.yaml", trainjob_yaml("alpha", namespace="team-a", deadline=60))
    config = RepoConfig(root=root)
    [job, _] = check_files(find_inputs([root], config=config), config)
    whole = job.objects[0].whole
    assert whole is not None
    return whole_object(whole, None, None, config)


def test_an_outline_locates_every_path_as_the_whole_object_does(tmp_path: Path) -> None:
    whole = _trainjob(tmp_path)
    shape = outline(whole)
    deeper = [(*path, "below") for path in OUTLINE_FIELDS]
    for path in [(), ("metadata",), ("spec",), *OUTLINE_FIELDS, *deeper]:
        assert shape.loaded.document.locate(path) == whole.loaded.document.locate(path), path
    held = {path for path in whole.loaded.document.positions if len(path) <= 3}
    assert set(shape.loaded.document.positions) <= held
    assert ("spec", "activeDeadlineSeconds") not in shape.loaded.document.positions
    assert shape.loaded.document.positions[("metadata", "namespace")] == (4, 2)


def test_an_outline_shares_its_mappings_through_a_pickle(tmp_path: Path) -> None:
    made = outline(_trainjob(tmp_path))
    shape = pickle.loads(pickle.dumps(made))  # noqa: S301 - our own bytes
    assert shape.data == {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "alpha", "namespace": "team-a"},
        "spec": {"runtimeRef": shape.data["spec"]["runtimeRef"]},
    }
    assert shape.data["metadata"] is shape.loaded.data["metadata"]
    positions = shape.loaded.document.positions
    assert dict(positions) == dict(made.loaded.document.positions)
    assert len(positions) == 9  # the root, its two fields, metadata and spec, and below


def test_outlines_read_back_share_their_keys_and_common_values(tmp_path: Path) -> None:
    shape = outline(_trainjob(tmp_path))
    first, second = (pickle.loads(pickle.dumps(shape)) for _ in range(2))  # noqa: S301
    runtime = ("spec", "runtimeRef", "name")
    assert get_path(first.data, runtime) is not get_path(second.data, runtime)
    share_strings(first)
    share_strings(second)
    for copy in (first, second):  # the same fields, in the same order
        assert list(copy.loaded.data.items()) == list(shape.loaded.data.items())
        assert copy.data == shape.data
    assert get_path(first.data, runtime) is get_path(second.data, runtime)
    first_keys, second_keys = (list(copy.loaded.data) for copy in (first, second))
    assert all(a is b for a, b in zip(first_keys, second_keys, strict=True))
