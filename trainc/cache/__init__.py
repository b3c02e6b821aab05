"""trainc's content-addressed cache: results kept under keys of everything they depend on.

:mod:`.location` says where the cache lives (or that there is none), :mod:`.keys` makes
the keys, :mod:`.store` keeps the entries. What is cached, and under which key, is the
business of the stage that computes it (see ``docs/cache.md``).
"""
