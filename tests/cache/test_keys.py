"""Keys tell different inputs apart, and the code fingerprint follows trainc's files."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from trainc.cache.keys import _file_stamps, _installed_libraries, code_fingerprint, digest


def test_parts_are_not_confused_by_where_one_ends() -> None:
    assert digest(["ab", "c"]) != digest(["a", "bc"])
    assert digest(["a", ""]) != digest(["a"])
    assert digest(["a", b"b"]) == digest([b"a", "b"])


def test_the_fingerprint_is_stable_within_a_run() -> None:
    assert code_fingerprint() == code_fingerprint()


def test_file_stamps_change_with_a_file_s_size_time_or_name(tmp_path: Path) -> None:
    module = tmp_path / "pkg" / "module.py"
    module.parent.mkdir()
    module.write_text("x = 1\n")
    (tmp_path / "pkg" / "__pycache__").mkdir()
    (tmp_path / "pkg" / "__pycache__" / "module.pyc").write_bytes(b"ignored")
    before = list(_file_stamps(tmp_path))
    info = module.stat()
    assert before == [f"{Path('pkg', 'module.py')} {info.st_size} {info.st_mtime_ns}"]
    os.utime(module, ns=(0, module.stat().st_mtime_ns + 1))
    touched = list(_file_stamps(tmp_path))
    module.write_text("x = 10\n")
    os.utime(module, ns=(0, 0))
    resized = list(_file_stamps(tmp_path))
    module.rename(module.with_name("other.py"))
    renamed = list(_file_stamps(tmp_path))
    assert len({*before, *touched, *resized, *renamed}) == 4


@pytest.mark.parametrize(
    "library",
    ["kubernetes_validate-1.38.0", "click-8.6.0", "jsonschema_rs-0.61.0", "pyyaml-6.1.0"],
)
def test_an_upgrade_of_a_library_that_shapes_the_results_changes_the_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, library: str
) -> None:
    """kubernetes-validate's bundled core schemas decide the output check's findings, and
    click's messages what a served command prints: another version is another trainc."""
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    (tmp_path / "requests-2.0.0.dist-info").mkdir()
    assert _installed_libraries() == []
    (tmp_path / f"{library}.dist-info").mkdir()
    assert _installed_libraries() == [f"{library}.dist-info"]
