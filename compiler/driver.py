"""The compiler driver: source file in, compiled entries out (no files written here).

``cli`` calls :func:`build_module` and hands the result to ``gradc.artifacts.store``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from gradc.artifacts.keys import sha256_key
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.ops import Call
from gradc.compiler.ir.types import python_name
from gradc.compiler.options import CompilerOptions


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
    """

    params: tuple[Param, ...]
    result: str

    def __str__(self) -> str:
        args = ", ".join(f"{p.name}: {p.type}" for p in self.params)
        return f"({args}) -> {self.result}"


@dataclass(frozen=True)
class CompiledEntry:
    """One exported function, compiled to a relocatable object.

    Attributes:
        name: exported Python name.
        signature: its signature.
        symbol: C-ABI entry symbol in ``object_code`` (docs/abi.md).
        object_code: ELF relocatable object bytes.
        key: hex sha256 cache key of this entry.
        key_components: component name -> hex sha256 (or plain value), for ``inspect``.
        ir_text: typed IR of the export and its callees after the pass pipeline.
        llvm_text: optimised LLVM IR.
        asm_text: target assembly.
        wrapper_object: the CPython fast-call wrapper object for this export (DESIGN.md
            §6), or ``b""`` when the loader must use its ctypes path (array signatures).
        variants: the same export compiled for the other CPU variants
            (``BuildOutput.variant_targets[1:]``, in order); empty for one CPU.
    """

    name: str
    signature: Signature
    symbol: str
    object_code: bytes
    key: str
    key_components: dict[str, str]
    ir_text: str = ""
    llvm_text: str = ""
    asm_text: str = ""
    wrapper_object: bytes = b""
    variants: tuple[CompiledEntry, ...] = ()


@dataclass(frozen=True)
class BuildOutput:
    """Everything one build produced, ready for the artifact store.

    Attributes:
        module_name: the module's name (file stem).
        entries: the compiled exports in source order.
        target: ``{"triple": ..., "cpu": ..., "features": ...}``.
        timings: phase name -> seconds, in phase order.
        runtime_object: the ELF object defining the ``gradc_rt1_*`` runtime functions
            (docs/abi.md), which the loader links once per process.
        variant_targets: with several CPU variants (``CompilerOptions.cpus``), the target
            of each, in order (the first is ``target``); empty for one CPU.
    """

    module_name: str
    entries: tuple[CompiledEntry, ...]
    target: dict[str, str]
    timings: dict[str, float] = field(default_factory=dict)
    runtime_object: bytes = b""
    variant_targets: tuple[dict[str, str], ...] = ()


ABI_VERSION = 1

_LOC_FILE = re.compile(r'loc\("(?:[^"\\]|\\.)*":')


class _Timer:
    """Accumulates the wall time of each build phase, in seconds."""

    def __init__(self) -> None:
        self.phases: dict[str, float] = {}

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.phases[name] = self.phases.get(name, 0.0) + time.perf_counter() - start


