"""Imports every module that registers ``lower-arrays`` rules (one line per family)."""

from gradc.passes.arrays import (
    elementwise,  # noqa: F401 (registrations)
    indexing,  # noqa: F401 (registrations)
    reduce,  # noqa: F401 (registrations)
    views,  # noqa: F401 (registrations)
)
