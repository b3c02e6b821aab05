"""The only exceptions that cross package boundaries.

Anything wrong in a user's files is a :class:`~trainc.diagnostics.Diagnostic`, not an
exception; these two cover the cases where trainc cannot produce a report at all.
"""


class UsageError(Exception):
    """The command line asks for something that cannot be done (exit code 2)."""


class CompilerBug(Exception):  # noqa: N818 - a bug, not an error in the input
    """trainc broke one of its own invariants; the message says so (exit code 2)."""
