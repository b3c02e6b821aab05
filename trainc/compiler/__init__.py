"""The compiler: resolved TrainJobs into the manifests written to git, one builder per kind.

A :class:`~trainc.resolve.resolved.ResolvedJob` already holds the JobSet as the API
server will store it and everything its companions are made from; validation judged it
before anything is built. The builders here only turn it into objects (the JobSet, the
PodGroup, ConfigMaps, PersistentVolumeClaims) and report nothing: a problem a build could
find is one validation finds first. The sweeper's own objects are built here too.
"""
