"""``python -m trainc.rulebook [--check]``: regenerate, or check, what the rules make.

A development command rather than a ``trainc`` one: only a checkout holds the files it
writes, and no user of trainc has a reason to run it.
"""

from __future__ import annotations

import argparse
import sys

from trainc.rulebook.files import checkout_root, stale_files, write_files


def main(argv: list[str] | None = None) -> int:
    """Write the generated files (or with ``--check`` name the stale ones); 1 when stale."""
    parser = argparse.ArgumentParser(prog="python -m trainc.rulebook", description=__doc__)
    parser.add_argument("--check", action="store_true", help="change nothing, fail if stale")
    check = parser.parse_args(argv).check
    root = checkout_root()
    changed = stale_files(root) if check else write_files(root)
    for relative in changed:
        sys.stderr.write(f"{'stale' if check else 'wrote'}: {relative}\n")
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
