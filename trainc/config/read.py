"""Reading a repository's trainc.yaml: where the repository's root is, and the settings
its file (or its absence) gives a run.

Every command starts here, before anything of the repository is read: the root decides
what the findings' paths are relative to, and the settings how the inputs are read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from trainc.config.file import CONFIG_FILE_NAME, RepoConfigFile
from trainc.config.settings import Overrides, RepoConfig, build_config, find_paths_root
from trainc.diagnostics import Diagnostic
from trainc.errors import UsageError
from trainc.load.documents import Document
from trainc.load.inputs import load_single_file
from trainc.load.source import SourceFile
from trainc.model.decode import decode
from trainc.model.schematree import load_kind_schema
from trainc.records import dataclass
from trainc.schema.defaults import store
from trainc.schema.structural import check_stored


@dataclass(frozen=True, slots=True)
class ConfigResult:
    """The repository config, or the diagnostics that prevented reading it.

    ``document`` is the parsed trainc.yaml, so later findings about its entries (an
    unknown policy name) can point at the line; ``root`` is the repository root, which
    the findings' paths are relative to.
    """

    config: RepoConfig | None
    diagnostics: tuple[Diagnostic, ...]
    sources: Mapping[str, SourceFile]
    document: Document | None = None
    root: Path | None = None


def load_config(
    *,
    cwd: Path,
    paths: Sequence[Path] = (),
    config_file: Path | None = None,
    environment: str | None = None,
    overrides: Overrides | None = None,
) -> ConfigResult:
    """Find the repository root and read its ``trainc.yaml``, if any.

    The root is the repository of ``paths`` (relative to ``cwd``), or of ``cwd`` when
    none are given (see :func:`~trainc.config.settings.find_paths_root`). An explicit
    ``config_file`` sets the root to its directory instead. A missing explicit file is a
    usage error; a malformed one is reported as diagnostics in that file.
    ``overrides`` (an Argo CD Application's choices) adjust the file as
    :func:`~trainc.config.settings.build_config` documents.
    """
    if config_file is not None:
        if not config_file.is_file():
            raise UsageError(f"--config {config_file}: no such file")
        path = config_file.resolve()
        root = path.parent
    else:
        root = find_paths_root(paths, cwd)
        path = root / CONFIG_FILE_NAME
        if not path.is_file():
            config = build_config(
                root, None, config_file=None, environment=environment, overrides=overrides
            )
            return ConfigResult(config, (), {}, root=root)
    relative = path.relative_to(root).as_posix()
    source, documents, diagnostics = load_single_file(path, relative)
    sources = {relative: source} if source is not None else {}
    if diagnostics:
        return ConfigResult(None, tuple(diagnostics), sources, root=root)
    data = documents[0].data if documents else {}
    schema = load_kind_schema("Config")
    stored = store(data if data is not None else {}, schema)
    findings = check_stored(stored, schema)
    if findings:
        document = documents[0]
        located = tuple(
            document.finding(f.path, "config.invalid", f.message, hint=f.hint) for f in findings
        )
        return ConfigResult(None, located, sources, root=root)
    file = decode(RepoConfigFile, stored.defaulted)
    config = build_config(
        root, file, config_file=relative, environment=environment, overrides=overrides
    )
    return ConfigResult(config, (), sources, documents[0] if documents else None, root)
