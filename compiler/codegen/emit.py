"""Emission: optimise LLVM IR and write a relocatable ELF object for the host target.

::

    llvm_module = lower_export(ir_module, "f", symbol, options)
    emitted = emit_object(llvm_module, options)      # -> EmittedObject
    emitted.object_code                               # ELF .o bytes, byte-reproducible

Objects are position independent (``reloc="pic"``, small code model): code and data are
reached PC-relative, external functions (libm, libc) through PLT/GOT relocations against
their names, so the same bytes link anywhere with gradc's own loader
(``gradc.artifacts.loader.link``) or LLVM's JIT linkers, and carry no address of the compiling process (DESIGN.md §2, §7.1).

The target is the host's triple; ``options.cpu`` names the CPU (``"native"`` resolves to
the host CPU and its feature string). Optimisation runs LLVM's new pass manager with the
default ``-O<options.opt_level>`` pipeline.
"""

from __future__ import annotations

import functools

import llvmlite.binding as llvm
from llvmlite import ir as ll

from gradc._dataclass import dataclass
from gradc.artifacts.toolchain import llvm_version  # the producer's, in every cache key
from gradc.compiler.codegen.size_policy import (
    codegen_level,
    fast_instruction_selection,
    middle_end,
    needs_middle_end,
)
from gradc.compiler.options import CompilerOptions

__all__ = [
    "EmittedObject",
    "add_abi_description",
    "assembly_from_llvm",
    "check_cpu",
    "emit_object",
    "llvm_version",
    "optimize",
    "set_register_allocator",
    "target_info",
    "target_machine",
]


@dataclass(frozen=True)
class EmittedObject:
    """The products of one emission.

    Attributes:
        object_code: ELF relocatable object bytes.
        llvm_text: the optimised LLVM IR, as text.
        asm_text: the target assembly of the same code, or ``""`` (the default: code
            generation is not run a second time at build time; ``gradc inspect --asm``
            regenerates it from ``llvm_text`` with :func:`assembly_from_llvm`).
    """

    object_code: bytes
    llvm_text: str
    asm_text: str = ""


@functools.cache
def _initialize() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


@functools.cache
def _cpu_and_features(cpu: str) -> tuple[str, str]:
    if cpu == "native":
        _initialize()
        features = llvm.get_host_cpu_features()
        # sorted by name: one canonical string per feature set
        return llvm.get_host_cpu_name(), features.flatten(sort=True)
    return cpu, ""


def target_info(options: CompilerOptions) -> dict[str, str]:
    """The target code is generated for: ``{"triple", "cpu", "features"}``.

    ``cpu`` is ``options.cpu`` with ``"native"`` resolved to the host's CPU name, and
    ``features`` is then the host's sorted ``+feat,-feat`` string (empty otherwise). These
    three strings go into the cache key and the artifact manifest.
    """
    _initialize()
    cpu, features = _cpu_and_features(options.cpu)
    return {"triple": llvm.get_process_triple(), "cpu": cpu, "features": features}


#: CPU names every x86-64 LLVM accepts, not probed (``native`` resolves to the host's).
_KNOWN_X86_64_CPUS = frozenset(
    {"native", "generic", "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"}
)

# Run in a child process: LLVM reports an unknown CPU only as a warning on the C stderr
# (and then generates for a default CPU), and a 32-bit-only CPU on a 64-bit triple ends
# the process with "LLVM ERROR: 64-bit code requested ..." while emitting; neither can be
# caught in this process.
_PROBE = """
import sys
import llvmlite.binding as llvm
llvm.initialize_native_target()
llvm.initialize_native_asmprinter()
triple, cpu = sys.argv[1], sys.argv[2]
tm = llvm.Target.from_triple(triple).create_target_machine(cpu=cpu, reloc="pic")
mod = llvm.parse_assembly("define double @f(double %x) {\\n  ret double %x\\n}\\n")
mod.triple = triple
tm.emit_object(mod)
"""

_UNKNOWN_CPU = "is not a recognized processor"


