"""Every output byte-identical: the golden record against what trainc writes now.

``python -m pytest tests/golden --update-golden`` rewrites the record; do it only for a
change meant to alter outputs, and say so in the commit (docs/development.md).
"""

from __future__ import annotations

import hashlib

import pytest

from tests.golden.__main__ import main
from tests.golden.record import (
    COMPILE,
    RECORD,
    UPDATE_OPTION,
    VALIDATE,
    digests,
    entries,
    outputs,
    read_record,
    render_record,
)


def _changes(recorded: dict[str, dict[str, str]], actual: dict[str, dict[str, str]]) -> list[str]:
    lines = []
    for entry in sorted(recorded.keys() | actual.keys()):
        before, now = recorded.get(entry), actual.get(entry)
        if before is None:
            lines.append(f"{entry}: new entry, not in the record")
        elif now is None:
            lines.append(f"{entry}: in the record, but no longer an entry")
        else:
            for name in sorted(before.keys() | now.keys()):
                if before.get(name) != now.get(name):
                    state = (
                        "changed"
                        if name in before and name in now
                        else ("is no longer written" if name in before else "is newly written")
                    )
                    lines.append(
                        f"{entry}: {name} {state}; see it with "
                        f"python -m tests.golden show {entry} {name}"
                    )
    return lines


def test_outputs_are_byte_identical_to_the_record(request: pytest.FixtureRequest) -> None:
    actual = {entry.id: digests(outputs(entry)) for entry in entries().values()}
    if request.config.getoption(UPDATE_OPTION):
        RECORD.write_text(render_record(actual), encoding="utf-8")
    changes = _changes(read_record(), actual)
    if changes:
        pytest.fail(
            "\n".join(
                [
                    f"trainc's outputs differ from {RECORD.name}:",
                    *changes,
                    "run the same command on the commit before to diff; if the change is "
                    f"meant, rewrite the record with {UPDATE_OPTION} and say why in the commit",
                ]
            ),
            pytrace=False,
        )


def test_a_change_names_the_entry_the_output_and_how_to_see_it() -> None:
    recorded = {"examples": {VALIDATE: "a", COMPILE: "b"}, "case/gone": {VALIDATE: "c"}}
    actual = {"examples": {VALIDATE: "d"}, "case/new": {VALIDATE: "e"}}
    assert _changes(recorded, actual) == [
        "case/gone: in the record, but no longer an entry",
        "case/new: new entry, not in the record",
        f"examples: {COMPILE} is no longer written; "
        f"see it with python -m tests.golden show examples {COMPILE}",
        f"examples: {VALIDATE} changed; "
        f"see it with python -m tests.golden show examples {VALIDATE}",
    ]


def test_show_prints_the_bytes_the_record_digests(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    assert main(["show", "examples", COMPILE]) == 0
    printed = capsysbinary.readouterr().out
    assert printed.startswith(b"apiVersion: ")
    assert hashlib.sha256(printed).hexdigest() == read_record()["examples"][COMPILE]


def test_show_fails_for_an_output_an_entry_does_not_write(
    capsys: pytest.CaptureFixture[str],
) -> None:
    failing = next(entry for entry, found in read_record().items() if COMPILE not in found)
    with pytest.raises(SystemExit) as exited:
        main(["show", failing, COMPILE])
    assert exited.value.code == 1
    assert f"{failing} has no {COMPILE}: it does not compile" in capsys.readouterr().err
