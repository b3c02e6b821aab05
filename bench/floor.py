"""The floor: load every input file and dump trainc's output bytes with PyYAML's C code only.

No tool that reads YAML and writes YAML can beat this in one Python process: libyaml
parses (``yaml.CSafeLoader``) and emits (``yaml.CDumper``), and nothing validates,
resolves or builds. The objects dumped are the ones ``trainc compile`` wrote, read back
beforehand; that preparation is timed apart and reported, so the runner can subtract it.

Usage: ``python bench/floor.py INPUT_DIR COMPILED_DIR SCRATCH_DIR``. It reads every
``*.yaml`` under INPUT_DIR, writes the files of COMPILED_DIR again under SCRATCH_DIR
(headers kept, non-YAML files copied), and prints one JSON object on stdout:
``prepare_seconds``, ``work_seconds``, ``inputs``, ``outputs``, ``bytes`` (written) and
``identical`` (files whose bytes equal trainc's, a check that the dump is like for like).

This script is standalone (standard library and PyYAML), so it runs in a fresh
interpreter exactly as the runner times it.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # noqa: TID251 -- PyYAML's C code is the floor by definition

#: An output file: its path, its comment header, its documents (None: not YAML), its bytes.
_Output = tuple[Path, str, list[Any] | None, bytes]

#: No line folding, as trainc's emitter (libyaml wants an int).
_WIDTH = 1 << 30


def _represent_str(dumper: Any, data: str) -> Any:
    """Multi-line strings as literal blocks, as trainc writes them (a hostfile, a script)."""
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


# This process only ever dumps the floor's output, so the registration can be global.
yaml.add_representer(str, _represent_str, Dumper=yaml.CDumper)


def _prepare(compiled: Path) -> list[_Output]:
    """Every file trainc wrote, read back: the untimed preparation."""
    prepared: list[_Output] = []
    for path in sorted(p for p in compiled.rglob("*") if p.is_file()):
        data = path.read_bytes()
        relative = path.relative_to(compiled)
        if path.suffix != ".yaml":
            prepared.append((relative, "", None, data))
            continue
        text = data.decode()
        header = "".join(line for line in text.splitlines(keepends=True) if line.startswith("#"))
        documents = list(yaml.load_all(text, Loader=yaml.CSafeLoader))
        prepared.append((relative, header, documents, data))
    return prepared


def _work(inputs: list[Path], prepared: list[_Output], scratch: Path) -> tuple[int, int]:
    """The timed part: parse the inputs, dump and write the outputs; (bytes, identical)."""
    for path in inputs:
        for _ in yaml.load_all(path.read_bytes(), Loader=yaml.CSafeLoader):
            pass
    written = identical = 0
    for relative, header, documents, original in prepared:
        if documents is None:
            data = original
        else:
            body = yaml.dump_all(
                documents,
                Dumper=yaml.CDumper,
                sort_keys=False,
                default_flow_style=False,
                allow_unicode=True,
                width=_WIDTH,
            )
            data = (header + body).encode()
        target = scratch / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written += len(data)
        identical += data == original
    return written, identical


def main(argv: list[str]) -> int:
    """Run the floor on ``INPUT_DIR COMPILED_DIR SCRATCH_DIR`` and print the JSON summary."""
    if len(argv) != 3:  # noqa: PLR2004 -- the three directories of the usage line
        sys.stderr.write(__doc__ or "")
        return 2
    if not yaml.__with_libyaml__:
        sys.stderr.write("PyYAML was built without libyaml: the floor needs its C loader\n")
        return 2
    source, compiled, scratch = (Path(arg) for arg in argv)
    start = time.perf_counter()
    prepared = _prepare(compiled)
    inputs = sorted(source.rglob("*.yaml"))
    ready = time.perf_counter()
    written, identical = _work(inputs, prepared, scratch)
    done = time.perf_counter()
    summary = {
        "prepare_seconds": ready - start,
        "work_seconds": done - ready,
        "inputs": len(inputs),
        "outputs": len(prepared),
        "bytes": written,
        "identical": identical,
    }
    sys.stdout.write(json.dumps(summary) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
