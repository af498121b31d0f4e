"""Compiler options: one frozen value read once in ``cli/`` and passed down.

Nothing below ``cli/`` reads the environment or ``sys.argv``; every knob that changes
generated code is a field here, and :meth:`CompilerOptions.key_fields` lists exactly the
fields that enter the cache key (DESIGN.md §5).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Portable baseline CPU for objects meant to run on any x86-64 host.
DEFAULT_CPU = "x86-64"


@dataclass(frozen=True)
class CompilerOptions:
    """Options of one build.

    Attributes:
        opt_level: LLVM optimisation level, 0..3 (``-O0`` .. ``-O3``).
        cpu: LLVM CPU name (``"x86-64"``, ``"x86-64-v3"``, ``"znver4"``) or ``"native"``,
            resolved to the host's CPU name and features by the code generator.
        fastmath: allow LLVM's fast-math flags on floating-point operations.
        boundscheck: check array indices (IndexError) — used from the arrays work on.
        timings: print per-phase times (not part of the cache key).
        verbose: chatty output (not part of the cache key).
    """

    opt_level: int = 2
    cpu: str = DEFAULT_CPU
    fastmath: bool = False
    boundscheck: bool = True
    timings: bool = False
    verbose: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.opt_level <= 3:
            raise ValueError(f"opt_level must be 0..3, got {self.opt_level}")

    def key_fields(self) -> dict[str, object]:
        """The fields that change generated code, as a plain dict for the cache key."""
        return {
            "opt_level": self.opt_level,
            "cpu": self.cpu,
            "fastmath": self.fastmath,
            "boundscheck": self.boundscheck,
        }
