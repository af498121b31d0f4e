"""Differentiable corpus (see ``_harness.py``); modules are loaded by path, not imported."""
