"""Tests of trainc.crdgen; a package so its module names cannot clash with other tests."""
