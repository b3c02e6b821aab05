"""The one rule every index of stamps keeps: a stamp taken within the timestamp
granularity of its file's last change is racy (https://git-scm.com/docs/racy-git)."""

from __future__ import annotations

from pathlib import Path

from trainc.cache.stat_index import GRANULARITY_NS, file_stamp, racy, settled

SECOND = 10**9


def test_a_stamp_is_racy_until_its_times_lie_a_granularity_before_stat_ing_began() -> None:
    written = 1_700_000_000 * SECOND
    stamp = (10, written, written, 1, 1)
    assert racy(stamp, since_ns=written)  # stat-ed in the tick it was written
    assert racy(stamp, since_ns=written + GRANULARITY_NS)  # the boundary itself is racy
    assert not racy(stamp, since_ns=written + GRANULARITY_NS + 1)


def test_a_recent_status_change_makes_an_old_modification_time_racy() -> None:
    # `touch -r old file` or a restored mtime after an edit: the change time is what is new.
    old, changed = 1_600_000_000 * SECOND, 1_700_000_000 * SECOND
    assert racy((10, old, changed, 1, 1), since_ns=changed + SECOND)
    assert not racy((10, old, changed, 1, 1), since_ns=changed + GRANULARITY_NS + SECOND)


def test_settled_keeps_only_entries_a_later_run_may_trust(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text("kind: TrainJob\n")
    packed = file_stamp(str(path))
    assert packed is not None
    assert file_stamp(str(tmp_path / "missing.yaml")) is None
    info = path.stat()
    changed = max(info.st_mtime_ns, info.st_ctime_ns)
    entries = {"job.yaml": (packed, True)}
    assert settled(entries, since_ns=changed) == {}
    assert settled(entries, since_ns=changed + GRANULARITY_NS + 1) == entries
