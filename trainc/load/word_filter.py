"""A Bloom filter of the words a file's bytes hold, to tell without reading it that a
file cannot name an object.

An object's name written in YAML or JSON (plain, quoted, block scalar, anchored) is a
whole word of the file's bytes: a run of name characters bounded by others, and never
followed by a colon (that would make it a mapping key, or no name at all). So a file
whose filter lacks a name's word does not hold it; a file whose filter has it may (a
Bloom filter's false positives), and is read. Leaving out the words that are keys
(``metadata:``, ``image: repo:tag``'s ``repo``) keeps the filter about a third smaller.
Git keeps Bloom filters of each commit's changed paths for the same purpose, sparing the
diffs that cannot matter (https://git-scm.com/docs/gitformat-commit-graph, "BIDX" and
"BDAT").

The filter is sized to the file's words, :data:`_BITS_PER_WORD` bits each: with
:data:`_PROBES` probes, about one in 400 files without a word is read anyway (files of
one kind share most words, so a word that one filter wrongly holds, many hold). It is a
plain ``(size, bits)`` pair of integers: an index holds one per repository file, and its
size is most of what a run reads back. The probes are CRC-32 and Adler-32 of the word
(double hashing), stable across processes, unlike Python's salted ``hash``.
"""

from __future__ import annotations

import re
import zlib
from typing import TypeAlias

#: The characters of object names (DNS labels and subdomains, upper case included so a
#: name the API server refuses is found too); a name's word never continues into them.
_WORD = re.compile(rb"[-.A-Za-z0-9]+")
#: A whole word that no colon follows.
_VALUE_WORD = re.compile(rb"(?<![-.A-Za-z0-9])[-.A-Za-z0-9]+(?![-.A-Za-z0-9:])")
_BITS_PER_WORD = 16
_PROBES = 4
_MIN_BITS = 64

#: A filter: its size in bits, and the bits set.
WordFilter: TypeAlias = tuple[int, int]


def is_word(needle: bytes) -> bool:
    """Whether ``needle`` is one whole word, as a filter can be asked about."""
    return _WORD.fullmatch(needle) is not None


def word_filter(data: bytes) -> WordFilter:
    """The filter of the words of ``data``."""
    words = set(_VALUE_WORD.findall(data))
    size = max(_MIN_BITS, _BITS_PER_WORD * len(words))
    bits = 0
    for word in words:
        bits |= word_mask(word, size)
    return size, bits


def word_mask(word: bytes, size: int) -> int:
    """The bits ``word`` sets in a filter of ``size`` bits."""
    first, step = zlib.crc32(word), zlib.adler32(word) | 1
    mask = 0
    for probe in range(_PROBES):
        mask |= 1 << ((first + probe * step) % size)
    return mask


class Words:
    """A few words (each :func:`is_word`), asked of many filters: their bits are worked out
    once per filter size (files of one kind have similar sizes)."""

    def __init__(self, words: frozenset[bytes]) -> None:
        self._words = words
        self._masks: dict[int, tuple[int, ...]] = {}

    def may_be_in(self, found: WordFilter) -> bool:
        """Whether the file of filter ``found`` may hold one of the words."""
        size, bits = found
        masks = self._masks.get(size)
        if masks is None:
            masks = self._masks[size] = tuple(word_mask(word, size) for word in self._words)
        return any(bits & mask == mask for mask in masks)
