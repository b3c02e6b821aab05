"""``trainc cluster pull``: the cluster's admission-relevant objects, read into the repository.

:mod:`trainc.cluster.snapshot` decides, without I/O, what to read, what of each object to
keep and where it goes; :mod:`trainc.cluster.pull` asks a reader for it;
:mod:`trainc.cluster.client` is that reader, the official ``kubernetes`` client behind it.
"""
