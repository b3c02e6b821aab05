"""Argo CD's ``generate`` answered before the command's modules load.

The plugin's command (``deploy/argocd/plugin.yaml``) runs for every commit Argo CD has not
rendered, and most find the Application's directory as the last one did. Before click
imports ``trainc compile`` (and with it the loader, the checks and the builders),
:func:`begin_refresh` computes the key of the kept answer (:mod:`trainc.engine.answer`);
when one is kept, :func:`trainc.cli.main.main` writes it and exits. Otherwise the compile
runs in full, and a clean one keeps what it wrote under that key
(:func:`trainc.cli.compile.compile_command`): the key is taken before the files are read,
so a file changed during the run can only make the answer a miss.

Only that exact command line is answered, and only with its report going to a pipe (as
under Argo CD and in CI): a terminal gets colours and a progress line, which no kept
answer reproduces.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, TextIO

from trainc.argocd import argocd_overrides
from trainc.cache.location import cache_root
from trainc.cache.store import Store
from trainc.engine.answer import Answer, answer_key, keep_answer, stored_answer
from trainc.errors import UsageError


class Refresh(NamedTuple):
    """The cache and the answer's key of one ``generate``."""

    store: Store
    key: str

    def answer(self) -> Answer | None:
        """The answer kept for the repository as it is now, if any."""
        return stored_answer(self.store, self.key)

    def keep(self, store: Store, answer: Answer) -> None:
        """Keep a clean compile's ``answer``, in the command's ``store`` (which counts
        what it writes against the cache's bound)."""
        keep_answer(store, self.key, answer)


def begin_refresh(
    args: Sequence[str], environ: Mapping[str, str], stderr: TextIO
) -> Refresh | None:
    """The refresh of Argo CD's ``generate`` (``args``) when there is a cache to keep its
    answer in and its report goes to a pipe; None otherwise, or when the Application's
    choices are invalid (the command then says why)."""
    if stderr.isatty():
        return None
    root = cache_root(None, disabled=False, environ=environ)
    store = Store.open(root) if root is not None else None
    if not isinstance(store, Store):
        return None
    try:
        choices = argocd_overrides(environ)
    except UsageError:
        return None
    colour = (environ.get("NO_COLOR"), environ.get("FORCE_COLOR"))
    key = answer_key(args, Path.cwd(), (choices, colour))
    return Refresh(store, key) if key is not None else None
