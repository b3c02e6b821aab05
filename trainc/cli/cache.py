"""``trainc cache``: where the cache of validate and compile is, what it holds, clearing it."""

from __future__ import annotations

import os
from pathlib import Path

import click

from trainc.app import (
    CacheLocation,
    cache_contents,
    cache_location,
    cache_max_size,
    clean_cache,
    trim_cache,
)
from trainc.cache.budget import readable_size
from trainc.cache.layouts import Layout
from trainc.cache.location import MAX_SIZE_VARIABLE, NO_CACHE_VARIABLE
from trainc.cli.options import cache_dir_option
from trainc.diagnostics import counted
from trainc.errors import UsageError, os_errors_as_usage


@click.group("cache")
def cache_command() -> None:
    """Show and clear the cache of `trainc validate` and `trainc compile`.

    Those commands keep the results of reading and checking each file, and each
    TrainJob's findings and output, under keys of everything they depend on; a result
    is reused only when all of it is unchanged, so the cache never changes what they
    report or write. It is kept under a size bound, TRAINC_CACHE_MAX_SIZE (default
    256Mi, or none): past it, a run removes the least recently used entries. `trainc
    cache clean` removes them all (see docs/cache.md).

    \b
    Examples:
      trainc cache dir                        # where it is
      trainc cache info                       # how many entries, how much space
      trainc cache trim                       # down to the bound now
      trainc cache clean                      # remove trainc's entries
      trainc cache clean --cache-dir .cache   # the cache of a CI job
    """


@cache_command.command("dir")
@cache_dir_option
def dir_command(*, cache_dir: Path | None) -> int:
    """Print the cache directory that runs with these settings use.

    The directory is --cache-dir, else $TRAINC_CACHE_DIR, else $XDG_CACHE_HOME/trainc,
    else ~/.cache/trainc. Nothing is printed on stdout when runs use no cache:
    TRAINC_NO_CACHE is set (stderr names the directory they would use otherwise), or
    there is no home directory to put it in. Exit 0 either way.
    """
    location = cache_location(cache_dir, os.environ)
    if location.root is None:
        click.echo(f"trainc: {_NO_DIRECTORY}", err=True)
    elif location.disabled:
        click.echo(f"trainc: {_disabled(location)}", err=True)
    else:
        click.echo(str(location.root))
    return 0


@cache_command.command("info")
@cache_dir_option
def info_command(*, cache_dir: Path | None) -> int:
    """Show the cache directory, whether runs use it, and its entries and size.

    Directories named v<N> under it that hold anything but cache entries are listed as
    left alone: they are not trainc's.
    """
    root, disabled = _located(cache_dir)
    limit = cache_max_size(os.environ)
    with os_errors_as_usage("read", root):
        layouts = cache_contents(root)
    click.echo(f"directory: {root}")
    if disabled:
        click.echo(f"status: disabled by {NO_CACHE_VARIABLE}: runs neither read nor write it")
    elif not root.exists():
        click.echo("status: not created yet: the next validate or compile creates it")
    else:
        click.echo("status: used by validate and compile")
    if limit is None:
        click.echo(f"bound: none ({MAX_SIZE_VARIABLE}=none)")
    else:
        click.echo(
            f"bound: {readable_size(limit)} on disk, least recently used entries removed past it"
        )
    for layout in layouts:
        click.echo(f"{layout.path.name}: {_describe(layout)}")
    return 0


@cache_command.command("clean")
@cache_dir_option
def clean_command(*, cache_dir: Path | None) -> int:
    """Remove trainc's cache entries, and nothing else.

    The directory may be shared (~/.cache, an emptyDir, a CI cache path): only the
    layout directories trainc made in it (v1, and the v<N> of other trainc versions)
    are removed, and only when they hold nothing but cache entries; everything else
    there stays, and a symbolic link in it is never followed. The directory is cleaned
    even when TRAINC_NO_CACHE is set. A run using the cache meanwhile is safe: it
    computes again what it finds gone.

    Prints what was removed and how much, and what was left alone. Exit 0 when done
    (also with nothing to remove), 2 when the directory cannot be read or an entry
    cannot be removed.

    \b
    Examples:
      trainc cache clean                              # ~/.cache/trainc, by default
      trainc cache clean --cache-dir .trainc-cache    # a GitLab job's
      TRAINC_CACHE_DIR=/cache/trainc trainc cache clean   # the Argo CD sidecar's
    """
    root, _ = _located(cache_dir)
    with os_errors_as_usage("clean", root):
        report = clean_cache(root)
    for removal in report.removed:
        kept = " (files written meanwhile were kept)" if removal.kept else ""
        click.echo(f"Removed {removal.path}: {_amount(removal.entries, removal.size)}{kept}.")
    for layout in report.left_alone:
        click.echo(f"trainc: warning: left {layout.path} alone: {layout.foreign}", err=True)
    if not report.removed:
        click.echo(f"Nothing to remove in {root}.")
    return 0


@cache_command.command("trim")
@cache_dir_option
def trim_command(*, cache_dir: Path | None) -> int:
    """Remove the least recently used entries until the cache is well under its bound.

    Runs do this by themselves when the cache grows past TRAINC_CACHE_MAX_SIZE (default
    256Mi); this does it now, down to three quarters of the bound, as they do. Only
    trainc's entries in the current layout are removed, never the temporary files of
    writes in flight. Exit 0 when done (also with nothing to remove), 2 when the bound
    is none or invalid, or the directory cannot be read.

    \b
    Examples:
      trainc cache trim                                    # ~/.cache/trainc
      TRAINC_CACHE_MAX_SIZE=64Mi trainc cache trim         # to a smaller bound
    """
    root, _ = _located(cache_dir)
    limit = cache_max_size(os.environ)
    if limit is None:
        raise UsageError(f"{MAX_SIZE_VARIABLE}=none: the cache has no bound to trim it to")
    with os_errors_as_usage("trim", root):
        trimmed = trim_cache(root, limit)
    click.echo(
        f"Removed {_amount(trimmed.entries, trimmed.size)}; "
        f"{readable_size(trimmed.remaining)} remain (bound {readable_size(limit)})."
    )
    return 0


_NO_DIRECTORY = (
    "no cache directory: there is no home directory to put it in; "
    "set TRAINC_CACHE_DIR or pass --cache-dir"
)


def _located(cache_dir: Path | None) -> tuple[Path, bool]:
    """The cache directory and whether runs leave it alone; a usage error without one."""
    location = cache_location(cache_dir, os.environ)
    if location.root is None:
        raise UsageError(_NO_DIRECTORY)
    return location.root, location.disabled


def _disabled(location: CacheLocation) -> str:
    value = os.environ.get(NO_CACHE_VARIABLE, "")
    return f"the cache is disabled ({NO_CACHE_VARIABLE}={value}); otherwise: {location.root}"


def _describe(layout: Layout) -> str:
    if layout.foreign is not None:
        return f"left alone, not trainc's: {layout.foreign}"
    return f"{_amount(layout.entries, layout.size)} ({readable_size(layout.disk)} on disk)"


def _amount(entries: int, size: int) -> str:
    return f"{counted(entries, 'entry', 'entries')}, {readable_size(size)}"
