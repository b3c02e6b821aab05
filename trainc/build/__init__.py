"""Building: resolved TrainJobs into the objects written to git.

A :class:`~trainc.resolve.resolved.ResolvedJob` already holds the JobSet as the API
server will store it and everything its companions are made from; validation judged it
before anything is built. Each plugin's build part (:mod:`trainc.plugins`) turns it into
its objects (the JobSet, the PodGroup, ConfigMaps, PersistentVolumeClaims) and reports
nothing: a problem a build could find is one validation finds first. Here are the runner
that labels them as trainc's (:mod:`.job`), the Namespaces a run adds (:mod:`.namespaces`)
and the sweeper's own objects (:mod:`.sweeper`). ``trainc compile`` (:mod:`trainc.app`)
drives it and :mod:`trainc.emit` writes the result.
"""
