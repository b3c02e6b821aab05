"""How one string is written in YAML so that every reader gets the same string back.

The style of a string is decided by these rules, first match wins:

1. **double-quoted, with escapes**, when it holds a character YAML cannot carry as text:
   C0 controls other than tab and newline, DEL, C1 controls (NEL included), the YAML 1.1
   line breaks LS and PS, the byte-order mark, U+FFFE, U+FFFF and lone surrogates;
2. **literal block** (``|``), when it holds a newline: a literal block keeps every
   character of printable text, including tabs and spaces at line ends. The header
   says what the reader cannot infer: an indentation indicator ``2`` when the text
   starts with a space or an empty line (the reader would otherwise take those spaces
   for indentation) or with a tab (libyaml rejects a tab where it detects the
   indentation), and the chomping indicator for the text's end: ``|-`` without a final
   newline, ``|`` with one, ``|+`` with several;
3. **double-quoted** when it holds a tab, so that the tab shows in a review diff;
4. **single-quoted** when a plain scalar would be read as something else than a string
   by a YAML 1.1 reader (kubectl's go-yaml v2, PyYAML), a YAML 1.2 reader (ruamel,
   go-yaml v3) or go-yaml's number parser (see :func:`resolves_to_non_string`);
5. **plain** when the text is a valid plain scalar in block context: not empty, no space
   at either end, no ``---`` or ``...`` at the start (document markers), no indicator
   as first character (``#,[]{}&*!|>'"%@```, or ``-?:`` followed by a space or by
   nothing), no ``: `` or final ``:`` (a mapping key would end there) and no `` #``
   (a comment would start there);
6. **double-quoted** when it holds ``'``, which needs no escape there;
7. **single-quoted** otherwise.

These are the rules ruamel.yaml's emitter applied to trainc's data before this module
replaced it, so the bytes of generated files did not change, with two fixes: rule 4
quotes a few more forms that go-yaml reads as numbers, and rule 2 adds the indicator
for a leading tab. A mapping key follows the same rules but must be an
*implicit* key, one line shorter than 128 characters; any other key is written as an
explicit ``? key`` entry, which the emitter handles.

Styles are memoised per string: keys and common values (``name``, ``trainer``,
``app.kubernetes.io/managed-by``) repeat thousands of times in a compile run, and the
style is a pure function of the string.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, NamedTuple, TypeAlias, TypeVar

_T = TypeVar("_T")


class Block(NamedTuple):
    """A literal block scalar: its header (``|``, ``|-``, ``|2+``...) and its lines.

    The lines carry no indentation (the emitter adds it); an empty line stays empty, so
    the output has no trailing spaces the text did not have.
    """

    header: str
    lines: tuple[str, ...]


#: What a string becomes in a mapping value or a sequence item: inline text or a block.
StringStyle: TypeAlias = str | Block

# Every character except those of rule 1. Tab and newline are text in a literal block.
_TEXT = re.compile(
    "[\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]*"
)
_ESCAPED = re.compile('["\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]')
_ESCAPES: Final = {
    "\0": "\\0",
    "\x07": "\\a",
    "\x08": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\x0b": "\\v",
    "\x0c": "\\f",
    "\r": "\\r",
    "\x1b": "\\e",
    '"': '\\"',
    "\\": "\\\\",
    "\x85": "\\N",
    "\u2028": "\\L",
    "\u2029": "\\P",
}

# Rule 5: characters a plain scalar cannot start with, and sequences it cannot contain.
_INDICATORS: Final = frozenset("#,[]{}&*!|>'\"%@`")
_PLAIN_BREAKERS = re.compile(r": | #|:$|^[-?:]( |$)|^---|^\.\.\.|^ | $")

# Rule 4, words: booleans and null of YAML 1.1 (which has y/n/yes/no/on/off) and 1.2,
# infinities and NaN, the merge key and YAML 1.1's "value" type.
_SPECIAL_WORDS: Final = frozenset(
    (
        *("y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON"),
        *("off", "Off", "OFF", "true", "True", "TRUE", "false", "False", "FALSE"),
        *("", "~", "null", "Null", "NULL", ".nan", ".NaN", ".NAN", "<<", "="),
        *(".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"),
    )
)

# Rule 4, numbers as YAML 1.1 (yaml.org/type/int, float), the YAML 1.2 core schema and
# ruamel's slightly wider patterns define them, on the text as written ("_" included).
_NUMBER = re.compile(
    r"""[-+]?(?:
        [0-9_]+                                        # 12, 1_000, 0755 (1.1 octal)
      | 0b[01_]+ | 0o[0-7_]+ | 0x[0-9a-fA-F_]+         # binary (1.1), octal (1.2), hex
      | [0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?    # base 60 (1.1): 1:20, 1:20.5
      | [0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?      # 1.5, 1., 1.5e3
      | [0-9][0-9_]*[eE][-+]?[0-9]+                    # 1e3 (1.2)
      | \.[0-9_]+(?:[eE][-+]?[0-9]+)?                  # .5, .5e3
    )""",
    re.VERBOSE,
)
# go-yaml (kubectl, Helm, Argo CD) drops every "_" and then asks Go's strconv, which
# also takes upper-case base prefixes: "1_e3" and "0X1F" are numbers there.
_GO_NUMBER = re.compile(
    r"[-+]?(?:0[bB][01]+|0[oO][0-7]+|0[xX][0-9a-fA-F]+"
    r"|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)"
)
# YAML 1.1 timestamps, widened to go-yaml's one-digit month, day, hour, minute, second.
_TIMESTAMP = re.compile(
    r"""[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}
    (?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]*)?
       (?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?""",
    re.VERBOSE,
)
_NUMERIC_START: Final = frozenset("+-.0123456789")

# Longer keys, and keys with line breaks, cannot be implicit (YAML allows 1,024
# characters; ruamel.yaml's emitter switched at 128, and the bytes stay the same).
_MAX_IMPLICIT_KEY: Final = 128
_LINE_BREAKS = re.compile("[\n\x85\u2028\u2029]")

# Memo size: far above the distinct keys and values of a compile run's hot set, small
# enough (a few MB) that a 10,000-job run does not grow memory with every job name.
_MEMO_SIZE: Final = 1 << 15


def resolves_to_non_string(text: str) -> bool:
    """True when some YAML reader would not read the plain scalar ``text`` as a string."""
    if text in _SPECIAL_WORDS:
        return True
    if text[0] not in _NUMERIC_START:
        return False
    return bool(
        _NUMBER.fullmatch(text)
        or _GO_NUMBER.fullmatch(text.replace("_", ""))
        or _TIMESTAMP.fullmatch(text)
    )


def double_quoted(text: str) -> str:
    """``text`` as a double-quoted scalar: the only style with escapes, for any string."""
    return '"' + _ESCAPED.sub(_escape, text) + '"'


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    escape = _ESCAPES.get(char)
    if escape is not None:
        return escape
    return f"\\x{ord(char):02X}" if char <= "\xff" else f"\\u{ord(char):04X}"


def _literal(text: str) -> Block:
    """``text`` (printable, with a newline) as a literal block that reads back exactly."""
    indicator = "2" if text[0] in " \t\n" else ""
    if not text.endswith("\n"):
        chomping = "-"
    elif len(text) == 1 or text[-2] == "\n":
        chomping = "+"
    else:
        chomping = ""
    body = text[:-1] if chomping != "-" else text
    return Block("|" + indicator + chomping, tuple(body.split("\n")))


def inline_style(text: str) -> str:
    """``text`` as a one-line scalar (rules 1 and 3 to 7; line breaks are escaped)."""
    if "\t" in text or "\n" in text or not _TEXT.fullmatch(text):
        return double_quoted(text)
    if resolves_to_non_string(text):
        return f"'{text}'"
    if text[0] not in _INDICATORS and not _PLAIN_BREAKERS.search(text):
        return text
    if "'" in text:
        return double_quoted(text)
    return f"'{text}'"


def _string_style(text: str) -> StringStyle:
    if "\n" in text and _TEXT.fullmatch(text):
        return _literal(text)
    return inline_style(text)


def _key_style(text: str) -> str | None:
    if len(text) >= _MAX_IMPLICIT_KEY or _LINE_BREAKS.search(text):
        return None
    return inline_style(text) + ":"


class _Memo(dict[str, _T]):
    """A bounded memo of a pure function of a string, read by subscription.

    Subscription is the cheapest lookup Python has, and :meth:`__missing__` computes
    only on a miss. Sharing it between calls (and threads) is safe because the value
    depends on the key alone; when full it is simply emptied, which keeps it bounded
    without bookkeeping on every hit.
    """

    __slots__ = ("_compute",)

    def __init__(self, compute: Callable[[str], _T]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, key: str) -> _T:
        if len(self) >= _MEMO_SIZE:
            self.clear()
        value = self[key] = self._compute(key)
        return value


#: The style of a string in a mapping value or sequence item; index it with the string.
STRING_STYLES: Final[dict[str, StringStyle]] = _Memo(_string_style)

#: A mapping key as written before its value (``name:``, ``'on':``), or None when the
#: key must be an explicit ``? key`` entry; index it with the key.
KEY_STYLES: Final[dict[str, str | None]] = _Memo(_key_style)
