"""Tests of trainc.report; a package so its module names (test_json, ...) cannot clash."""
