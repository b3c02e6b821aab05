"""The typed Trainer API (TrainJob, TrainingRuntime, ClusterTrainingRuntime) and its markers.

These dataclasses are the single source of truth for the API: ``trainc schemas`` turns
them into CRDs and JSON Schemas, and the compiler reads decoded objects through them.
"""
