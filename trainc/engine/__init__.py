"""The run as stages over data.

The file pass, the job pass, worker processes and the cache wiring.
"""
