"""Small output trees and ways to look at a written directory, for the writer's tests."""

from __future__ import annotations

import stat
from pathlib import Path

from trainc.emit.writer import OLD_SUFFIX, OWNERSHIP_FILE

OLD = {
    "kustomization.yaml": b"resources:\n- team-a/a.yaml\n- team-a/b.yaml\n",
    "team-a/a.yaml": b"kind: JobSet\nname: a\n",
    "team-a/b.yaml": b"kind: JobSet\nname: b\n",
}
NEW = {
    "_shared/trainc-system/cronjob-sweeper.yaml": b"kind: CronJob\n",
    "kustomization.yaml": b"resources:\n- team-a/a.yaml\n- team-b/c.yaml\n",
    "team-a/a.yaml": b"kind: JobSet\nname: a\nchanged: true\n",
    "team-b/c.yaml": b"kind: JobSet\nname: c\n",
}


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every entry below ``directory``: file bytes and modes, directories with b"/"."""
    found: dict[str, tuple[bytes, int]] = {}
    for path in sorted(directory.rglob("*")):
        mode = stat.S_IMODE(path.lstat().st_mode)
        content = b"/" if path.is_dir() else path.read_bytes()
        found[path.relative_to(directory).as_posix()] = (content, mode)
    return found


def visible_tree(out: Path) -> dict[str, tuple[bytes, int]]:
    """The tree a reader of ``out`` sees, or, between the writer's two renames (``out``
    missing), the previous tree the next run restores."""
    return snapshot(out if out.exists() else out.with_name(f".{out.name}{OLD_SUFFIX}"))


def expected_files(files: dict[str, bytes]) -> dict[str, bytes]:
    """What a written tree of ``files`` holds: them and their ownership manifest."""
    return {**files, OWNERSHIP_FILE: "".join(f"{path}\n" for path in sorted(files)).encode()}


def file_contents(directory: Path) -> dict[str, bytes]:
    """The bytes of every file below ``directory``."""
    return {path: data for path, (data, _) in snapshot(directory).items() if data != b"/"}
