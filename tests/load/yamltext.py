"""Hypothesis strategies for YAML text: streams written the many ways YAML allows.

The documents are rendered as text, not dumped by a library, so that every style shows
up: block and flow collections, compact nesting (``- - x``, ``- k: v``), indentless
sequences, complex keys, merge keys, anchors and aliases, tags, plain scalars that YAML
1.1 reads as something else than text, quoted scalars with escapes and line folding,
block scalars with every header, comments, empty values and documents.
"""

from __future__ import annotations

from hypothesis import strategies as st

#: Plain scalars whose type depends on the YAML version and the resolver.
AMBIGUOUS = (
    "y", "Y", "n", "N", "yes", "No", "on", "OFF", "true", "False", "TRUE", "null", "~", "Null",
    "0", "00", "010", "08", "0o17", "0x1F", "0b101", "-0b1", "1_000", "+1", "-1", "-0",
    "1:20", "-1:20", "1:20.5", "190:20:30", "1:70", ".5", "1.", "-1.5", "1e3", "1E-3",
    "1.0e+3", "-2e-3", ".inf", "-.Inf", "+.INF", ".NaN", "._", "-_", "+_7", "0_", "1_",
    "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5", "=", "<<",
    # Forms go-yaml v2 (kubectl) reads unlike YAML 1.1: Go's base prefixes in either case
    # and with a sign, 08 as a float, no base 60, floats out of range as text, integers
    # past int64, uint64 and 64 bits.
    "0O17", "+0o7", "-0o7", "0B1", "0X1f", "0b-1", "09", "09.5", "12:30:00", "1e400",
    ".5e999", "1e-400", "0x_1", "1__0", "_1", "0_", "3.", "1E3", "-1e-3", "-0.0",
    "9223372036854775808", "18446744073709551616", "0x10000000000000000", "-0b",
    "2001-2-3T3:4:5Z", "2001-12-14 21:59:43", "2001-02-30", ".NAN", "+.inf", "nULL", "YeS",
)  # fmt: skip
#: Plain scalars that are text by any rule, some with indicators inside.
WORDS = (
    "a", "kind", "TrainJob", "é", "日本", "😀", "a b", "a#b", "a:b", "http://x/y", "-a", "?a",
    "a-", "x.y", "a'b", "a\"b", "%p", "@", "a,b", "[x", "a]", "{y", "z}", "!x", "&a", "*a",
)  # fmt: skip
_ESCAPES = (
    "\\n", "\\t", '\\"', "\\\\", "\\x41", "\\u00e9", "\\U0001F600", "\\/", "\\N", "\\_", "\\L",
    "\\P", "\\0", "\\a", "\\e", "\\ ", "\\b", "\\r", "\\v", "\\f",
)  # fmt: skip
_TAGS = (
    "!!str", "!!int", "!!float", "!!bool", "!!null", "!!binary", "!!timestamp", "!thing", "!",
    "!<tag:yaml.org,2002:str>", "!a%21",
)  # fmt: skip


