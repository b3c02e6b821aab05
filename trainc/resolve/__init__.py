"""Joining objects: which runtime a TrainJob uses, with CRD defaults applied to both."""
