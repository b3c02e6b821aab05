"""What a command is asked: one :class:`RunOptions`, built once by the front end (the
command line from its parameters, a test or a script from its own) and read by every
step of the run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO, TypedDict

from trainc.cache.store import Store
from trainc.config.settings import Overrides
from trainc.engine.progress import Progress
from trainc.records import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class RunOptions:
    """The repository a command is asked about, and how to run over it.

    ``paths`` are files and directories relative to ``cwd`` (the repository when none),
    and ``stdin`` one more input named ``<stdin>`` (``kustomize build DIR | trainc
    validate -``). The repository is the one they are in; its trainc.yaml is
    ``config_file`` when given, read with ``environment`` and ``overrides`` (an Argo CD
    Application's choices; see :func:`~trainc.config.read.load_config`). ``base`` is the
    git revision ``--base`` compares with. ``jobs`` is how many processes may check files
    and judge TrainJobs (default: the usable cores; a small repository stays in one, see
    :mod:`trainc.engine.workers`): findings and output are the same whatever it is. With
    a ``cache``, what did not change since a run that kept it is not checked again
    (``docs/cache.md``); findings and output are the same. With ``untracked`` False (the
    command line's default, ``--untracked`` turns it on), a run over the whole repository
    in a git work tree leaves out the input files git does not track, and says which.
    ``progress`` hears of every file read, object checked and job judged.
    """

    cwd: Path
    paths: Sequence[Path] = ()
    stdin: BinaryIO | None = None
    config_file: Path | None = None
    environment: str | None = None
    overrides: Overrides | None = None
    base: str | None = None
    jobs: int | None = None
    cache: Store | None = None
    untracked: bool = True
    progress: Progress | None = None

    @property
    def targets(self) -> tuple[Path, ...]:
        """The paths as the loader reads them, wherever the process runs."""
        return tuple(self.cwd / path for path in self.paths)


class ConfigChoices(TypedDict, total=False):
    """The :class:`RunOptions` that say how to read the repository's trainc.yaml."""

    config_file: Path | None
    environment: str | None
    overrides: Overrides | None


class RunChoices(ConfigChoices, total=False):
    """The :class:`RunOptions` a library call names as keywords beside its paths and
    working directory (:func:`trainc.app.validate_paths` and its siblings)."""

    stdin: BinaryIO | None
    base: str | None
    jobs: int | None
    cache: Store | None
    untracked: bool
    progress: Progress | None
