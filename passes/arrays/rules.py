"""Imports every module that registers ``lower-arrays`` rules (one line per family)."""

from gradc.passes.arrays import elementwise  # noqa: F401 (registrations)
