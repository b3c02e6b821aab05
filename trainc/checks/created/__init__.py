"""Checks of a resolved TrainJob: the JobSet it becomes and the Jobs the cluster creates from it."""
