"""An outline locates its fields where the whole TrainJob does, and stays small: its
positions in one tuple, its defaulted fields sharing the loaded ones' mappings, through a
pickle as in memory."""

from __future__ import annotations

import pickle
from pathlib import Path

from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.config.settings import RepoConfig
from trainc.engine.file_pass import check_files, whole_object
from trainc.engine.outlines import OUTLINE_FIELDS, outline
from trainc.load.defaulted import DefaultedObject
from trainc.load.inputs import find_inputs


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
