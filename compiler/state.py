"""The state of one build, as the driver's stages fill it in (``gradc.compiler.driver``).

Each field after the inputs is set by one stage and read by the later ones::

    parse   data, source, info           the module's bytes, syntax tree, scanned module
    infer   module                       typed IR of the exports and their callees
    ad      module                       + the derivative exports
    passes  module                       after the default pass pipeline, verified
    keys    printed, callgraph, exports, each export's keys, signature and raise sites;
            runtime_key, runtime_object  a job per export and CPU variant, with its cached
                                         object if the cache holds its key
    lower   Job.llvm_module              LLVM IR of each job the cache did not hold (or
            lower_in_workers             True: lowered and emitted in -j N processes,
                                         Job.object_code ... set here, but of failed tasks)
    emit    Job.object_code ...,         objects of those jobs, and the runtime object
            runtime_object               if the cache did not hold it

A field a stage has not set yet is absent (reading it raises ``AttributeError``).

``pool`` (``gradc.compiler.warm_pool``) is set by ``build_module`` before the stages: -j
workers started with the build, closed after its last stage. ``stage``
(``gradc.artifacts.staging``): where a ``-j N`` build of ``build_artifact`` writes blobs
ahead of its ``write`` stage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gradc._dataclass import dataclass
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.loc import Loc
from gradc.compiler.options import CompilerOptions
from gradc.compiler.pipeline import StageState
from gradc.compiler.results import CachedEntry, CudaKernel, Signature

if TYPE_CHECKING:
    from gradc.artifacts.staging import BlobStage
    from gradc.compiler.frontend.module_scan import ModuleInfo
    from gradc.compiler.frontend.source import SourceFile
    from gradc.compiler.warm_pool import WarmPool


@dataclass(eq=False)
class Job:
    """One export compiled for one CPU variant.

    Attributes:
        export: the export's name.
        options: the variant's options (``CompilerOptions.variants()``).
        target: the variant's target (triple, cpu, features).
        components: the key's components (``gradc.compiler.keys``).
        key: the cache key.
        symbol: the C-ABI entry symbol.
        cached: the cache's verified blobs for ``key``; None when it must be compiled.
        llvm_module: the lowered ``llvmlite.ir.Module`` (lower stage; dropped by emit).
        object_code, wrapper_object, llvm_text, asm_text: what emit produced (or the cache
            held: ``asm_text`` is then ``""``, builds store no assembly).
    """

    export: str
    options: CompilerOptions
    target: Mapping[str, str]
    components: dict[str, str | int | bool]
    key: str
    symbol: str
    cached: CachedEntry | None
    llvm_module: Any = None
    object_code: bytes = b""
    wrapper_object: bytes = b""
    llvm_text: str = ""
    asm_text: str = ""


@dataclass(eq=False)
class ExportPlan:
    """One export of the module: what every variant of it shares, and its jobs.

    Attributes:
        name: the export's name (its IR function's name).
        signature: its Python-visible signature.
        reached: the export and the functions it calls transitively (callgraph order).
        sites: the raise-site table (module-relative file, line, column).
        jobs: one per CPU variant, in variant order.
        options: (``CompilerOptions`` field, value) this export overrides
            (``@gradc.export(fastmath=True)``; a derivative: its primal's).
        dispatch: the name the loader dispatches on when the export is one of several
            signatures (``f`` for ``f.f64``), else ``""``.
    """

    name: str
    signature: Signature
    reached: list[str]
    sites: tuple[tuple[str, int, int], ...]
    jobs: list[Job] = field(default_factory=list)
    options: tuple[tuple[str, bool], ...] = ()
    dispatch: str = ""


@dataclass(kw_only=True, eq=False)
class BuildState(StageState):
    """Inputs of ``build_module`` and what its stages made of them (module docstring)."""

    source_path: Path
    options: CompilerOptions
    grads: Sequence[str] = ()
    cache: Mapping[str, CachedEntry]
    source_text: bytes | None = None
    prelude: str = ""

    data: bytes = field(init=False, repr=False)
    source: SourceFile = field(init=False, repr=False)
    info: ModuleInfo = field(init=False, repr=False)
    module: Module = field(init=False, repr=False)
    printed: dict[str, str] = field(init=False, repr=False)
    callgraph: dict[str, tuple[str, ...]] = field(init=False, repr=False)
    hashes: dict[str, str] = field(init=False, repr=False)
    targets: list[dict[str, str]] = field(init=False, repr=False)
    exports: list[ExportPlan] = field(init=False, repr=False)
    runtime_options: CompilerOptions = field(init=False, repr=False)
    runtime_key: str = field(init=False, repr=False)
    runtime_object: bytes | None = field(init=False, repr=False)
    cuda: tuple[CudaKernel, ...] = field(default=(), repr=False)
    lower_in_workers: bool = field(default=False, repr=False)
    pool: WarmPool | None = field(default=None, repr=False)
    stage: BlobStage | None = field(default=None, repr=False)

    def source_line(self, loc: Loc) -> str | None:
        """The text of ``loc``'s line: from the module's own text (which may have no file:
        a notebook cell, ``<stdin>``) when ``loc`` is in it, else from its file."""
        if "source" in vars(self) and loc.file == self.source.path:
            return self.source.line(loc.line)
        return super().source_line(loc)

    def pending(self) -> list[Job]:
        """The jobs the cache did not hold, in export then variant order."""
        return [job for plan in self.exports for job in plan.jobs if job.cached is None]
