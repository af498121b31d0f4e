"""What a build produces: the compiled entries of a module, ready for the artifact store.

``gradc.compiler.driver.build_module`` returns a :class:`BuildOutput`;
``gradc.artifacts.store.write_artifact`` writes it. The classes are plain data: importing
this module imports no compiler.
"""

from __future__ import annotations

from dataclasses import field
from typing import Protocol

from gradc._dataclass import dataclass


@dataclass(frozen=True)
class Param:
    """One parameter of an exported function.

    Attributes:
        name: the Python parameter name.
        type: gradc type string (``"f64"``, ``"f64[:, :]"``; see ``types.python_name``).
        writes: the function may write into this (array) parameter, so a read-only
            array must be refused.
    """

    name: str
    type: str
    writes: bool = False


@dataclass(frozen=True)
class Signature:
    """The Python-visible signature of an export.

    Attributes:
        params: parameters in order.
        result: gradc type string of the result: ``"f64"``, ``"i64"``, ``"bool"``,
            ``"f32"``, ``"i32"``, ``"none"`` or ``"tuple[f64,i64]"`` (nesting allowed).
        defaults: (parameter name, value) of the trailing parameters that have default
            values, in parameter order (a call may omit them).
    """

    params: tuple[Param, ...]
    result: str
    defaults: tuple[tuple[str, int | float | bool], ...] = ()

    def __str__(self) -> str:
        args = ", ".join(f"{p.name}: {p.type}" for p in self.params)
        return f"({args}) -> {self.result}"


@dataclass(frozen=True)
class CompiledEntry:
    """One exported function, compiled to a relocatable object (or reused from a cache).

    Attributes:
        name: exported Python name.
        signature: its signature.
        symbol: C-ABI entry symbol in ``object_code`` (docs/abi.md).
        object_code: ELF relocatable object bytes.
        key: hex sha256 cache key of this entry.
        key_components: component name -> hex sha256 or plain value, one field each
            (``ir``, ``options.opt_level``, ``target.cpu``, ``versions.llvm`` ...), for
            ``inspect --key`` and ``build --explain``.
        ir_text: typed IR of the export and its callees after the pass pipeline.
        llvm_text: optimised LLVM IR.
        asm_text: target assembly.
        wrapper_object: the CPython fast-call wrapper object for this export (DESIGN.md
            §6), or ``b""`` when the loader must use its ctypes path (array signatures).
        dependencies: IR function name -> its Merkle hash, for the export and every
            function it reaches (the export's own hash is ``key_components["ir"]``).
        sites: the raise-site table (``gradc.compiler.codegen.sites``): site ``k`` is
            ``sites[k - 1]`` = (module-relative file, line, 0-based column).
        reused: the object came from the cache (nothing was lowered or emitted).
        variants: the same export compiled for the other CPU variants
            (``BuildOutput.variant_targets[1:]``, in order); empty for one CPU.
        dispatch: for one of several signatures of a function (``f.f64``): the name the
            loader dispatches on (``f``); ``""`` otherwise.
    """

    name: str
    signature: Signature
    symbol: str
    object_code: bytes
    key: str
    key_components: dict[str, str | int | bool]
    ir_text: str = ""
    llvm_text: str = ""
    asm_text: str = ""
    wrapper_object: bytes = b""
    dependencies: dict[str, str] = field(default_factory=dict)
    sites: tuple[tuple[str, int, int], ...] = ()
    reused: bool = False
    variants: tuple[CompiledEntry, ...] = ()
    dispatch: str = ""


class CachedEntry(Protocol):
    """What a cache lookup returns for a key: blobs already verified against their sha256.

    ``gradc.artifacts.store.ReusableEntry`` fits. The runtime object is looked up under
    ``BuildOutput.runtime_key`` with ``object_code`` only.
    """

    @property
    def object_code(self) -> bytes: ...
    @property
    def wrapper_object(self) -> bytes: ...
    @property
    def llvm_text(self) -> str: ...
    @property
    def asm_text(self) -> str: ...


@dataclass(frozen=True)
class BuildOutput:
    """Everything one build produced, ready for the artifact store.

    Attributes:
        module_name: the module's name (file stem).
        entries: the compiled exports in source order.
        target: ``{"triple": ..., "cpu": ..., "features": ...}``.
        timings: phase name -> seconds, in phase order.
        runtime_object: the ELF object defining the ``gradc_rt1_*``/``gradc_rt2_*`` runtime functions
            (docs/abi.md), which the loader links once per process.
        runtime_key: cache key of ``runtime_object`` (options, target, versions).
        sources: module-relative file name -> hex sha256 of its bytes, for every file the
            front end read (runtime mode checks freshness with it, without compiling).
        callees: IR function name -> the names it calls directly (for ``--explain``).
        cuda: the CUDA builds of the kernels (``--target cuda``), in source order.
        variant_targets: with several CPU variants (``CompilerOptions.cpus``), the target
            of each, in order (the first is ``target``); empty for one CPU.
    """

    module_name: str
    entries: tuple[CompiledEntry, ...]
    target: dict[str, str]
    timings: dict[str, float] = field(default_factory=dict)
    runtime_object: bytes = b""
    runtime_key: str = ""
    sources: dict[str, str] = field(default_factory=dict)
    callees: dict[str, tuple[str, ...]] = field(default_factory=dict)
    variant_targets: tuple[dict[str, str], ...] = ()
    cuda: tuple[CudaKernel, ...] = ()


@dataclass(frozen=True)
class CudaVariant:
    """One CUDA build of a kernel: its PTX (``kind == "ptx"``) or a cubin.

    Attributes:
        kind: ``"ptx"`` or ``"cubin"``.
        arch: ``sm_XY``: the PTX's ``.target``, or the arch the cubin runs on.
        isa: the PTX ISA (``"7.0"``) of the PTX (a cubin's: of the PTX assembled).
        code: the PTX text (UTF-8) or the cubin's bytes.
        key: its cache key; key_components: the components (``keys.cuda_components``).
    """

    kind: str
    arch: str
    isa: str
    code: bytes
    key: str
    key_components: dict[str, str | int | bool]


@dataclass(frozen=True)
class CudaKernel:
    """A kernel built for CUDA: entry ``symbol`` (the same in every variant), the
    kernel's own ``signature``, its raise-site table and its variants (PTX first, then
    the cubins in arch order)."""

    name: str
    signature: Signature
    symbol: str
    sites: tuple[tuple[str, int, int], ...]
    variants: tuple[CudaVariant, ...]