def build_module(
    source_path: Path, options: CompilerOptions, grads: Sequence[str] = ()
) -> BuildOutput:
    """Compile every export of the module at ``source_path``.

    ``grads`` are ``gradc build --grad`` requests, ``"f"`` or ``"f:x,y"``: each adds the
    export ``d_f``, as ``d_f = gradc.grad(f, wrt=...)`` in the module would
    (``module_scan.requested_derivative``).

    Phases (each timed into ``BuildOutput.timings``): parse, infer, passes, lower,
    emit (LLVM optimisation and object emission).

    Raises:
        CompileError: the program is ill-typed or uses an unsupported construct; nothing
            has been written anywhere.
        OSError: the file cannot be read.
        ValueError: a ``grads`` request names no export or parameter of the module, or
            its ``d_f`` name is taken (the message says which).
    """
    # Imported here so that ``import gradc.compiler.driver`` stays cheap for tools that
    # only need the data classes above.
    from gradc.compiler.codegen.emit import emit_object, llvm_version, target_info
    from gradc.compiler.codegen.lower import lower_export
    from gradc.compiler.codegen.pywrapper import PYTHON_API_SYMBOLS, emit_wrapper
    from gradc.compiler.codegen.relocatable import RelocatableError, check_object
    from gradc.compiler.codegen.runtime import emit_runtime_object
    from gradc.compiler.diagnostics import InternalCompilerError
    from gradc.compiler.frontend.module_scan import requested_derivative, scan_module
    from gradc.compiler.frontend.source import SourceFile
    from gradc.compiler.infer import infer_module
    from gradc.compiler.ir.errors import PassError
    from gradc.compiler.ir.printer import print_function
    from gradc.compiler.ir.verifier import verify_module
    from gradc.passes.ad.api import add_derivative_export
    from gradc.passes.analysis.mutation import written_params
    from gradc.passes.registry import DEFAULT_PIPELINE
    from gradc.passes.registry import get as get_pass

    timer = _Timer()
    with timer.phase("parse"):
        source = SourceFile.read(source_path)
        info = scan_module(source, Path(source_path).stem)
        for spec in grads:
            info.derivatives.append(requested_derivative(info, spec))
    with timer.phase("infer"):
        module = infer_module(info)
    with timer.phase("ad"):
        for d in info.derivatives:
            try:
                add_derivative_export(
                    module,
                    d.name,
                    d.kind,
                    d.target,
                    d.wrt,
                    d.wrt_sequence,
                    source.loc(d.node),
                    d.activity,
                )
            except PassError as exc:
                raise info.error(exc.message, exc.loc) from None  # loc may be in an import
    with timer.phase("passes"):
        verify_module(module)
        for name in DEFAULT_PIPELINE:
            module = get_pass(name).run(module)
            verify_module(module)
    written = written_params(module)
    variant_options = options.variants()
    targets = [target_info(o) for o in variant_options]
    versions = {
        "gradc": gradc_version(),
        "abi": str(ABI_VERSION),
        "llvm": llvm_version(),
        "format": "1",
    }
    entries = []
    export_names = [e.name for e in info.exports] + [d.name for d in info.derivatives]
    for export_name in export_names:
        function = module.functions[export_name]
        reachable = _reachable(module, export_name)
        # Lines and columns enter the key (error records carry line numbers); the file
        # path does not, so "m.py" and "/abs/dir/m.py" build the same artifact.
        ir_text = _LOC_FILE.sub(
            "loc(", "\n".join(print_function(module.functions[n], locs=True) for n in reachable)
        )
        signature = Signature(
            tuple(
                Param(
                    p.name or f"arg{p.index}",
                    python_name(p.type),
                    writes=p.index in written[export_name],
                )
                for p in function.params
            ),
            python_name(function.return_type),
        )
        compiled = []
        for variant, target in zip(variant_options, targets, strict=True):
            components = {
                "ir": sha256_key(ir_text),
                "options": sha256_key(variant.key_fields()),
                "target": sha256_key(target),
                "versions": sha256_key(versions),
            }
            key = sha256_key(components)
            symbol = f"gradc_{export_name}_{key[:16]}"
            with timer.phase("lower"):
                llvm_module = lower_export(module, export_name, symbol, variant)
            with timer.phase("emit"):
                emitted = emit_object(llvm_module, variant)
                try:
                    check_object(emitted.object_code, export_name, emitted.llvm_text)
                except RelocatableError as exc:
                    raise InternalCompilerError(f"relocatable check failed: {exc}") from None
                wrapper = emit_wrapper(signature, symbol, variant)
                if wrapper:
                    allowed = frozenset(PYTHON_API_SYMBOLS) | {symbol}
                    check_object(wrapper, f"{export_name} (wrapper)", extra_symbols=allowed)
            compiled.append(
                CompiledEntry(
                    name=export_name,
                    signature=signature,
                    symbol=symbol,
                    object_code=emitted.object_code,
                    key=key,
                    key_components=components,
                    ir_text="\n".join(print_function(module.functions[n]) for n in reachable),
                    llvm_text=emitted.llvm_text,
                    asm_text=emitted.asm_text,
                    wrapper_object=wrapper,
                )
            )
        entries.append(replace(compiled[0], variants=tuple(compiled[1:])))
    # One runtime serves every variant (and every artifact of the process): with several
    # CPUs it is built for the generic CPU, so that it runs wherever any variant does.
    runtime_options = replace(options, cpu="generic", cpus=()) if options.cpus else options
    with timer.phase("emit"):
        runtime = emit_runtime_object(runtime_options).object_code
        check_object(runtime, "runtime")
    return BuildOutput(
        info.name,
        tuple(entries),
        targets[0],
        timer.phases,
        runtime,
        tuple(targets) if len(targets) > 1 else (),
    )


def _reachable(module: Module, root: str) -> list[str]:
    """``root`` and every function it calls transitively, ``root`` first, then sorted."""
    seen = {root}
    work = [root]
    while work:
        for inst in module.functions[work.pop()].instructions():
            if isinstance(inst, Call) and inst.callee not in seen:
                seen.add(inst.callee)
                work.append(inst.callee)
    return [root, *sorted(seen - {root})]


def gradc_version() -> str:
    """The installed gradc version string."""
    from gradc import __version__

    return __version__
