"""Unit tests of the build plugins, one module each."""