@functools.cache
def check_cpu(cpu: str) -> None:
    """Check that LLVM generates code for CPU name ``cpu`` on the host's triple.

    ``"native"``, ``"generic"``, ``"x86-64"`` and ``"x86-64-v2"`` .. ``"-v4"`` pass at
    once on x86-64 hosts; any other name is tried by emitting a one-function object in a
    child process (~0.2 s, once per name and process), since LLVM answers a bad name only
    with a warning on the C stderr or by aborting the process.

    Raises:
        ValueError: LLVM does not know ``cpu`` (``"bogus"``), or cannot generate code for
            the host's triple with it (``"i686"`` on x86-64); the message names the CPU.
    """
    _initialize()
    triple = llvm.get_process_triple()
    if cpu in _KNOWN_X86_64_CPUS and triple.startswith("x86_64"):
        return
    import subprocess  # only for CPU names not known beforehand: off a build's critical path
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _PROBE, triple, cpu], capture_output=True, text=True
    )
    if _UNKNOWN_CPU in done.stderr:
        raise ValueError(f"{cpu!r} is not a CPU LLVM knows for target {triple}")
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
        reason = lines[-1] if lines else f"exit status {done.returncode}"
        raise ValueError(f"CPU {cpu!r} cannot generate code for target {triple} ({reason})")


@functools.cache
def _target_machine(
    triple: str, cpu: str, features: str, opt_level: int, fast_isel: bool = False
) -> llvm.TargetMachine:
    # ``fast_isel`` keys the cache only: LLVM sets a target machine's FastISel flag when it
    # first generates code with ``-fast-isel=true`` and never clears it, so the modules
    # that use the fast selector get a machine of their own (see _select_instructions).
    target = llvm.Target.from_triple(triple)
    return target.create_target_machine(
        cpu=cpu, features=features, opt=opt_level, reloc="pic", codemodel="default"
    )


def target_machine(options: CompilerOptions) -> llvm.TargetMachine:
    """The LLVM target machine for ``options`` (cached per triple, CPU and opt level).

    Host triple; ``reloc="pic"`` and the small code model (what gradc's loader, LLVM's JIT
    linkers and ordinary shared objects link); codegen optimisation level ``options.opt_level``.

    Raises:
        ValueError: LLVM does not know the CPU or cannot use it for the triple
            (:func:`check_cpu`).
    """
    check_cpu(options.cpu)
    info = target_info(options)
    return _target_machine(info["triple"], info["cpu"], info["features"], options.opt_level)


def optimize(llvm_module_text: str, options: CompilerOptions) -> llvm.ModuleRef:
    """Parse, verify and optimise LLVM IR text with the ``-O<opt_level>`` pipeline.

    The module gets the target's triple and data layout first, so that the optimiser
    sees the real type sizes and the target's cost model. Vectorisers run from ``-O2``
    on, as in clang; an ``-O2`` module of more than
    :data:`~.size_policy.LARGE_INSTRUCTIONS` instructions gets the ``-O1`` pipeline
    (:func:`~.size_policy.middle_end`, docs/compile_time.md); a module in final form (a
    fast-call wrapper, :func:`~.size_policy.needs_middle_end`) is only verified.

    Raises:
        RuntimeError: the text does not parse or the module does not verify (a code
            generator bug: the message is LLVM's).
    """
    _initialize()
    tm = target_machine(options)
    mod = llvm.parse_assembly(llvm_module_text)
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    mod.verify()
    if not needs_middle_end(llvm_module_text):
        return mod
    pipeline = middle_end(llvm_module_text, options)  # a cheaper one for huge modules
    pto = llvm.create_pipeline_tuning_options(speed_level=pipeline.speed_level)
    pto.loop_vectorization = pipeline.loop_vectorization
    pto.slp_vectorization = pipeline.slp_vectorization
    pb = llvm.create_pass_builder(tm, pto)
    pm = pb.getModulePassManager()
    pm.run(mod, pb)
    return mod


