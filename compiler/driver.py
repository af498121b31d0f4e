"""The compiler driver: source file in, compiled entries out (no files written here).

``cli`` calls :func:`build_module` and hands the result to ``gradc.artifacts.store``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gradc.compiler.options import CompilerOptions


@dataclass(frozen=True)
class Param:
    """One parameter of an exported function: its name and gradc type string (``"f64"``)."""

    name: str
    type: str


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


@dataclass(frozen=True)
class BuildOutput:
    """Everything one build produced, ready for the artifact store.

    Attributes:
        module_name: the module's name (file stem).
        entries: the compiled exports in source order.
        target: ``{"triple": ..., "cpu": ..., "features": ...}``.
        timings: phase name -> seconds, in phase order.
    """

    module_name: str
    entries: tuple[CompiledEntry, ...]
    target: dict[str, str]
    timings: dict[str, float] = field(default_factory=dict)


def build_module(source_path: Path, options: CompilerOptions) -> BuildOutput:
    """Compile every export of the module at ``source_path``.

    Raises:
        CompileError: the program is ill-typed or uses an unsupported construct.
        OSError: the file cannot be read.
    """
    raise NotImplementedError("driver is being written")
