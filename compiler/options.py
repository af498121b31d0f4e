"""Compiler options: one frozen value read once in ``cli/`` and passed down.

Nothing below ``cli/`` reads the environment or ``sys.argv``; every knob that changes
generated code is a field here, and :meth:`CompilerOptions.key_fields` lists exactly the
fields that enter the cache key (DESIGN.md §5).
"""

from __future__ import annotations

from dataclasses import replace

from gradc._dataclass import dataclass

#: Portable baseline CPU for objects meant to run on any x86-64 host.
DEFAULT_CPU = "x86-64"

#: The CPU variants of a default build (``gradc build`` without ``--cpu``, runtime mode):
#: the baseline, then x86-64-v3 (AVX2, FMA); the loader runs the best one the host
#: supports. With :attr:`CompilerOptions.vector_variants_only` the second is built only
#: for modules whose code handles arrays. No x86-64-v4 (AVX-512): it measured no faster
#: than x86-64-v3 on an AVX-512 host and 16-19 % slower on a gradient (docs/artifacts.md
#: "CPU variants", benchmarks/bench_variants.py; ``gradc.runtime_options.RUNTIME_CPUS``
#: must be the same).
DEFAULT_CPUS = (DEFAULT_CPU, "x86-64-v3")

#: Tape bytes per loop before reverse mode checkpoints it (``--tape-budget``): 0, every
#: loop taped whole (segmenting doubles the derivative code of the loops it may segment,
#: and about the compile time: examples/gmm.py 14 s -> 32 s).
DEFAULT_TAPE_BUDGET = 0

#: A budget for long loops (docs/ad.md "Long loops"): 32 MiB.
SUGGESTED_TAPE_BUDGET = 32 << 20


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
        cpus: CPU variants (``--cpu x86-64-v2,x86-64-v3,native``): when not empty, every
            export is compiled once per CPU in this order and the artifact holds one
            object per variant (the loader picks the best one the host supports); ``cpu``
            is then the first. Each variant's options (:meth:`variants`) have one ``cpu``
            and no ``cpus``, and that is what enters each variant's cache key.
        vector_variants_only: with ``cpus``, build the CPUs after the first only when some
            export's code handles arrays (``gradc.compiler.variant_policy``); a module of
            straight-line scalar code then gets ``cpu`` alone. Set by a default build
            (:data:`DEFAULT_CPUS`), not by an explicit ``--cpu`` list. Not a key field.
        cuda_archs: CUDA archs (``--target cuda --cuda-arch sm_80,sm_90``): when not
            empty, every kernel is also built to PTX for the lowest and one cubin per arch
            (``compiler/cuda_backend.py``); each CUDA variant has its own key
            (``keys.cuda_components``), so these are no CPU key field.
        tape_budget: tape bytes per loop above which reverse mode runs a long ``range``
            loop in checkpointed segments (``--tape-budget``; 0: tape every loop whole;
            docs/ad.md "Long loops"). A key component of derivatives only
            (``keys.entry_components``), not of :meth:`key_fields`.
        cuda_home: where the CUDA toolkit is (``CUDA_HOME``; ``""``: ptxas on PATH). Not a
            key field: the ``ptxas`` version and libdevice's sha256 are.
        jobs: worker processes for code generation (``gradc build -j``; 1: in process).
            Not a key field: every ``jobs`` gives the same bytes.
        shuffle_threads: the CPU build's grid loops visit blocks and threads in a fixed
            scrambled order (``compiler/infer/kernel_blocks.py``; for tests: a correct
            kernel does not depend on the order). Not a key field: it changes the grid
            loops' IR, which the ``ir`` key component hashes.
    """

    opt_level: int = 2
    cpu: str = DEFAULT_CPU
    fastmath: bool = False
    boundscheck: bool = True
    timings: bool = False
    verbose: bool = False
    cpus: tuple[str, ...] = ()
    vector_variants_only: bool = False
    cuda_archs: tuple[str, ...] = ()
    cuda_home: str = ""
    jobs: int = 1
    shuffle_threads: bool = False
    tape_budget: int = DEFAULT_TAPE_BUDGET

    def __post_init__(self) -> None:
        if not 0 <= self.opt_level <= 3:
            raise ValueError(f"opt_level must be 0..3, got {self.opt_level}")
        if self.cpus and self.cpus[0] != self.cpu:
            raise ValueError(f"cpu {self.cpu!r} must be the first of cpus {self.cpus!r}")
        if self.jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {self.jobs}")
        if self.tape_budget < 0:
            raise ValueError(f"tape_budget must be >= 0, got {self.tape_budget}")

    def variants(self) -> list[CompilerOptions]:
        """One options value per CPU variant (``[self]`` when ``cpus`` is empty)."""
        if not self.cpus:
            return [self]
        return [replace(self, cpu=c, cpus=(), vector_variants_only=False) for c in self.cpus]

    def key_fields(self) -> dict[str, object]:
        """The fields that change generated code, as a plain dict for the cache key."""
        return {
            "opt_level": self.opt_level,
            "cpu": self.cpu,
            "fastmath": self.fastmath,
            "boundscheck": self.boundscheck,
        }
