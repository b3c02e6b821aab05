"""Resource bounds for reading untrusted repositories."""

from __future__ import annotations

from trainc.records import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class InputLimits:
    """Bounds applied while reading input; every one is configurable in trainc.yaml.

    The defaults sit far above any real manifest (the API server itself rejects objects
    over ~1.5 MB) and far below what would exhaust a CI runner.
    """

    max_file_bytes: int = 4 * 1024 * 1024
    max_yaml_nodes: int = 1_000_000
    max_depth: int = 100
    max_documents: int = 10_000
