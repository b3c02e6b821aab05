"""``trainc migrate``: old spellings rewritten in the repository's files."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from trainc.config.read import ConfigResult
from trainc.config.settings import RepoConfig
from trainc.diagnostics import Diagnostic, exit_code
from trainc.emit.replace import ChangedMeanwhile, replace_text
from trainc.errors import UsageError
from trainc.load.inputs import load_context, load_inputs
from trainc.migrate.diff import unified_diff
from trainc.migrate.document import FileMigration, LeftAsIs
from trainc.migrate.repository import migrate_checked
from trainc.policy.apply import load_policies
from trainc.schema.metadata import domain_prefixed_path_errors

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
        return unified_diff(self.files)

    @property
    def exit_code(self) -> int:
        """1 when a file would change (not written) or a finding needs a person, else 0."""
        pending = bool(self.changed) and not self.written
        return 1 if pending or self.left or exit_code(self.diagnostics) else 0


@dataclass(frozen=True, slots=True)
class MigrateRequest:
    """``manager`` names the runtimePatches entry that old overrides, labels and
    annotations become; with ``write``, each changed file is replaced atomically
    (:mod:`trainc.emit.replace`), without it nothing is written."""

    manager: str = MIGRATE_MANAGER
    write: bool = False

    def check(self) -> None:
        """Raise UsageError for an invalid manager."""
        problems = domain_prefixed_path_errors(self.manager)
        if problems:
            raise UsageError(f"--manager {self.manager}: {'; '.join(problems)}")


def migrate_run(
    loaded_config: ConfigResult,
    config: RepoConfig,
    targets: Sequence[Path],
    request: MigrateRequest,
) -> MigrationReport:
    """Rewrite old spellings in ``targets`` (the repository when none); the report holds
    each file's new text, whether written or not."""
    inputs = load_inputs(list(targets) or [config.root], config=config)
    context = load_context(inputs.sources, config=config) if targets else None
    policies = load_policies(config, config_document=loaded_config.document)
    files = migrate_checked(
        inputs, context.objects if context else (), config, policies, manager=request.manager
    )
    if request.write:
        for file in files:
            if file.changed:
                try:
                    replace_text(config.root / file.path, file.before, file.after)
                except ChangedMeanwhile as error:
                    raise UsageError(f"{file.path} changed while trainc migrate ran") from error
    return MigrationReport(files, written=request.write)
