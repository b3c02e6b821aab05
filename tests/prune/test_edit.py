"""Taking TrainJob documents out of a file: the others stay byte for byte, or nothing moves."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from trainc.config.limits import InputLimits
from trainc.emit.replace import ChangedMeanwhile
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import JsonObject
from trainc.prune.edit import Edit, UnsafeEditError, apply_edit, without_documents

RUNTIME = "# the runtime\napiVersion: v1\nkind: Runtime\nmetadata:\n  name: r  # keep me\n"
JOB_A = "# job a\napiVersion: v1\nkind: TrainJob\nmetadata:\n  name: a\n"
JOB_B = "apiVersion: v1\nkind: TrainJob\nmetadata:\n  name: b\n"


def read(text: str, path: str = "f.yaml") -> list[JsonObject]:
    parsed = parse_documents(SourceFile(path=path, text=text), InputLimits())
    return [document.data for document in parsed.documents]  # type: ignore[misc]


def doc(text: str) -> JsonObject:
    (data,) = read(text)
    return data


def test_the_only_document_takes_its_file_with_it() -> None:
    assert without_documents("f.yaml", JOB_A, [doc(JOB_A)], InputLimits()) == Edit(
        "f.yaml", JOB_A, None
    )
    text = "---\n" + JOB_A + "---\n# nothing here\n"
    assert without_documents("f.yaml", text, [doc(JOB_A)], InputLimits()).text is None


def test_other_documents_stay_byte_for_byte() -> None:
    text = RUNTIME + "---\n" + JOB_A + "--- # b\n" + JOB_B
    edit = without_documents("f.yaml", text, [doc(JOB_A)], InputLimits())
    assert edit.text == RUNTIME + "--- # b\n" + JOB_B


def test_the_first_document_and_several_at_once() -> None:
    text = JOB_A + "---\n" + RUNTIME + "---\n" + JOB_B
    edit = without_documents("f.yaml", text, [doc(JOB_B), doc(JOB_A)], InputLimits())
    assert edit.text == "---\n" + RUNTIME


def test_a_json_file_of_one_trainjob_is_deleted() -> None:
    text = '{"apiVersion": "v1", "kind": "TrainJob", "metadata": {"name": "a"}}\n'
    assert without_documents("f.json", text, read(text, "f.json"), InputLimits()).text is None


def test_templates_and_documents_that_moved_are_left_alone() -> None:
    with pytest.raises(UnsafeEditError, match="template"):
        without_documents("f.yaml.j2", JOB_A, [doc(JOB_A)], InputLimits())
    with pytest.raises(UnsafeEditError, match="stand alone"):
        without_documents("f.yaml", RUNTIME + "---\n" + JOB_B, [doc(JOB_A)], InputLimits())
    with pytest.raises(UnsafeEditError, match="YAML"):
        without_documents("f.yaml", JOB_A + "---\n{: [\n", [doc(JOB_A)], InputLimits())


def test_apply_replaces_atomically_and_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "f.yaml"
    target.write_text("old", encoding="utf-8")
    os.chmod(target, 0o640)  # noqa: PTH101
    apply_edit(tmp_path, Edit("f.yaml", "old", "new\r\n"))
    assert target.read_bytes() == b"new\r\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["f.yaml"]
    with pytest.raises(ChangedMeanwhile):
        apply_edit(tmp_path, Edit("f.yaml", "old", None))
    apply_edit(tmp_path, Edit("f.yaml", "new\r\n", None))
    assert not target.exists()
