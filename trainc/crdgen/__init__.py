"""Generates the CRDs and JSON Schemas in ``schemas/`` from the typed model (see ``files``)."""
