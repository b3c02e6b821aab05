"""trainc's content-addressed cache: results kept under keys of everything they depend on.

:mod:`.location` says where the cache lives (or that there is none), :mod:`.keys` makes
the keys, :mod:`.store` keeps the entries. A whole-repository run keeps its entries in
packs (:mod:`.pack`) named by its head, with a stat index of its inputs
(:mod:`.stat_index`), both in :mod:`.packed`; :mod:`.budget` bounds the size and
:mod:`.layouts` finds what trainc wrote. What is cached, and under which key, is the
business of the stage that computes it (see ``docs/cache.md``).
"""
