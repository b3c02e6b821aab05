"""Fixtures shared by the whole suite: upstream reference data, network isolation, and the
bytecode of child processes."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO_ROOT = Path(__file__).resolve().parents[1]

settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "fuzz", max_examples=100_000, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--update-cases`` and ``--update-golden``: rewrite the case corpus's expect.yaml
    files, or the golden record of outputs, from what trainc reports and writes."""
    parser.addoption(
        "--update-cases",
        action="store_true",
        default=False,
        help="rewrite tests/cases/**/expect.yaml from the actual findings (review the git diff)",
    )
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/outputs.json from the actual outputs (review the git diff)",
    )


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ``../shared`` reference data beside the checkout; skips when it is absent.

    Users clone trainc alone, so every test that needs upstream CRDs or examples goes
    through this fixture and skips cleanly without them.
    """
    path = Path(os.environ.get("TRAINC_SHARED_DIR", REPO_ROOT.parent / "shared"))
    if not (path / "upstream").is_dir():
        pytest.skip(f"upstream reference data not found at {path}")
    return path


_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address: object) -> None:
    host = address[0] if isinstance(address, tuple) else address
    if self.family == socket.AF_UNIX or host in ("127.0.0.1", "::1", "localhost"):
        _real_connect(self, address)  # type: ignore[arg-type]  # address is whatever the caller passed
        return
    raise OSError(f"tests must not reach the network (tried {address!r})")


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)


@pytest.fixture(scope="session", autouse=True)
def _child_bytecode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Child Pythons (``python -m trainc``, the pre-commit hooks) keep the bytecode they
    compile in a directory of this session, so every later start reads it.

    Under ``PYTHONDONTWRITEBYTECODE`` each child compiled all of trainc's modules again
    (about 0.35 s of CPU a start, half a small compile's), hundreds of times a session.
    The prefix keeps the bytecode out of the checkout, whose files key the cache.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        patch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path_factory.mktemp("bytecode")))
        yield


@pytest.fixture(autouse=True)
def _no_user_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands run without a cache unless a test gives one: a test must neither read
    results another test (or the developer's own runs) kept in ``~/.cache/trainc``, nor
    leave any there. Tests of the cache pass ``--cache-dir`` or a store of their own."""
    monkeypatch.setenv("TRAINC_NO_CACHE", "1")
