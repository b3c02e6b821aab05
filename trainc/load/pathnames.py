"""Repository-relative file names, the same whatever the locale.

Python decodes file names with the locale's filesystem encoding: under a UTF-8 locale
(or UTF-8 mode, the default for the C locale) ``jobs/ü.yaml`` is ``"jobs/ü.yaml"``, under
an ASCII or Latin-1 one it is ``"jobs/\\udcc3\\udcbc.yaml"`` or ``"jobs/Ã¼.yaml"``. The
names trainc reports, matches globs against and writes into compiled output
(``trainc.dev/source``) are the name's bytes read as UTF-8, as git and the repository's
other tools read them; bytes that are not UTF-8 stay lone surrogates (``surrogateescape``),
so every name has one form and maps back to its file exactly.
"""

from __future__ import annotations

import os


def repo_name(name: str) -> str:
    """The repository form of ``name`` as the operating system's calls return it.

    An ASCII name is its own form: the filesystem encoding must decode every byte below
    128 (https://docs.python.org/3/library/sys.html#sys.getfilesystemencoding), and every
    one Python has keeps ASCII as it is; a walk of thousands of files spares the round
    trip.
    """
    return name if name.isascii() else os.fsencode(name).decode("utf-8", "surrogateescape")


def os_name(name: str) -> str:
    """What to pass to the operating system for the repository-form ``name`` (an ASCII
    name as it is, see :func:`repo_name`)."""
    return name if name.isascii() else os.fsdecode(name.encode("utf-8", "surrogateescape"))


def text_name(name: str) -> str:
    """The repository-form ``name`` as Unicode text, for output that must be UTF-8 (a
    Kubernetes annotation: go-yaml refuses a ``\\udcff`` escape): each byte that is not
    UTF-8 becomes a ``\\xff`` escape."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
