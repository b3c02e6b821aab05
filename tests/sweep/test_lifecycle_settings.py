from __future__ import annotations

import pytest

from tests.sweep.states import jobset
from trainc.sweep.lifecycle_settings import Settings, read_settings, source_file
from trainc.sweep.model import Reason

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1


def test_unset_settings_are_none_without_notes() -> None:
    assert read_settings(jobset()) == (Settings(None, None, None), ())


def test_valid_settings_are_read_as_seconds() -> None:
    settings, notes = read_settings(jobset(deadline=28800, ttl=86400, progress=600))
    assert settings == Settings(active_deadline=28800, ttl=86400, progress_deadline=600)
    assert notes == ()


@pytest.mark.parametrize(
    ("value", "expected"),
    [("0", 0), ("1", 1), (str(INT32_MAX), INT32_MAX)],
)
def test_ttl_bounds_are_those_of_kep_2899(value: str, expected: int) -> None:
    assert read_settings(jobset(ttl=value))[0].ttl == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1", 1), (str(INT64_MAX), INT64_MAX)],
)
def test_deadline_bounds(value: str, expected: int) -> None:
    settings, _ = read_settings(jobset(deadline=value, progress=value))
    assert (settings.active_deadline, settings.progress_deadline) == (expected, expected)


INVALID = [
    "",
    "0",
    "-1",
    "+60",
    " 60",
    "60 ",
    "060",
    "60s",
    "1h",
    "1.5",
    "1e3",
    "0x10",
    "٦٠",  # Arabic-Indic digits: int() accepts them, the API does not
    "6_0",
    str(INT64_MAX + 1),
    "9" * 5000,  # longer than int() converts
]


@pytest.mark.parametrize("value", INVALID)
def test_invalid_deadlines_are_noted_and_not_enforced(value: str) -> None:
    settings, notes = read_settings(jobset(deadline=value, progress=value))
    assert settings == Settings(None, None, None)
    assert [note.reason for note in notes] == [Reason.INVALID_SETTING] * 2
    assert all(note.wait_seconds is None for note in notes)


@pytest.mark.parametrize("value", ["-1", str(INT32_MAX + 1), "forever", "1d"])
def test_invalid_ttls_are_noted(value: str) -> None:
    settings, notes = read_settings(jobset(ttl=value))
    assert settings.ttl is None
    (note,) = notes
    assert note.message == (
        f"annotation trainc.dev/ttl-seconds-after-finished={value!r} is not a whole number of "
        f"seconds from 0 to {INT32_MAX}; it is not enforced until jobs/train.yaml is fixed"
    )


def test_source_file_falls_back_to_the_trainjob() -> None:
    assert source_file(jobset()) == "jobs/train.yaml"
    assert source_file(jobset(source="")) == source_file(jobset(source=None))
    assert source_file(jobset(source=None)) == (
        "the file of TrainJob team-a/train (no trainc.dev/source)"
    )
