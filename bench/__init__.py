"""trainc's benchmark harness: synthetic repositories, a runner, and the PyYAML floor.

Run it from the repository root with ``python -m bench.run`` (see bench/README.md). Nothing
here is imported by trainc or by its test suite, except the generator's own test.
"""
