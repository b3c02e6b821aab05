"""Parsing YAML (or JSON) text into documents with positions, and failures into findings.

Two parsers, one result: libyaml through PyYAML (:mod:`trainc.load.fastyaml`) composes
the files it is sure to read exactly as ruamel.yaml does, and ruamel's pure-Python
parser (:mod:`trainc.load.ruamelyaml`) reads the rest and reports every failure. Both
feed one :class:`~trainc.load.convert.Converter`, so data, positions and findings do not
depend on which parser read a file (``tests/load/test_fastyaml.py`` compares them on
generated documents). A ``*.json`` file is read as JSON (:mod:`trainc.load.jsonsrc`),
as Argo CD and kubectl read it. A file never raises: malformed text is a ``load.*``
finding at the parser's line, and the documents before a syntax error are still returned.

Before any parser, kubectl and Argo CD cut a YAML file into documents at every line that
starts with ``---`` (apimachinery's ``YAMLReader``), and refuse the file when such a line
holds anything but a comment after the dashes: ``--- {a: 1}``, ``--- |`` or the
``-----END CERTIFICATE-----`` of a block scalar written at column 0 (``invalid Yaml
document separator``). YAML itself takes those, so the lines are checked here.
"""

from __future__ import annotations

import re
from dataclasses import replace

from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic
from trainc.load import fastyaml
from trainc.load.convert import LOAD_SYNTAX, Converter, mark_finding
from trainc.load.documents import Parsed
from trainc.load.shallow import parse_heads
from trainc.load.source import SourceFile, line_and_column

__all__ = ["Parsed", "parse_documents"]

_JSON_SUFFIX = ".json"
#: A line kubectl takes for a document separator: ``---`` at its very start.
_SEPARATOR = re.compile(r"^---(.*)$", re.MULTILINE)


def parse_documents(source: SourceFile, limits: InputLimits, *, skim: bool = False) -> Parsed:
    """Every document of ``source.text``; empty documents (a bare ``---``) are skipped.

    ``Document.index`` counts all documents of the stream, empty ones included, so it
    matches what a reader counts by ``---`` separators. Scalars are typed as kubectl and
    Argo CD type them (go-yaml v2, then JSON: :mod:`trainc.load.scalars`); a ``*.json``
    file holds JSON values, each a document. With ``skim``, a file of documents trainc
    never checks (CustomResourceDefinitions, JSON Schemas) is read for their heads only
    (:mod:`trainc.load.shallow`): documents that hold just what classifying them needs.
    """
    heads = parse_heads(source, limits) if skim else None
    if source.path.endswith(_JSON_SUFFIX):
        from trainc.load.jsonsrc import parse_json  # noqa: PLC0415  # only for .json files

        return heads or parse_json(source, limits)
    separators = _separator_findings(source)
    parsed = heads or fastyaml.parse(source, limits)
    if parsed is None:
        # ruamel is imported only when a file needs it: most runs never do.
        from trainc.load.ruamelyaml import read_stream  # noqa: PLC0415

        converter = Converter(source, limits)
        read_stream(converter, limits)
        parsed = converter.parsed()
    if separators:
        return replace(parsed, diagnostics=(*separators, *parsed.diagnostics))
    return parsed


def _separator_findings(source: SourceFile) -> list[Diagnostic]:
    """The separator lines kubectl refuses: ``---`` followed by more than a comment."""
    found = []
    for match in _SEPARATOR.finditer(source.text):
        rest = match.group(1).strip()
        if rest and not rest.startswith("#"):
            line0, _ = line_and_column(source.text, match.start())
            found.append(
                mark_finding(
                    source,
                    line0,
                    0,
                    LOAD_SYNTAX.code,
                    f"invalid Yaml document separator: {rest}",
                    hint="kubectl and Argo CD cut files into documents at every line that "
                    "starts with ---, and allow only a comment after it: move the content "
                    "to the next line (indent a block scalar's lines)",
                )
            )
    return found
