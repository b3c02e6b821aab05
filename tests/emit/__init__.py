"""Tests of trainc.emit; a package so its module names cannot clash with other tests."""
