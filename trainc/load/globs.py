"""Root-relative path globs that choose input files, compiled once per pattern set.

Patterns are matched against repo-relative POSIX paths as a whole: ``*`` and ``?`` stop at
``/``, ``**/`` spans any number of directories (including none), so ``**/*.yaml`` also
matches ``a.yaml`` at the root, and ``[abc]``/``[!abc]`` are character classes. A pattern
without ``/`` matches at the root only, unlike ``.gitignore``.
"""

from __future__ import annotations

import functools
import itertools
import re

from trainc.config.file import CONFIG_FILE_NAME
from trainc.records import dataclass

_TOKEN = re.compile(r"\*\*/|\*\*|\*|\?|\[!?[^\]/]+\]|[^*?\[]+|\[")
_NOTHING = "(?!)"
_WILDCARDS = frozenset("*?[")


def _translate(pattern: str) -> str:
    out: list[str] = []
    for piece in _TOKEN.findall(pattern.lstrip("/").removeprefix("./")):
        if piece == "**/":
            out.append("(?:.*/)?")
        elif piece == "**":
            out.append(".*")
        elif piece == "*":
            out.append("[^/]*")
        elif piece == "?":
            out.append("[^/]")
        elif len(piece) > 1 and piece[0] == "[":
            body = piece[1:-1].replace("\\", "\\\\")
            body = "^" + body[1:] if body[0] == "!" else body.replace("^", "\\^", 1)
            out.append(f"[{body}]")
        else:
            out.append(re.escape(piece))
    return "".join(out)


def any_of(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One expression that fully matches the paths any of ``patterns`` matches."""
    return re.compile("|".join(f"(?:{_translate(p)})" for p in patterns) or _NOTHING, re.DOTALL)


def literal_directory(pattern: str) -> str:
    """The directory every match of ``pattern`` lies under: its part before any wildcard.

    ``runtimes/**`` gives ``runtimes``, ``teams/*/runtimes/*.yaml`` gives ``teams``,
    ``*.yaml`` gives ``""`` (the root): where a walk for the pattern starts.
    """
    directories = pattern.lstrip("/").removeprefix("./").split("/")[:-1]
    literal = itertools.takewhile(lambda part: not _WILDCARDS.intersection(part), directories)
    return "/".join(literal)


@dataclass(frozen=True, slots=True)
class PathFilter:
    """Decides which repo-relative files a directory walk (or a git tree listing) reads."""

    include: re.Pattern[str]
    exclude: re.Pattern[str]
    pruned: re.Pattern[str]

    def excludes(self, path: str) -> bool:
        """True for a file the exclude globs rule out, even when named explicitly."""
        return self.exclude.fullmatch(path) is not None

    def selects(self, path: str) -> bool:
        """True for a file the walk reads: included, not excluded, not the root trainc.yaml."""
        return (
            path != CONFIG_FILE_NAME
            and self.include.fullmatch(path) is not None
            and self.exclude.fullmatch(path) is None
        )

    def prunes(self, directory: str) -> bool:
        """True for a directory whose whole content is excluded (a ``dir/**`` exclude)."""
        return self.pruned.fullmatch(directory) is not None


@functools.lru_cache(maxsize=16)
def path_filter(include: tuple[str, ...], exclude: tuple[str, ...]) -> PathFilter:
    """The filter for a config's include and exclude globs.

    Only excludes ending in ``/**`` prune directories: for those, nothing below a matching
    directory can be selected, so the walk need not list it (``node_modules/**``).
    """
    return PathFilter(
        include=any_of(include),
        exclude=any_of(exclude),
        pruned=any_of(tuple(p[:-3] for p in exclude if p.endswith("/**"))),
    )
