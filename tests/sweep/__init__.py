"""Tests of the sweeper: the pure decision and the I/O layer."""
