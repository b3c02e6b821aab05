"""The ``trainc`` command line: parse options, call :mod:`trainc.app`, render, exit."""
