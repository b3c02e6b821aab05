"""Property-based fuzzing of the whole pipeline: loader, validator, compiler, command line.

``strategies`` generates repositories (mutated and valid ones) from ``seeds`` (the case
corpus and examples/), ``harness`` runs trainc on them and holds the invariants, and the
``test_*`` modules are the properties, quick under the ``ci`` profile;
``test_regressions`` keeps what they found. ``python -m tests.fuzz`` (``run``) is the long
run; its last result is in ``RESULTS.md``.
"""
