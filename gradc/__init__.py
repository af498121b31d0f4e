"""gradc: ahead-of-time compiler for numeric Python with automatic differentiation."""

__version__ = "0.1.0"
