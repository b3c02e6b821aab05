"""Resolution: a TrainJob joined with its runtime into the JobSet and Jobs the cluster gets.

The stage between validating objects one by one and building manifests. For each
TrainJob it finds the runtime, applies runtime patches and the TrainJob's overrides, and
runs the plugins' enforce phases (pod counts, framework environment, gang-scheduling
marks, volumes, lifecycle), giving a :class:`~trainc.resolve.resolved.ResolvedJob`: the
JobSet exactly as it will be stored and, through :mod:`.childjobs`, the Jobs the JobSet
controller will create, each value with the input line it came from. Validation judges
that; the plugins' build parts only turn it into objects (:mod:`trainc.build`).

This package is the framework's core: the context, the phases, the runner, patches,
child Jobs, provenance. It knows no plugin: they live in :mod:`trainc.plugins` and the
run passes them in, and a plugin's own state rides in the resolved job's extensions.
"""
