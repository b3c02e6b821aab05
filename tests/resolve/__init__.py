"""Tests of the resolve stage, and builders of defaulted objects for later stages."""
