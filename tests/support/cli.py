"""trainc in a child process, as CI, pre-commit and the Argo CD sidecar run it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run(
    cwd: Path, *args: str, seed: str = "0", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m trainc ARGS`` in ``cwd``: no TTY, a fixed hash seed, real exit code.

    Both streams are decoded as strict UTF-8, whatever the test's locale: output that is
    not UTF-8 fails the test rather than being decoded some other way.
    """
    return subprocess.run(
        [sys.executable, "-m", "trainc", *args],
        cwd=cwd,
        capture_output=True,
        encoding="utf-8",
        env={**os.environ, "NO_COLOR": "1", "PYTHONHASHSEED": seed, **(env or {})},
        check=False,
        timeout=300,
    )
