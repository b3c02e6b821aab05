"""trainc's benchmark harness: synthetic repositories, a runner, the PyYAML floor, the
output writer's syncs and the sweeper's API cost.

Run it from the repository root with ``python -m bench.run`` (see bench/README.md). Nothing
here is imported by trainc or by its test suite, except the bench's own tests
(``tests/bench``); the sweeper's entry uses the suite's stand-in API server.
"""
