"""``trainc migrate`` as a library call."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from trainc.diagnostics import Diagnostic, exit_code
from trainc.errors import UsageError
from trainc.load.inputs import load_context, load_inputs
from trainc.policy.apply import load_policies
from trainc.schema.metadata import domain_prefixed_path_errors

if TYPE_CHECKING:
    from trainc.migrate.document import FileMigration, LeftAsIs

from trainc.app.session import (
    Request,
)

#: The runtimePatches manager ``trainc migrate`` names the entries it writes, as kubectl
#: names its field manager after itself: the entry says which tool wrote it.
MIGRATE_MANAGER = "trainc.dev/migrate"


@dataclass(frozen=True, slots=True)
class MigrationReport:
    """The outcome of ``trainc migrate``: each file with old spellings, before and after.

    ``files`` holds every file that changes or keeps a finding, in path order;
    ``diagnostics`` what stopped the run before any file was read (a bad trainc.yaml).
    """

    files: tuple[FileMigration, ...]
    written: bool
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def changed(self) -> tuple[FileMigration, ...]:
        """The files whose text changes (or changed, when written)."""
        return tuple(file for file in self.files if file.changed)

    @property
    def left(self) -> tuple[LeftAsIs, ...]:
        """The findings no rewrite resolves, with why, in file order."""
        return tuple(item for file in self.files for item in file.left)

    def diff(self) -> str:
        """The change as a unified diff, file by file in path order."""
        from trainc.migrate.diff import unified_diff  # noqa: PLC0415 - migrate only

        return unified_diff(self.files)

    @property
    def exit_code(self) -> int:
        """1 when a file would change (not written) or a finding needs a person, else 0."""
        pending = bool(self.changed) and not self.written
        return 1 if pending or self.left or exit_code(self.diagnostics) else 0


def migrate_paths(
    paths: Sequence[Path],
    *,
    cwd: Path,
    config_file: Path | None = None,
    manager: str = MIGRATE_MANAGER,
    write: bool = False,
) -> MigrationReport:
    """Rewrite old spellings in the given files and directories (the repository when none).

    Without ``write`` nothing is written: the report holds each file's new text. With it,
    each changed file is replaced atomically (:mod:`trainc.emit.replace`). ``manager``
    names the runtimePatches entry that old overrides, labels and annotations become.
    Raises UsageError for an invalid manager.
    """
    from trainc.emit.replace import ChangedMeanwhile, replace_text  # noqa: PLC0415
    from trainc.migrate.repository import migrate_checked  # noqa: PLC0415 - migrate only

    problems = domain_prefixed_path_errors(manager)
    if problems:
        raise UsageError(f"--manager {manager}: {'; '.join(problems)}")
    request = Request(paths, cwd, config_file)
    loaded_config = request.open()
    config = loaded_config.config
    if config is None:
        return MigrationReport((), written=False, diagnostics=loaded_config.diagnostics)
    inputs = load_inputs(request.targets or [config.root], config=config)
    context = load_context(inputs.sources, config=config) if paths else None
    policies = load_policies(config, config_document=loaded_config.document)
    files = migrate_checked(
        inputs, context.objects if context else (), config, policies, manager=manager
    )
    if write:
        for file in files:
            if file.changed:
                try:
                    replace_text(config.root / file.path, file.before, file.after)
                except ChangedMeanwhile as error:
                    raise UsageError(f"{file.path} changed while trainc migrate ran") from error
    return MigrationReport(files, written=write)
