"""``trainc prune``: remove from git the TrainJobs the cluster is done with.

:mod:`~trainc.prune.verdict` judges each TrainJob by its JobSet in the cluster,
:mod:`~trainc.prune.removal` takes the expired ones out of their files, with the edits of
:mod:`~trainc.prune.edit`. The in-cluster sweeper (:mod:`trainc.sweep`) never edits git.
"""
