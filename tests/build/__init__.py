"""Tests of the build stage: the plugins one by one and upstream's vectors end to end."""
