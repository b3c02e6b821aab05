"""Organisation policies.

Found, loaded, compiled to CEL programs and evaluated against a run's objects.
"""
