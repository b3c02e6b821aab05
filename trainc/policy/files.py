"""Finding and parsing policy files: the repository's directories and the built-in pack.

Policy files are read with the same bounds and the same YAML parser as inputs, so a
hostile policy file is refused the same way, and its findings carry file and line.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from dataclasses import field
from pathlib import Path

from trainc.config.limits import InputLimits
from trainc.config.settings import DEFAULT_POLICY_PATHS, RepoConfig
from trainc.diagnostics import Diagnostic, Rule, Severity, finding
from trainc.load.discover import discover_files
from trainc.load.documents import Document
from trainc.load.globs import path_filter
from trainc.load.reader import decode_input, read_input
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.records import dataclass
from trainc.resources import data_dir

POLICY_INVALID = Rule(
    "policy.invalid",
    Severity.ERROR,
    "a policy file is malformed",
)


#: Built-in policies are reported as coming from here, not from a path on disk.
BUILTIN_PREFIX = "<builtin>/"

_POLICY_FILES = path_filter(("**/*.yaml", "**/*.yml"), ())


@dataclass(slots=True)
class PolicyFiles:
    """Parsed policy documents, the files they came from, and what could not be read.

    ``sources`` holds the repository's policy files; a built-in document carries its own
    source, which a report shows only when that policy is enabled.
    """

    repository: list[Document] = field(default_factory=list)
    builtin: list[Document] = field(default_factory=list)
    sources: dict[str, SourceFile] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def parse(self, source: SourceFile, limits: InputLimits) -> Sequence[Document]:
        """The documents of ``source``, recording the file and its parse findings."""
        parsed = parse_documents(source, limits)
        self.sources[source.path] = source
        self.diagnostics.extend(parsed.diagnostics)
        return parsed.documents


def read_policy_files(config: RepoConfig) -> PolicyFiles:
    """Every policy document of the repository and of the built-in pack, in path order."""
    files = PolicyFiles()
    for path in _repository_files(config, files.diagnostics):
        data = read_input(config.root, path, config.limits)
        text = data if isinstance(data, Diagnostic) else decode_input(path, data)
        if isinstance(text, Diagnostic):
            files.diagnostics.append(text)
        else:
            files.repository.extend(files.parse(SourceFile(path, text), config.limits))
    for _, documents in _builtin_pack():
        files.builtin.extend(documents)
    return files


@functools.cache
def _builtin_pack() -> tuple[tuple[SourceFile, tuple[Document, ...]], ...]:
    """The built-in pack, parsed once per process.

    It ships with trainc and its tests keep every file valid, so it is read with the
    default bounds rather than the repository's (a tiny ``maxDepth`` in trainc.yaml must
    not make trainc's own files fail).
    """
    pack: list[tuple[SourceFile, tuple[Document, ...]]] = []
    for pack_file in sorted(data_dir("policies").glob("*.yaml")):
        source = SourceFile(BUILTIN_PREFIX + pack_file.name, pack_file.read_text("utf-8"))
        pack.append((source, parse_documents(source, InputLimits()).documents))
    return tuple(pack)


def _repository_files(config: RepoConfig, diagnostics: list[Diagnostic]) -> list[str]:
    """``*.yaml``/``*.yml`` files under the configured paths, as sorted repo-relative paths.

    A missing default ``policies/`` directory just means no policies; a configured
    path that does not exist is a mistake in trainc.yaml. Links out of the repository
    are refused, as for inputs.
    """
    found: set[str] = set()
    for path in config.policies.paths:
        if not (config.root / path).exists():
            if config.policies.paths != DEFAULT_POLICY_PATHS:
                diagnostics.append(_missing_path(config, path))
            continue
        discovery = discover_files([config.root / path], root=config.root, select=_POLICY_FILES)
        found.update(discovery.files)
        diagnostics.extend(discovery.diagnostics)
    return sorted(found)


def in_policy_directory(path: Path, config: RepoConfig) -> bool:
    """Whether ``path`` lies in one of the repository's policy directories."""
    root = config.root.resolve()
    return any(path.resolve().is_relative_to(root / policies) for policies in config.policies.paths)


def named_policy_files(paths: Sequence[Path], config: RepoConfig, read: Collection[str]) -> int:
    """How many of the policy files ``read`` the ``paths`` name: those paths that lie in
    a policy directory (``policies/``, ``policies/team-label.yaml``).

    Inputs leave policy directories out, so ``trainc validate policies/`` reads no input
    file, yet it checks every policy there: the summary counts those files rather than
    say that nothing was read. A path that merely holds a policy directory (the
    repository's root) names the repository's inputs, and its summary stays theirs.
    """
    named = [path for path in paths if in_policy_directory(path, config)]
    if not named:
        return 0
    discovery = discover_files(named, root=config.root, select=_POLICY_FILES)
    return len(set(discovery.files) & set(read))


def _missing_path(config: RepoConfig, path: str) -> Diagnostic:
    return finding(
        "policy.invalid",
        f"policies.paths names {path!r}, which does not exist",
        file=config.config_file,
    )
