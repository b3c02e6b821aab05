"""The renderer the strategies write documents with: YAML that reads back as its data.

The valid repositories rely on it: a seed rewritten by :func:`render_documents` must
mean exactly what it meant before, or "valid" edits would not be.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.strategies import SPECIAL_STRINGS, render_documents
from trainc.config.limits import InputLimits
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import JsonObject, JsonValue

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    # What kubectl reads back unchanged: go-yaml's int64 and uint64, finite floats.
    st.integers(-(2**63), 2**64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=10),
    st.sampled_from(SPECIAL_STRINGS),
)
_keys = st.text(max_size=8) | st.sampled_from(("on", "y", "null", "<<", "1", "a b", "- x"))
documents: st.SearchStrategy[JsonObject] = st.dictionaries(
    _keys,
    st.recursive(
        _scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=3),
        max_leaves=10,
    ),
    max_size=4,
)


@given(st.lists(documents, min_size=1, max_size=3))
def test_rendered_documents_read_back_as_their_data(data: list[JsonValue]) -> None:
    text = render_documents(data)
    parsed = parse_documents(SourceFile(path="rendered.yaml", text=text), InputLimits())
    assert parsed.diagnostics == ()
    assert [document.data for document in parsed.documents] == data
