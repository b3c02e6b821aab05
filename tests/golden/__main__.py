"""``python -m tests.golden show ENTRY OUTPUT``: print one output of the golden record.

The record keeps digests only; when the golden test says an output changed, this prints
what trainc writes now, and run in a checkout of the commit before the change, what it
wrote then, to diff the two.
"""

from __future__ import annotations

import argparse
import sys

from tests.golden.record import COMPILE, VALIDATE, entries, outputs


def main(argv: list[str] | None = None) -> int:
    """Write the output to stdout, as bytes; exit 1 when the entry has no such output."""
    parser = argparse.ArgumentParser(prog="python -m tests.golden")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("show", help="print one output of one entry")
    show.add_argument("entry", help="an id of tests/golden/outputs.json, such as examples")
    show.add_argument("output", choices=(VALIDATE, COMPILE))
    args = parser.parse_args(argv)
    known = entries()
    if args.entry not in known:
        parser.error(f"no entry {args.entry!r}; the ids are the keys of tests/golden/outputs.json")
    found = outputs(known[args.entry])
    if args.output not in found:
        parser.exit(1, f"{args.entry} has no {args.output}: it does not compile\n")
    sys.stdout.buffer.write(found[args.output])
    return 0


if __name__ == "__main__":
    sys.exit(main())
