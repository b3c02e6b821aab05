"""Serialising trainc's output: one deterministic writer per format."""
