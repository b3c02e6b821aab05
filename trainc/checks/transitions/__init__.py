"""What the API server refuses when a deployed object changes.

The run against a base revision (--base).
"""
