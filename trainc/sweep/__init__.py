"""The in-cluster sweeper: deadlines, TTL and garbage for compiled TrainJobs."""
