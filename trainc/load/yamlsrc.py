"""Parsing YAML text into documents with positions, and YAML failures into findings.

Two parsers, one result: libyaml through PyYAML (:mod:`trainc.load.fastyaml`) composes
the files it is sure to read exactly as ruamel.yaml does, and ruamel's pure-Python
parser (:mod:`trainc.load.ruamelyaml`) reads the rest and reports every failure. Both
feed one :class:`~trainc.load.convert.Converter`, so data, positions and findings do not
depend on which parser read a file (``tests/load/test_fastyaml.py`` compares them on
generated documents). A file never raises: malformed YAML is a ``load.*`` finding at the
parser's line, and the documents before a syntax error are still returned.
"""

from __future__ import annotations

from trainc.load import fastyaml
from trainc.load.convert import Converter
from trainc.load.documents import Parsed
from trainc.load.limits import Limits
from trainc.load.source import SourceFile

__all__ = ["Parsed", "parse_documents"]


def parse_documents(source: SourceFile, limits: Limits) -> Parsed:
    """Every document of ``source.text``; empty documents (a bare ``---``) are skipped.

    ``Document.index`` counts all documents of the stream, empty ones included, so it
    matches what a reader counts by ``---`` separators. Documents are read with YAML 1.1
    rules, as kubectl and Argo CD decode manifests; a ``%YAML 1.2`` directive selects 1.2
    for its document.
    """
    parsed = fastyaml.parse(source, limits)
    if parsed is not None:
        return parsed
    # ruamel is imported only when a file needs it: most runs never do.
    from trainc.load.ruamelyaml import read_stream  # noqa: PLC0415

    converter = Converter(source, limits)
    read_stream(converter, limits)
    return converter.parsed()