def add_abi_description(module: ll.Module, symbol: str, description: bytes) -> None:
    """Define ``__gradc_abi_<symbol>`` in ``module``: a constant byte array holding
    ``description`` (``gradc.artifacts.abi.encode`` of the object's ABI description), with
    external linkage so that it survives optimisation and is found by name in the object
    (docs/abi.md "ABI description"). The loader compares it with the manifest before
    linking.
    """
    from gradc.artifacts.abi.symbols import description_symbol

    array = ll.ArrayType(ll.IntType(8), len(description))
    gv = ll.GlobalVariable(module, array, name=description_symbol(symbol))
    gv.global_constant = True
    gv.align = 1
    gv.initializer = ll.Constant(array, bytearray(description))


def emit_object(llvm_module: ll.Module | str, options: CompilerOptions) -> EmittedObject:
    """Optimise ``llvm_module`` (an ``llvmlite.ir`` module or its text) and emit it.

    Deterministic: the same input text and options give byte-identical objects in any
    process (nothing depends on hash seeds, addresses or time).

    Raises:
        RuntimeError: LLVM rejects the module (see :func:`optimize`).
    """
    text = llvm_module if isinstance(llvm_module, str) else str(llvm_module)
    mod = optimize(text, options)
    llvm_text = str(mod)
    fast = fast_instruction_selection(llvm_text, options.opt_level)
    level = codegen_level(llvm_text, options.opt_level)  # -O0 for a fast-call wrapper
    info = target_info(options)
    tm = _target_machine(info["triple"], info["cpu"], info["features"], level, fast)
    _select_instructions(fast, options.opt_level)
    # From a clone, as the stored LLVM IR text is when `gradc inspect --asm` parses it: the
    # optimiser leaves use-lists in an order that a clone (or a parse) does not reproduce,
    # and code generation depends on it (gmm: other bytes emitted from ``mod`` itself).
    object_code = bytes(tm.emit_object(mod.clone()))
    return EmittedObject(object_code=object_code, llvm_text=llvm_text)


def assembly_from_llvm(llvm_text: str, triple: str, cpu: str, features: str, opt_level: int) -> str:
    """The target assembly of optimised LLVM IR text (an ``EmittedObject.llvm_text``).

    Runs only code generation, with the target machine :func:`emit_object` used for the
    object (``triple``, ``cpu``, ``features`` as :func:`target_info` resolved them, codegen
    level ``opt_level``): the assembly is that of the stored object, which is emitted from
    the same optimised module (a fast-call wrapper's with the ``-O0`` code generator, as
    :func:`~.size_policy.codegen_level` chooses). ``gradc inspect --asm`` calls this, so builds never
    generate code twice just to keep assembly text.

    Raises:
        RuntimeError: the text does not parse or does not verify (LLVM's message).
    """
    _initialize()
    fast = fast_instruction_selection(llvm_text, opt_level)
    level = codegen_level(llvm_text, opt_level)
    tm = _target_machine(triple, cpu, features, level, fast)
    mod = llvm.parse_assembly(llvm_text)
    mod.verify()
    _select_instructions(fast, opt_level)
    return str(tm.emit_assembly(mod))


def _select_instructions(fast: bool, opt_level: int) -> None:
    """Set LLVM's process-wide code generator options for the next code generation (on a
    target machine of ``_target_machine(..., fast_isel=fast)``) of a build at
    ``-O<opt_level>``: ``-fast-isel``, and the register allocator
    (:func:`set_register_allocator`). Set before every one, so no choice is left over
    from a previous module."""
    llvm.set_option("gradc", f"-fast-isel={'true' if fast else 'false'}")
    set_register_allocator(opt_level)


def set_register_allocator(opt_level: int) -> None:
    """Set LLVM's process-wide ``-optimize-regalloc`` for code generation of a build at
    ``-O<opt_level>``: LLVM's optimising register allocator from ``-O1`` on, also for a
    fast-call wrapper's ``-O0`` code generator (:func:`~.size_policy.codegen_level`),
    whose own allocator keeps no value in a register from one block to the next. For a
    target machine at ``opt_level`` itself this is LLVM's default, so every code generator
    of the build (the PTX one too, :mod:`.ptx`) sets it before it runs: the option
    outlives the module that set it."""
    llvm.set_option("gradc", f"-optimize-regalloc={'true' if opt_level > 0 else 'false'}")
