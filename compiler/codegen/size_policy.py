"""Size-aware LLVM pipelines: how hard LLVM works on a module, by its size.

At the default ``-O2`` a module of LLVM IR larger than a threshold gets a cheaper pipeline,
as production JITs do for very large methods (.NET's JIT switches a method to "MinOpts"
beyond 60,000 IL bytes or 2,000 basic blocks; JavaScriptCore's B3 uses its cheapest
register allocator for huge functions): the cost of several ``-O2`` passes grows faster
than the code (GVN and the SLP vectorizer over thousands of blocks), while their benefit
on the straight-line, branchy code of a large generated gradient is small.
docs/compile_time.md has the figures.

From :data:`LARGE_INSTRUCTIONS` instructions in the module's text (the gradient of 200
``if/else`` statements is 47,000) the middle end is LLVM's ``-O1`` pipeline without the
SLP vectorizer: on the gradient of 400 statements the ``-O2`` pipeline spends 5.1 s of
CPU, ``-O1`` 2.3 s, for an object 0.4 % smaller and a call 20 % slower (5.3 -> 6.5 us).
Code generation keeps its ``-O2`` register allocator and machine passes (LLVM's ``-O0``
code generator would cut its 3.5-4 s to 0.7 s, but the code ran five times slower); only
instruction selection switches to LLVM's fast selector for a module that is still that
large after optimisation (:func:`fast_instruction_selection`: about 1 s less for that
gradient, a call up to 17 % slower).

Gradc's fast-call wrappers (:mod:`.pywrapper`, one small module per export) get no
middle end at all (:func:`needs_middle_end`): they are generated in the form the ``-O2``
pipeline would leave them (no loops, no values through memory but the entry's
out-parameters, the slow path's call marked ``tail``), so the pipeline's ~3 ms per wrapper
bought nothing but a different block layout. Their code generation is LLVM's ``-O0`` code
generator (:func:`codegen_level`: the fast instruction selector, no machine-level
optimisation) with the optimising register allocator
(``emit.set_register_allocator``): 10 M instead of 16.4 M instructions (callgrind) for
``poly(x: f64, n: i64)``'s wrapper, for the same calls (benchmarks/bench_call_overhead.py,
same-run A/B), since the wrappers are generated in the form that code generator needs
(checks branched one by one, the fast path falling through: ``pywrapper_arrays.branch_if_all``).

It changes no computed number: LLVM's passes preserve IEEE semantics unless fast-math
flags allow otherwise, and with ``fastmath`` the build keeps the pipeline it asked for.
``-O3`` (and ``-O0``, ``-O1``) keep theirs at any size: ``-O3`` is the way to ask for the
full pipeline on a large module. The choice depends only on the LLVM IR text and the
options, so the same inputs still give byte-identical objects (the cache key holds both).
"""

from __future__ import annotations

from gradc._dataclass import dataclass
from gradc.compiler.options import CompilerOptions

__all__ = [
    "FINAL_FORM",
    "LARGE_INSTRUCTIONS",
    "Pipeline",
    "codegen_level",
    "fast_instruction_selection",
    "instruction_count",
    "middle_end",
    "needs_middle_end",
]

#: From this many instructions (:func:`instruction_count`) an ``-O2`` module is optimised
#: with the ``-O1`` pipeline, without SLP vectorization.
LARGE_INSTRUCTIONS = 40_000


@dataclass(frozen=True)
class Pipeline:
    """The middle end chosen for a module.

    Attributes:
        speed_level: LLVM's pipeline, ``-O<speed_level>``.
        loop_vectorization: run the loop vectorizer.
        slp_vectorization: run the SLP (straight-line) vectorizer.
    """

    speed_level: int
    loop_vectorization: bool
    slp_vectorization: bool


def instruction_count(llvm_text: str) -> int:
    """The number of instructions in LLVM IR text, counted as the lines indented by two
    spaces (how both llvmlite and LLVM print an instruction; labels, globals, declarations
    and metadata are not indented)."""
    return llvm_text.count("\n  ")


#: The named metadata that marks a module generated in final form (a fast-call wrapper):
#: :func:`needs_middle_end` is False for it. Codegen ignores it; it is not in the object.
FINAL_FORM = "gradc.final_form"


def needs_middle_end(llvm_text: str) -> bool:
    """Whether the module ``llvm_text`` is optimised at all: False for a module that
    carries the :data:`FINAL_FORM` named metadata (gradc's fast-call wrappers), which
    goes straight to code generation; True for every other module."""
    return f"\n!{FINAL_FORM} = " not in llvm_text


def _capped(options: CompilerOptions) -> bool:
    """Whether ``options`` let the size decide: the default ``-O2``, no fast-math."""
    return options.opt_level == 2 and not options.fastmath


def middle_end(llvm_text: str, options: CompilerOptions) -> Pipeline:
    """The optimisation pipeline for the module ``llvm_text`` (before optimisation)."""
    level = options.opt_level
    if _capped(options) and instruction_count(llvm_text) >= LARGE_INSTRUCTIONS:
        return Pipeline(1, loop_vectorization=True, slp_vectorization=False)
    return Pipeline(level, loop_vectorization=level >= 2, slp_vectorization=level >= 2)


def fast_instruction_selection(optimized_text: str, opt_level: int) -> bool:
    """Whether code generation of the optimised module ``optimized_text`` uses LLVM's fast
    instruction selector (FastISel, falling back to SelectionDAG per instruction it does
    not handle) instead of SelectionDAG.

    True at ``-O0`` (LLVM's own default there), for a module in final form (a fast-call
    wrapper, :func:`needs_middle_end`: straight-line calls of the C API, where the fast
    selector cuts a fifth of code generation) and for an ``-O2`` module of at least
    :data:`LARGE_INSTRUCTIONS` instructions after optimisation; the register allocator
    and the machine passes keep the ``-O2`` code generator's choices. It depends on the
    optimised text and the level only, so ``gradc inspect --asm`` (which has both) makes
    the choice the object was emitted with. Instruction selection does not change IEEE
    arithmetic: computed numbers are the same (docs/compile_time.md).
    """
    if opt_level == 0 or not needs_middle_end(optimized_text):
        return True
    return opt_level == 2 and instruction_count(optimized_text) >= LARGE_INSTRUCTIONS


def codegen_level(optimized_text: str, opt_level: int) -> int:
    """The code generator's optimisation level (LLVM's ``CodeGenOptLevel``) for the
    optimised module ``optimized_text``: 0 for a module in final form (a fast-call wrapper,
    :func:`needs_middle_end`), ``opt_level`` for every other module. Like
    :func:`fast_instruction_selection` it depends on the optimised text and the level only,
    so ``gradc inspect --asm`` generates the code the object holds."""
    return opt_level if needs_middle_end(optimized_text) else 0
