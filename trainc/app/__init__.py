"""The library façade: what the command line, the Argo CD plugin, pre-commit and tests call.

Every command is a method of :class:`Session`, made from one :class:`RunOptions`
(:mod:`.session`, :mod:`.options`); :mod:`.library` gives each as one call. The engine
runs what reads the repository (validate, compile, diff, explain); the commands that
act on something else have a module here that hands them to their package:
:mod:`.migrate`, :mod:`.prune`, :mod:`.sweep` (with :mod:`.cluster`), :mod:`.init`,
:mod:`.schemas`, :mod:`.cache`; :mod:`.compile` holds compile's report. Only the light
ones are imported here: the others load with the command that needs them.
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
from trainc.app.compile import CompileReport
from trainc.app.library import compile_paths, explain_paths, migrate_paths, validate_paths
from trainc.app.options import RunChoices, RunOptions
from trainc.app.schemas import check_schemas, write_schemas
from trainc.app.session import Session
from trainc.config.read import ConfigResult, load_config
from trainc.engine.progress import Progress
from trainc.engine.report import ValidationReport

__all__ = [
    "CacheLocation",
    "CleanReport",
    "CompileReport",
    "ConfigResult",
    "Progress",
    "RunChoices",
    "RunOptions",
    "Session",
    "ValidationReport",
    "cache_contents",
    "cache_location",
    "cache_max_size",
    "check_schemas",
    "clean_cache",
    "compile_paths",
    "explain_paths",
    "load_config",
    "migrate_paths",
    "trim_cache",
    "validate_paths",
    "write_schemas",
]
