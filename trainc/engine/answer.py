"""The kept answer of Argo CD's ``generate`` over a repository whose bytes did not change.

Argo CD's repo server runs the plugin's command (``trainc compile -o -``,
``deploy/argocd/plugin.yaml``) for every commit it has not rendered yet, most often one
that changed another part of the git repository and nothing in the Application's
directory, and at every hard refresh. Its CMP server extracts the files into a new
temporary directory each time
(https://github.com/argoproj/argo-cd/blob/master/cmpserver/plugin/plugin.go,
``GenerateManifest``): a new path, new inodes and status-change times, so nothing keyed
by path or ``stat`` is found again. Only what the files hold is the same.

So a compile of the whole repository onto standard output that reported nothing (no
error, no warning: a report with lines to quote is made afresh) keeps what it wrote to
stdout and stderr under a key of everything they depend on (:func:`answer_key`): trainc
itself, the command line, the Argo CD Application's choices, which files git tracks, and
the bytes of every file under the repository's root. The next such command computes that
key first and, when an answer is kept under it, writes it and ends. It reads and digests
the files but parses none, and imports neither the loader nor a check: ``trainc.cli.main``
asks before the command's own modules load (``tests/cli/test_argocd_refresh.py`` pins what
it imports).

Every file under the root counts, not only the inputs: which files are inputs, policies or
the cluster's manifests is trainc.yaml's to say, and reading it takes the parser this
path does without. A file added anywhere (a README too) costs one full compile.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from trainc.cache.keys import code_fingerprint, digest
from trainc.cache.store import Store
from trainc.config.settings import find_paths_root
from trainc.load.gitref import tracked_files

#: The cache sections of an answer, whole entries found by key without a head: what the
#: report said (UTF-8), and the stream. Both are kept raw, not pickled: the stream is
#: tens of megabytes, and unpickling copies it once more before it is written.
ANSWERS = "answers"
STREAMS = "streams"
#: What git keeps in a repository, and a work tree's link to it: neither is the
#: repository's content (a checkout's index and objects differ from copy to copy).
_GIT = ".git"
#: What one read asks for: most files under a GitOps repository fit in one.
_CHUNK = 1 << 16


class Answer(NamedTuple):
    """What a clean ``compile -o -`` wrote: the manifests, and its report on stderr."""

    stream: bytes
    said: str


def answer_key(argv: Sequence[str], cwd: Path, choices: object) -> str | None:
    """The key of the answer to ``argv`` run in ``cwd`` with ``choices`` (the Argo CD
    Application's, :func:`~trainc.argocd.argocd_overrides`) as the repository is now;
    None when a file under the root cannot be read.

    The root is found as every command finds it. Which files git tracks is part of the
    key (a run reads only those, ``docs/cache.md``); a link is keyed by where it points,
    from the root when it points inside (Argo CD extracts links as absolute paths into its
    temporary directory).
    """
    root = find_paths_root((), cwd)
    tracked = tracked_files(root)
    head = (
        code_fingerprint(),
        ANSWERS,
        *argv,
        repr(choices),
        "untracked" if tracked is None else "tracked",
        *sorted(tracked or ()),
    )
    try:
        return digest(itertools.chain(head, _contents(root)))  # one file held at a time
    except OSError:
        return None


def _contents(root: Path) -> Iterator[str | bytes]:
    """Each entry under ``root`` (less git's), in a fixed order: its path from the root,
    then a file's bytes or where a link points."""
    base = os.path.join(root, "")  # noqa: PTH118 - str prefixes: thousands of calls
    pending = [base]
    while pending:
        with os.scandir(pending.pop()) as listing:
            entries = sorted((entry for entry in listing if entry.name != _GIT), key=_name)
        pending.extend(  # depth first: a fixed order, whatever the file system's
            os.path.join(entry.path, "")  # noqa: PTH118
            for entry in reversed(entries)
            if entry.is_dir(follow_symlinks=False)
        )
        for entry in entries:
            if entry.is_symlink():
                yield from (entry.path[len(base) :], *_link_target(entry.path, base))
            elif entry.is_file(follow_symlinks=False):
                yield from (entry.path[len(base) :], _read(entry.path))


def _read(path: str) -> bytes:
    """The bytes of the file ``path``, read with the system's calls alone: at 10,000 small
    files a file object each costs more than the reads (about 80 ms against 50), and the
    bytes go into the key's one digest, not a digest of their own."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(descriptor, _CHUNK):
            chunks.append(chunk)
    finally:
        os.close(descriptor)
    return b"".join(chunks)


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _link_target(path: str, base: str) -> tuple[str, str]:
    """Where the link ``path`` points: from the root when it points inside it."""
    target = os.readlink(path)  # noqa: PTH115 - see _contents
    return ("-> root", target[len(base) :]) if target.startswith(base) else ("->", target)


def stored_answer(store: Store, key: str) -> Answer | None:
    """The answer kept under ``key``, or None: either part missing or damaged (the
    store checks each entry's digest), or a report that is not UTF-8."""
    said = store.get(ANSWERS, key)
    stream = store.get(STREAMS, key) if said is not None else None
    if said is None or stream is None:
        return None
    try:
        return Answer(stream, said.decode())
    except UnicodeDecodeError:
        return None


def keep_answer(store: Store, key: str, answer: Answer) -> None:
    """Keep ``answer`` under ``key`` for the next run of the same command: the stream
    first, so a run killed between the two writes leaves no report without its stream."""
    store.put(STREAMS, key, answer.stream)
    store.put(ANSWERS, key, answer.said.encode())
