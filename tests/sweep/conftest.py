"""Fixtures of the sweeper's I/O tests: a fake API server, and a clock for the client."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.cluster import FakeClock
from tests.support.fakeapi import FakeApiServer


@pytest.fixture
def api() -> Iterator[FakeApiServer]:
    """A fresh fake API server on 127.0.0.1, stopped after the test."""
    with FakeApiServer() as server:
        yield server


@pytest.fixture
def clock() -> FakeClock:
    """The client's monotonic clock and sleep, which never really waits."""
    return FakeClock()
