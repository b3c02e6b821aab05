"""The library façade: what the command line, the Argo CD plugin, pre-commit and tests call.

Functions here run whole pipelines and return result objects; they never print, exit or
write outside the directory they are asked to write. Problems in the user's repository
come back as diagnostics; only a bad request (unknown path, unknown environment, an
unreadable --base revision) raises :class:`~trainc.errors.UsageError`. One module per
command (:mod:`.validate`, :mod:`.compile`, :mod:`.diff`, :mod:`.explain`,
:mod:`.migrate`, :mod:`.sources`, :mod:`.schemas`, :mod:`.cache`) over what they share
(:mod:`.run`).
"""

from trainc.app.cache import (
    CacheLocation,
    CleanReport,
    cache_contents,
    cache_location,
    cache_max_size,
    clean_cache,
    trim_cache,
)
from trainc.app.compile import CompileReport, compile_paths
from trainc.app.diff import DiffReport, diff_paths
from trainc.app.explain import ExplainReport, explain_paths
from trainc.app.migrate import MIGRATE_MANAGER, MigrationReport, migrate_paths
from trainc.app.schemas import check_schemas, write_schemas
from trainc.app.session import ConfigResult, Progress, ValidationReport, load_config
from trainc.app.sources import SourcesReport, TrainJobSource, trainjob_sources
from trainc.app.validate import validate_paths

__all__ = [
    "MIGRATE_MANAGER",
    "CacheLocation",
    "CleanReport",
    "CompileReport",
    "ConfigResult",
    "DiffReport",
    "ExplainReport",
    "MigrationReport",
    "Progress",
    "SourcesReport",
    "TrainJobSource",
    "ValidationReport",
    "cache_contents",
    "cache_location",
    "cache_max_size",
    "check_schemas",
    "clean_cache",
    "compile_paths",
    "diff_paths",
    "explain_paths",
    "load_config",
    "migrate_paths",
    "trainjob_sources",
    "trim_cache",
    "validate_paths",
    "write_schemas",
]
