"""Rendering diagnostics for people and machines: one module per output format.

:mod:`trainc.report.base` holds what the formats share and the name → reporter map; the
formats themselves never import one another (an import-linter contract).
"""
