"""Where the cache lives: flags, then the environment, then the XDG cache home."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainc.cache.location import cache_root


@pytest.mark.parametrize(
    ("explicit", "disabled", "environ", "expected"),
    [
        (None, False, {"XDG_CACHE_HOME": "/x"}, Path("/x/trainc")),
        (None, False, {"XDG_CACHE_HOME": "relative"}, Path.home() / ".cache/trainc"),
        (None, False, {}, Path.home() / ".cache/trainc"),
        (None, False, {"TRAINC_CACHE_DIR": "/t", "XDG_CACHE_HOME": "/x"}, Path("/t")),
        (Path("/f"), False, {"TRAINC_CACHE_DIR": "/t"}, Path("/f")),
        (Path("/f"), True, {}, None),
        (None, False, {"TRAINC_NO_CACHE": "1", "TRAINC_CACHE_DIR": "/t"}, None),
        (Path("/f"), False, {"TRAINC_NO_CACHE": "1"}, Path("/f")),
        (None, False, {"TRAINC_NO_CACHE": "false"}, Path.home() / ".cache/trainc"),
        (None, False, {"TRAINC_NO_CACHE": ""}, Path.home() / ".cache/trainc"),
    ],
)
def test_the_first_setting_given_wins(
    explicit: Path | None, disabled: bool, environ: dict[str, str], expected: Path | None
) -> None:
    assert cache_root(explicit, disabled=disabled, environ=environ) == expected
