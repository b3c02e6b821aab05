"""Fixtures of the plugin tests: the command line run in process, for the toy framework."""

from __future__ import annotations

from tests.cli.conftest import invoke

__all__ = ["invoke"]
