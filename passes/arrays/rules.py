"""Imports every module that registers ``lower-arrays`` rules (one line per family)."""

from gradc.passes.arrays import (
    batched,  # noqa: F401 (registrations)
    construct,  # noqa: F401 (registrations)
    elementwise,  # noqa: F401 (registrations)
    gather,  # noqa: F401 (registrations)
    indexing,  # noqa: F401 (registrations)
    linalg,  # noqa: F401 (registrations)
    reduce,  # noqa: F401 (registrations)
    reorder,  # noqa: F401 (registrations)
    solve,  # noqa: F401 (registrations)
    sort,  # noqa: F401 (registrations)
    views,  # noqa: F401 (registrations)
)
