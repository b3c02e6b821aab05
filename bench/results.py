"""What every bench entry shares: progress on stderr and blocks stored in RESULTS.md."""

from __future__ import annotations

import sys
from pathlib import Path


def store(path: Path, section: str, block: str) -> None:
    """Replace the ``section`` block of ``path`` (or append it), keeping the rest by hand."""
    begin, end = f"<!-- bench:{section}:begin -->", f"<!-- bench:{section}:end -->"
    text = path.read_text() if path.exists() else "# trainc benchmark results\n"
    wrapped = f"{begin}\n{block}{end}"
    if begin in text and end in text:
        head, _, rest = text.partition(begin)
        _, _, tail = rest.partition(end)
        text = head + wrapped + tail
    else:
        text = text.rstrip("\n") + "\n\n" + wrapped + "\n"
    path.write_text(text)


def say(message: str) -> None:
    """One line of progress on stderr, so stdout stays the Markdown block."""
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
