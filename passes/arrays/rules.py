"""Imports every module that registers ``lower-arrays`` rules (one line per family)."""

from gradc.passes.arrays import (  # noqa: F401 (registrations)
    construct,
    elementwise,
    linalg,
)
