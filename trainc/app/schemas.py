"""``trainc schemas``: the generated CRDs and JSON Schemas, written or compared."""

from __future__ import annotations

from pathlib import Path


def write_schemas(directory: Path) -> list[str]:
    """Regenerate CRDs and JSON Schemas under ``directory``; returns what changed."""
    # Imported here: generation loads the Kubernetes definitions, which validation,
    # the frequent command, never needs.
    from trainc.crdgen.files import write_schemas as write  # noqa: PLC0415

    return write(directory)


def check_schemas(directory: Path) -> list[str]:
    """What differs between ``directory`` and freshly generated schemas (empty: current)."""
    from trainc.crdgen.files import check_schemas as check  # noqa: PLC0415 - see write_schemas

    return check(directory)
