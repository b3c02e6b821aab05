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

import functools
import re
import zlib
from collections.abc import Iterable
from typing import TypeAlias

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

#: A filter: its bits, little-endian (bit ``n`` is bit ``n % 8`` of byte ``n // 8``).
WordFilter: TypeAlias = bytes
#: The filter of a file that must be read whatever is asked (a template renders its
#: names): every bit set.
EVERY_WORD: WordFilter = b"\xff" * (_MIN_BITS // 8)


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


def _bits(word: bytes, size: int) -> tuple[int, int, int, int]:
    first, second = zlib.crc32(word), zlib.crc32(word, _SECOND_START)
    return (
        first % size,
        (first >> _HALF) % size,
        second % size,
        (second >> _HALF) % size,
    )


class FilterTable:
    """The filters of many files (by their positions in a list of files), asked about a
    few words all at once.

    A warm pre-commit run asks the filters of every file of the repository; one Python
    step per filter cost 7 ms at 10,000 files. Here the filters of one size lie end to
    end in one bytes object, so each of a word's bits is read from all of them with one
    slice and one ``bytes.translate``, and the files that have all four bits are found by
    ANDing those columns as integers: a few C calls per word and size, about 0.5 ms for
    the same files. The groups are plain bytes, which a cache entry reads back whole.
    """

    __slots__ = ("groups",)

    def __init__(self, groups: dict[int, tuple[tuple[int, ...], bytes]]) -> None:
        #: filter length in bytes → (the positions of its filters, the filters end to end)
        self.groups = groups

    @classmethod
    def of(cls, filters: Iterable[WordFilter]) -> FilterTable:
        """The table of ``filters``, each at its position in that order."""
        grouped: dict[int, tuple[list[int], list[bytes]]] = {}
        for position, found in enumerate(filters):
            positions, parts = grouped.setdefault(len(found), ([], []))
            positions.append(position)
            parts.append(found)
        return cls({n: (tuple(ps), b"".join(parts)) for n, (ps, parts) in grouped.items()})

    def filters(self) -> dict[int, WordFilter]:
        """Each filter by its position."""
        return {
            position: blob[index * length : (index + 1) * length]
            for length, (positions, blob) in self.groups.items()
            for index, position in enumerate(positions)
        }

    def holding(self, words: frozenset[bytes]) -> list[int]:
        """The positions, in order, of the filters that may hold one of ``words`` (each
        :func:`is_word`)."""
        found: set[int] = set()
        for length, (positions, blob) in self.groups.items():
            size = length * 8
            for word in words:
                have = -1  # every filter of the group, until a bit is missing
                for bit in _bits(word, size):
                    column = blob[bit >> 3 :: length].translate(_has_bit(bit & 7))
                    have &= int.from_bytes(column, "little")
                    if not have:
                        break
                if have:
                    flags = have.to_bytes(len(positions), "little")
                    index = flags.find(1)
                    while index >= 0:
                        found.add(positions[index])
                        index = flags.find(1, index + 1)
        return sorted(found)


@functools.cache
def _has_bit(bit: int) -> bytes:
    """The table of ``bytes.translate`` that turns each byte into 1 when bit ``bit`` of it
    is set, else 0."""
    return bytes((value >> bit) & 1 for value in range(256))
