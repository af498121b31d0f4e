"""Whole-array operations lowered into loops (the ``lower-arrays`` pass)."""
