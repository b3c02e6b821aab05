"""The sweeper benchmark runs a TTL wave end to end and reports what the server answered."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.sweeper import main


def test_a_small_wave_is_measured_and_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# results\n\nwritten by hand\n")

    assert main(["--jobsets", "100", "--out", str(results)]) == 0

    block = capsys.readouterr().out
    rows = [line.split(" | ") for line in block.splitlines() if line.startswith("| 100 (50)")]
    assert [row[1] for row in rows] == ["dry run", "real run"]
    dry, real = rows
    assert dry[2].startswith("6 (6, 0, 0, 0, 0)")  # a list of each kind, nothing more
    assert real[2].startswith("156 (6, 50, 50, 0, 50)")  # a read, a delete, an Event
    assert real[3] == "DeleteJobs done 50"
    assert real[4] == "3.00"
    assert "target" not in block  # the targets are judged at 1,000 JobSets only
    text = results.read_text()
    assert text.startswith("# results\n\nwritten by hand\n")
    assert f"<!-- bench:sweeper:begin -->\n{block}<!-- bench:sweeper:end -->" in text
