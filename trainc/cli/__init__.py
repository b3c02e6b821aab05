"""The ``trainc`` command line: parse options, call :mod:`trainc.api`, render, exit."""
