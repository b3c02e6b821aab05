"""Test helpers: object builders and in-memory documents."""
