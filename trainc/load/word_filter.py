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

The filter is sized to the file's words, :data:`_BITS_PER_WORD` bits each, and a word
sets four bits, from the halves of two CRC-32s of it (stable across processes, unlike
Python's salted ``hash``): about one in 400 files without a word is read anyway, per word
asked (files of one kind share most words, so a word that one filter wrongly holds, many
hold). Building a filter costs about as much as reading the file once more, and happens
once per changed file. It is plain bytes (its size in bits is eight times their number):
an index holds one per repository file, and reads back as many bytes objects, not as
many large integers.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Hashable, Mapping
from typing import TypeAlias, TypeVar

#: The characters of object names (DNS labels and subdomains, upper case included so a
#: name the API server refuses is found too); a name's word never continues into them.
_WORD = re.compile(rb"[-.A-Za-z0-9]+")
#: A whole word, with the colon that follows it if any (which makes it no value).
_WORD_AND_COLON = re.compile(rb"[-.A-Za-z0-9]+:?")
_BITS_PER_WORD = 16
_MIN_BITS = 64
_HALF = 16
#: The second CRC-32 starts from this value instead of 0.
_SECOND_START = 0x9E3779B9

_Key = TypeVar("_Key", bound=Hashable)
#: A filter: its bits, little-endian (bit ``n`` is bit ``n % 8`` of byte ``n // 8``).
WordFilter: TypeAlias = bytes


def is_word(needle: bytes) -> bool:
    """Whether ``needle`` is one whole word, as a filter can be asked about."""
    return _WORD.fullmatch(needle) is not None


def word_filter(data: bytes) -> WordFilter:
    """The filter of the words of ``data`` that no colon follows."""
    words = {word for word in set(_WORD_AND_COLON.findall(data)) if not word.endswith(b":")}
    places = bytearray(-(-max(_MIN_BITS, _BITS_PER_WORD * len(words)) // 8))
    size = len(places) * 8
    for word in words:
        for bit in _bits(word, size):
            places[bit >> 3] |= 1 << (bit & 7)
    return bytes(places)


def word_mask(word: bytes, size: int) -> int:
    """The bits ``word`` sets in a filter of ``size`` bits."""
    mask = 0
    for bit in _bits(word, size):
        mask |= 1 << bit
    return mask


def _bits(word: bytes, size: int) -> tuple[int, int, int, int]:
    first, second = zlib.crc32(word), zlib.crc32(word, _SECOND_START)
    return (
        first % size,
        (first >> _HALF) % size,
        second % size,
        (second >> _HALF) % size,
    )


class Words:
    """A few words (each :func:`is_word`), asked of many filters: their bits are worked out
    once per filter size (files of one kind have similar sizes)."""

    def __init__(self, words: frozenset[bytes]) -> None:
        self._words = words
        self._masks: dict[int, tuple[int, ...]] = {}

    def lacking(self, filters: Mapping[_Key, WordFilter]) -> frozenset[_Key]:
        """The keys of ``filters`` whose files hold none of the words: one call for all
        of a repository's files, not one each."""
        masks_of = self._masks
        lacking = []
        for key, found in filters.items():
            size = len(found) * 8
            masks = masks_of.get(size)
            if masks is None:
                masks = masks_of[size] = tuple(word_mask(word, size) for word in self._words)
            bits = int.from_bytes(found, "little")
            for mask in masks:
                if bits & mask == mask:
                    break
            else:
                lacking.append(key)
        return frozenset(lacking)
