"""The rules trainc reports, gathered from where they are declared.

Each rule is declared next to the check that reports it (a :class:`trainc.diagnostics.Rule`
constant); this package collects the declarations and writes what is generated from them:
:mod:`trainc.catalogue`, which a run reads, and docs/rules.md. ``python -m trainc.rulebook``
writes both, ``--check`` says whether they are fresh, and a test runs the check.
"""
