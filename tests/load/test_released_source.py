"""A source whose text the run let go keeps its key, and quotes its file read again only
while the file still holds the text checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainc.load.source import SourceFile

TEXT = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"


def test_a_released_source_keeps_its_key_and_quotes_the_file_read_again(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(TEXT, encoding="utf-8")
    whole = SourceFile("a.yaml", TEXT)
    released = whole.released_copy()
    assert (released.text, released.key) == ("", whole.key)
    assert released.quote(2, tmp_path) == "kind: TrainJob"
    assert not released.changed(tmp_path)
    assert released.quote(2) is None  # no root to read it under


def test_a_changed_or_missing_file_is_not_quoted(tmp_path: Path) -> None:
    released = SourceFile("b.yaml", TEXT).released_copy()
    assert released.quote(2, tmp_path) is None
    assert released.changed(tmp_path)
    (tmp_path / "c.yaml").write_text("# edited\n" + TEXT, encoding="utf-8")
    edited = SourceFile("c.yaml", TEXT).released_copy()
    assert edited.quote(2, tmp_path) is None  # not "apiVersion: ...", now on line 2
    assert edited.changed(tmp_path)


def test_a_rendered_template_keeps_its_text() -> None:
    template = SourceFile("a.yaml.j2", TEXT, original="{{ x }}\n", line_map=(1, 1))
    with pytest.raises(ValueError, match="template keeps its text"):
        template.released_copy()
