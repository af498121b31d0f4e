"""gradc's version string, in a module that imports nothing (artifact writers read it)."""

__version__ = "0.1.0"