class _Writer:
    """Renders one stream, drawing each choice; remembers anchors so aliases resolve."""

    def __init__(self, draw: st.DrawFn) -> None:
        self._draw = draw
        self.anchors: list[str] = []

    def choose(self, options: tuple[str, ...]) -> str:
        return self._draw(st.sampled_from(options))

    def chance(self, percent: int) -> bool:
        return self._draw(st.integers(0, 99)) < percent

    def count(self, low: int, high: int) -> range:
        return range(self._draw(st.integers(low, high)))

    def properties(self, *, scalar: bool) -> str:
        """An optional anchor and tag, each followed by a space."""
        text = ""
        if self.chance(10):
            name = f"a{len(self.anchors) % 4}"  # reuse names: YAML lets anchors be redefined
            self.anchors.append(name)
            text += f"&{name} "
        if self.chance(8):
            text += (self.choose(_TAGS) if scalar else self.choose(("!!map", "!!seq", "!t"))) + " "
        return text

    def alias(self) -> str | None:
        return f"*{self.choose(tuple(self.anchors))}" if self.anchors and self.chance(15) else None

    def plain(self) -> str:
        return self.choose(AMBIGUOUS) if self.chance(60) else self.choose(WORDS[:10])

    def scalar(self, indent: int, *, flow: bool) -> str:
        """A scalar that fits on the current line (block scalars continue below it)."""
        style = self.choose(("plain", "plain", "single", "double", "block", "empty"))
        if style == "single":
            body = self.choose(("it''s", "", "a b", "two\n" + " " * (indent + 1) + "lines", "#"))
            return f"'{body}'"
        if style == "double":
            parts = [self.choose((*_ESCAPES, "a", " ", "é")) for _ in range(3)]
            if self.chance(20):
                parts.append("\\\n" + " " * (indent + 1) + "cont")
            return '"' + "".join(parts) + '"'
        if style == "block" and not flow:
            return self._block_scalar(indent)
        if style == "empty" and not flow:
            return ""
        return self.plain()

    def _block_scalar(self, indent: int) -> str:
        header = self.choose(("|", "|-", "|+", ">", ">-", ">+", "|2", ">1-"))
        pad = " " * (indent + 2)
        lines = [self.choose(("text", "more  spaced", "", "  indented", "# not a comment"))]
        lines += [self.choose(("x", "", "  y", "z z")) for _ in self.count(0, 3)]
        body = "\n".join(pad + line if line else "" for line in lines)
        return f"{header}\n{body}"

    def key(self, indent: int) -> str:
        """A mapping key with its indicator: ``k:``, a quoted or ambiguous key, ``<<:``."""
        kind = self.choose(("word", "word", "ambiguous", "quoted", "merge", "complex"))
        if kind == "ambiguous":
            return self.choose(AMBIGUOUS) + ":"
        if kind == "quoted":
            return self.choose(('"k"', "'y'", '"1"', "''")) + ":"
        if kind == "merge":
            return "<<:"
        if kind == "complex":
            inner = self.flow(2) if self.chance(50) else self.plain()
            return f"? {inner}\n{' ' * indent}:"
        return self.choose(("a", "b", "c", "name", "a b", "é")) + ":"

    def flow(self, depth: int) -> str:
        """A flow collection (or a scalar), possibly broken across lines."""
        alias = self.alias()
        if alias is not None:
            return alias
        if depth <= 0 or self.chance(40):
            return self.properties(scalar=True) + self.scalar(0, flow=True)
        count = len(self.count(0, 3))
        sep = self.choose((", ", ",", ",\n  "))
        if self.chance(50):
            items = [self.flow(depth - 1) for _ in range(count)]
            return self.properties(scalar=False) + "[" + sep.join(items) + "]"
        entries = [f"{self.plain()}: {self.flow(depth - 1)}" for _ in range(count)]
        if count and self.chance(15):
            entries.append(self.plain())  # a key without a value
        return self.properties(scalar=False) + "{" + sep.join(entries) + "}"

    def block(self, indent: int, depth: int) -> str:
        """A block node starting on a fresh line at ``indent`` (no trailing newline)."""
        pad = " " * indent
        if depth <= 0 or self.chance(15):
            return pad + self.flow(2)
        if self.chance(50):
            return "\n".join(
                pad + self.key(indent) + self.value(indent, depth - 1, seq_ok=True)
                for _ in self.count(1, 3)
            )
        return "\n".join(
            pad + "-" + self.value(indent, depth - 1, seq_ok=False) for _ in self.count(1, 3)
        )

    def value(self, indent: int, depth: int, *, seq_ok: bool) -> str:
        """What follows ``key:`` or ``-``: inline, compact, or on the next lines."""
        comment = " # note" if self.chance(10) else ""
        alias = self.alias()
        if alias is not None:
            return f" {alias}{comment}"
        where = self.choose(("inline", "inline", "flow", "below", "compact", "indentless"))
        if where == "below" and depth > 0:
            props = self.properties(scalar=False).rstrip()
            return (" " + props if props else "") + comment + "\n" + self.block(indent + 2, depth)
        if where == "indentless" and seq_ok and depth > 0:
            items = [" " * indent + "-" + self.value(indent, depth - 1, seq_ok=False) for _ in "ab"]
            return comment + "\n" + "\n".join(items)
        if where == "compact" and not seq_ok and depth > 0:
            return " " + self.block(indent + 2, depth).lstrip(" ")
        if where == "flow":
            return " " + self.flow(3) + comment
        text = self.properties(scalar=True) + self.scalar(indent, flow=False)
        return (" " + text if text else "") + ("" if "\n" in text else comment)


@st.composite
def yaml_streams(draw: st.DrawFn) -> str:
    """A stream of one to three documents, some empty, some started or ended by markers."""
    documents = []
    for number in range(draw(st.integers(1, 3))):
        writer = _Writer(draw)
        body = writer.block(0, draw(st.integers(0, 4)))
        kind = draw(st.sampled_from(("plain", "start", "start", "empty", "comment", "end")))
        if kind == "empty":
            body = ""
        elif kind == "comment":
            body = "# only a comment"
        start = "---\n" if number or kind == "start" else ""
        end = "\n..." if kind == "end" else ""
        documents.append(f"{start}{body}{end}")
    return "\n".join(documents) + draw(st.sampled_from(("\n", "", "\n\n", "\n# end\n")))


#: Pieces of YAML syntax, for streams that are mostly not valid YAML.
TOKENS = (
    "a", "k", "1", "0", "- ", ": ", ":", " ", "  ", "\n", "\n  ", "\n- ", "[", "]", "{", "}",
    ", ", "? ", "#", " #c", "&a ", "*a", "! ", "!!str ", "!!int ", "!x ", "'", '"', "|", ">",
    "|-", ">+", "---", "\n---\n", "...", "@", "`", "\\", "y", "~", "<<: ", "=", ".", "é", "😀",
    "\r\n", "\r", "null", "yes", "0o7", "1_0", "1:20", ".inf", "1e3", "\\x41", "\\/", "\t",
    "\ufeff", "\x85", "|#", "%YAML 1.2\n",
)  # fmt: skip

token_soup = st.lists(st.sampled_from(TOKENS), max_size=30).map("".join)
