"""``trainc prune``: remove from git the TrainJobs the cluster is done with."""
