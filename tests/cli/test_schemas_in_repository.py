"""``trainc schemas -o schemas/`` into the repository, as the editor set-up suggests.

The 2.8 MB of CRDs and JSON Schemas it writes are no objects trainc checks: a cold
validate must not compose them (which took ruamel seconds per file) to skip them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Invoke
from trainc.load import fastyaml, jsonsrc, ruamelyaml
from trainc.load.source import SourceFile


def counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str, parsed: list[str]) -> None:
    """Record the path of every file ``module.name`` parses fully."""
    original: Callable[..., Any] = getattr(module, name)

    def parse(first: Any, *args: Any, **kwargs: Any) -> Any:
        source = first if isinstance(first, SourceFile) else first.source
        parsed.append(source.path)
        return original(first, *args, **kwargs)

    monkeypatch.setattr(module, name, parse)


def test_a_cold_validate_does_not_parse_the_schemas_it_skips(
    tmp_path: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    assert invoke(tmp_path, "init").code == 0
    assert invoke(tmp_path, "schemas", "-o", "schemas/").code == 0
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.glob("schemas/**/*.*"))
    assert len(written) > 5
    parsed: list[str] = []
    counting(monkeypatch, fastyaml, "parse", parsed)
    counting(monkeypatch, ruamelyaml, "read_stream", parsed)
    counting(monkeypatch, jsonsrc, "parse_json", parsed)

    result = invoke(tmp_path, "validate", "--no-cache", "-v", "--jobs", "1")

    assert result.code == 0, result.err
    assert [path for path in parsed if path.startswith("schemas/")] == []
    assert any(path.startswith("jobs/") for path in parsed)  # the counting works
    skipped = [
        line.split(":", 1)[0]
        for line in (result.out + result.err).splitlines()
        if "skipped" in line
    ]
    assert sorted(path for path in skipped if path.startswith("schemas/")) == [
        path for path in written if path.endswith((".yaml", ".json"))
    ]
