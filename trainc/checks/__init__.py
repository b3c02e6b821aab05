"""What the cluster enforces on the objects a TrainJob creates, one package per family of checks."""
