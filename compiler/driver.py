"""The compiler driver: source file in, compiled entries (and an artifact) out.

A build is an ordered list of stages over one :class:`~gradc.compiler.state.BuildState`
(``gradc.compiler.pipeline`` runs them, times each for ``gradc build --timings`` and turns
a crash into an internal-compiler-error diagnostic naming the stage, the user's function
and its line)::

    parse    read the module, scan its top level and imports, add --grad requests
    infer    typed IR of the exports and every function they reach
    arrays   whole-array operations into fused loop nests (the lower-arrays pass)
    ad       the derivative exports (gradc.grad, gradc.jvp, ...)
    passes   the default pass pipeline, verified
    keys     cache keys per export and CPU variant; cache lookups
    lower    LLVM IR of each export the cache does not hold (-j N: lowered and emitted
             in N processes, one task per export and CPU variant)
    emit     objects (and fast-call wrappers, the runtime) of what was lowered
    cuda     PTX and cubins of each kernel (--target cuda only)
    write    the artifact directory (build_artifact only)

:func:`build_module` runs the stages up to ``emit`` and returns a :class:`BuildOutput`
(``gradc build-all`` and tests write it themselves). :func:`build_artifact` is the entry
point of ``gradc build`` and of runtime mode: it reuses what the artifact directory
already holds, builds, writes and publishes to a remote cache.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gradc._dataclass import dataclass
from gradc.compiler import backend
from gradc.compiler.diagnostics import CudaBuildError
from gradc.compiler.frontend.module_scan import GradRequestError
from gradc.compiler.gc_pause import paused_gc
from gradc.compiler.ir.core import Module
from gradc.compiler.options import CompilerOptions
from gradc.compiler.pipeline import Stage, StageState, run_stages
from gradc.compiler.results import BuildOutput, CachedEntry, CompiledEntry, Param, Signature
from gradc.compiler.state import BuildState
from gradc.compiler.warm_pool import warm_pool_for

if TYPE_CHECKING:
    from gradc.artifacts.manifest import Manifest
    from gradc.artifacts.staging import BlobStage
    from gradc.artifacts.store import ReusableEntry
    from gradc.compiler.frontend.module_scan import ModuleInfo
    from gradc.compiler.frontend.source import SourceFile

__all__ = [
    "STAGES",
    "ArtifactBuild",
    "BuildOutput",
    "CachedEntry",
    "CompileForbiddenError",
    "CompiledEntry",
    "Param",
    "RemoteCacheLike",
    "Signature",
    "WriteError",
    "add_derivative_exports",
    "build_artifact",
    "build_module",
]


class CompileForbiddenError(RuntimeError):
    """Compiling was forbidden (``GRADC_NO_COMPILE=1``) and a build was asked for."""


class WriteError(OSError):
    """The artifact directory could not be written (the previous artifact stays intact)."""


def add_derivative_exports(
    module: Module,
    info: ModuleInfo,
    source: SourceFile,
    roots: Container[str] | None = None,
    tape_budget: int = 0,
) -> None:
    """Add the derivative exports ``info`` (a scanned module) declares to ``module``, its
    inferred IR, in declaration order (only those differentiating, at the root, an export
    in ``roots``, when given). ``tape_budget``: ``CompilerOptions.tape_budget``.

    Raises:
        CompileError: a declaration AD cannot carry out, at its (or its import's) line.
    """
    from gradc.compiler.ir.errors import PassError
    from gradc.compiler.kernel_derivatives import kernel_derivative_names
    from gradc.passes.ad.api import add_derivative_export
    from gradc.passes.ad.nested import content_named
    from gradc.passes.ad.taping import TapeOptions

    declared = {d.name: d for d in info.derivatives}
    kernels = kernel_derivative_names(info)  # add_kernel_derivatives makes those
    for d in info.derivatives:
        if d.name in kernels:
            continue
        root = d.target
        while root in declared:
            root = declared[root].target
        if roots is not None and root not in roots:
            continue
        try:
            # a derivative of a derivative differentiates a copy named by its content
            target = content_named(module, d.target).name if d.target in declared else d.target
            add_derivative_export(
                module,
                d.name,
                d.kind,
                target,
                d.wrt,
                d.wrt_sequence,
                source.loc(d.node),
                d.activity,
                has_aux=d.has_aux,
                tape=TapeOptions(budget=tape_budget),
                width=d.width,
            )
        except PassError as exc:
            raise info.error(exc.message, exc.loc) from None  # loc may be in an import


def parse(state: BuildState) -> None:
    """The ``parse`` stage: the module's source, its scan, and the ``--grad`` requests."""
    from gradc.compiler.frontend.module_scan import requested_derivative, scan_module
    from gradc.compiler.frontend.overloads import expand_derivative
    from gradc.compiler.sources import read_source

    state.data, state.source = read_source(state.source_path, state.source_text, state.prelude)
    state.info = scan_module(state.source, Path(state.source_path).stem)
    for spec in state.grads:
        derivative = requested_derivative(state.info, spec)
        target = spec.partition(":")[0].strip()
        state.info.derivatives.extend(expand_derivative(state.info, derivative, target))


def infer(state: BuildState) -> None:
    """The ``infer`` stage: typed IR of every export and what it calls (on failure, the
    first error of every export: ``gradc.compiler.infer.all_errors``). Exports that call
    a derivative declaration are typed in the ``ad`` stage, once it exists."""
    import copy

    from gradc.compiler.frontend.derivatives import derivative_callers
    from gradc.compiler.infer.all_errors import infer_reporting_all

    callers = derivative_callers(state.info)
    first = copy.copy(state.info)
    first.exports = [e for e in state.info.exports if e.name not in callers]
    state.module = infer_reporting_all(first)
    if state.options.shuffle_threads:
        from gradc.compiler.infer.kernels import shuffle_grid_loops

        shuffle_grid_loops(state.module, [e.name for e in first.exports if e.kernel])


def lower_arrays(state: BuildState) -> None:
    """The ``arrays`` stage: the ``lower-arrays`` pass, so that AD sees loops of scalar
    operations (passes/arrays/; docs/ad.md). A module without whole-array operations
    (``LOWERED_TO_LOOPS``) skips it, nor imports its rules."""
    functions = state.module.functions.values()
    if not any(inst.LOWERED_TO_LOOPS for fn in functions for inst in fn.instructions()):
        return
    from gradc.passes.arrays.lower import run

    state.module = run(state.module)


def differentiate(state: BuildState) -> None:
    """The ``ad`` stage: the derivative exports the module declares or ``--grad`` asks for.

    Exports that call a derivative declaration (``df(x)`` in a Newton step) are typed
    here, once the derivatives they call exist; derivatives of those exports come last.
    A module without derivatives skips it (nor imports AD).
    """
    if not state.info.derivatives:
        return
    from gradc.compiler.frontend.derivatives import derivative_callers
    from gradc.compiler.infer import infer_module
    from gradc.compiler.kernel_derivatives import add_kernel_derivatives
    from gradc.passes.arrays.lower import run as lower_array_ops

    module, info = state.module, state.info
    add_kernel_derivatives(module, info, state.source, state.options.shuffle_threads)
    _register_custom_rules(module, info)
    _register_checkpoints(module, info)
    callers = set(derivative_callers(info))
    first = {e.name for e in info.exports} - callers
    budget = state.options.tape_budget
    add_derivative_exports(module, info, state.source, first, budget)
    if not callers:
        return
    made = {
        d.name: module.functions[d.name] for d in info.derivatives if d.name in module.functions
    }
    typed = lower_array_ops(infer_module(info, exports=sorted(callers), derivatives=made))
    for fn in typed.functions.values():
        if fn.name not in module.functions:  # helpers both reach are typed alike
            module.add(fn)
    add_derivative_exports(module, info, state.source, callers, budget)


def _register_custom_rules(module: Module, info: ModuleInfo) -> None:
    """Tell AD the rule functions of each specialisation of a ``@gradc.custom_*`` helper
    or export of the program's modules (the main one and those it imports; inference
    specialised them beside it: ``compiler/infer/specialize.py``)."""
    from gradc.compiler.infer import symbol_for
    from gradc.compiler.ir.types import TupleType
    from gradc.passes.ad.custom import Custom, register

    infos = list(info.loader.modules.values()) if info.loader is not None else [info]
    rules = [
        (m.symbol_prefix + n, m.symbol_prefix, r) for m in infos for n, r in m.custom_rules.items()
    ]
    for name, prefix, rule in rules:
        for fn in list(module.functions.values()):
            types = tuple(p.type for p in fn.params)
            if fn.name != (name if fn.exported else symbol_for(name, types)):
                continue
            names: tuple[str, ...]
            if rule.kind == "jvp":
                jvp = prefix + rule.rules[0]
                names = (symbol_for(jvp, (TupleType(types), TupleType(types))),)
            else:
                fwd = symbol_for(prefix + rule.rules[0], types)
                t = module.functions[fwd].return_type
                if not (isinstance(t, TupleType) and len(t.elements) == 2):
                    raise info.error(
                        f"the custom rule '{rule.rules[0]}' must return (value, residuals)",
                        module.functions[fwd].loc,
                    )
                bwd = prefix + rule.rules[1]
                names = (fwd, symbol_for(bwd, (t.elements[1], t.elements[0])))
            register(module, fn.name, Custom(rule.kind, names))


def _register_checkpoints(module: Module, info: ModuleInfo) -> None:
    """Tell AD which functions are specialisations of a ``@gradc.checkpoint`` helper of
    the program's modules (the main one and those it imports)."""
    from gradc.compiler.frontend.checkpoints import scan_checkpoints
    from gradc.compiler.infer import symbol_for
    from gradc.passes.ad.checkpoint import register

    infos = list(info.loader.modules.values()) if info.loader is not None else [info]
    names = {m.symbol_prefix + name for m in infos for name in scan_checkpoints(m)}
    for fn in list(module.functions.values()):
        if not fn.exported and any(
            fn.name == symbol_for(name, tuple(p.type for p in fn.params)) for name in names
        ):
            register(module, fn.name)


def run_passes(state: BuildState) -> None:
    """The ``passes`` stage: the default pass pipeline (``gradc.passes.registry``).

    The IR is verified as AD leaves it (when the ``ad`` stage made derivatives) and as the
    pipeline leaves it; between passes only with -v (``options.verbose``), which stops
    right after a pass that broke it: each verification of a large gradient costs as much
    as a pass (N = 400 ifs: 0.3 s; a module of 32 loop exports: half of this stage, all of
    it serial in a ``-j N`` build).
    """
    from gradc.compiler.ir.verifier import verify_module
    from gradc.passes.registry import DEFAULT_PIPELINE
    from gradc.passes.registry import get as get_pass

    if state.info.derivatives or state.options.verbose:
        state.step = "verifying the IR as AD left it"
        verify_module(state.module)
    for i, name in enumerate(DEFAULT_PIPELINE):
        state.step = f"pass {name!r}"
        state.module = get_pass(name).run(state.module)
        if state.options.verbose or i == len(DEFAULT_PIPELINE) - 1:
            state.step = f"verifying the IR after pass {name!r}"
            verify_module(state.module)


def build_cuda(state: BuildState) -> None:
    """The ``cuda`` stage (:func:`gradc.compiler.cuda_backend.build_cuda`, imported only
    for a build that asks for CUDA archs: a CPU build does not load it)."""
    from gradc.compiler.cuda_backend import build_cuda as build

    build(state)


def needs_cuda(state: BuildState) -> bool:
    """CUDA archs were asked for."""
    return bool(state.options.cuda_archs)


#: The stages of :func:`build_module`, in order.
STAGES: tuple[Stage[BuildState], ...] = (
    Stage("parse", parse, reports=(OSError, UnicodeDecodeError, GradRequestError)),
    Stage("infer", infer),
    Stage("arrays", lower_arrays),
    Stage("ad", differentiate),
    Stage("passes", run_passes),
    Stage("keys", backend.plan_keys),
    Stage("lower", backend.lower, needed=backend.needs_lowering),
    Stage("emit", backend.emit, needed=backend.needs_emission),
    Stage("cuda", build_cuda, needed=needs_cuda, reports=(CudaBuildError,)),
)


def build_module(
    source_path: Path,
    options: CompilerOptions,
    grads: Sequence[str] = (),
    *,
    cache: Mapping[str, CachedEntry] | None = None,
    allow_compile: bool = True,
    source_text: bytes | None = None,
    prelude: str = "",
    progress: Callable[[str], None] | None = None,
    stage: BlobStage | None = None,
) -> BuildOutput:
    """Compile every export of the module at ``source_path``: run :data:`STAGES`.

    Each stage is timed into ``BuildOutput.timings`` (in stage order; ``lower`` and
    ``emit`` only when something was compiled). An export whose key ``cache`` holds is
    not lowered: the cached object is reused.

    Args:
        source_path: the module (read, never imported).
        options: the build's options (the fields of ``key_fields`` enter the keys); with
            several CPUs (``options.cpus``) every export is compiled once per variant,
            each with its own key.
        grads: ``gradc build --grad`` requests, ``"f"`` or ``"f:x,y"``: each adds the
            export ``d_f``, as ``d_f = gradc.grad(f, wrt=...)`` in the module would
            (``module_scan.requested_derivative``).
        cache: cache key -> verified blobs of a previous build (see :class:`CachedEntry`).
        allow_compile: False refuses at once with :class:`CompileForbiddenError` (the
            caller read ``GRADC_NO_COMPILE``; nothing below ``cli`` reads the environment).
        source_text: the module's bytes when it is code without a file (a REPL,
            ``python -c``, a notebook cell): ``source_path`` is then only its name in
            diagnostics (``<stdin>``, ``Cell In[3]``), and its imports of user modules are
            resolved in the working directory.
        prelude: import statements the module relies on without making them itself (the
            imports of earlier notebook cells); read before the module's first statement
            but placed after its last line, so that its line numbers stay its own.
        progress: called with each stage's name as it starts and with what long stages
            are doing (``"emit 3/32"``): ``gradc build``'s progress bar.
        stage: where a build in ``-j N`` processes writes the blobs of the artifact it
            will be written as, while it compiles (:func:`build_artifact`; the caller
            discards what is left of it).

    Raises:
        CompileForbiddenError: ``allow_compile`` is False.
        CompileError: the program is ill-typed or uses an unsupported construct; nothing
            has been written anywhere.
        OSError: the file cannot be read.
        UnicodeDecodeError: the file is not UTF-8.
        GradRequestError: a ``grads`` request names no export or parameter of the module, or
            its ``d_f`` name is taken (the message says which).
        InternalCompilerError: a bug in gradc, naming the stage, function and line.
    """
    if not allow_compile:
        raise _forbidden(source_path)
    state = BuildState(
        source_path=source_path,
        options=options,
        grads=grads,
        # an empty mapping may still look up remotely
        cache=cache if cache is not None else {},
        source_text=source_text,
        prelude=prelude,
        progress=progress,
        stage=stage,
    )
    with paused_gc():  # a sixth of a large build's CPU time (compiler/gc_pause.py)
        # -j workers forked now import the code generator during the front end
        state.pool = warm_pool_for(options.jobs, source_path, source_text, len(state.cache))
        try:
            run_stages(STAGES, state)
        finally:
            if state.pool is not None:
                state.pool.close()
    return backend.build_output(state)


def _forbidden(source_path: Path) -> CompileForbiddenError:
    return CompileForbiddenError(
        f"compiling {source_path} is forbidden (GRADC_NO_COMPILE=1): build its artifact "
        "beforehand with `gradc build`, or unset GRADC_NO_COMPILE"
    )


class RemoteCacheLike(Protocol):
    """A shared cache as :func:`build_artifact` uses it (``gradc.artifacts.remote``'s
    ``RemoteCache`` fits)."""

    def layered(self, local: Mapping[str, ReusableEntry]) -> Mapping[str, ReusableEntry]:
        """A cache mapping: ``local`` first, then the shared cache."""
        ...

    def publish_build(self, build: BuildOutput) -> None:
        """Publish what ``build`` compiled (not what came from the shared cache)."""
        ...


@dataclass(frozen=True)
class ArtifactBuild:
    """What :func:`build_artifact` did.

    Attributes:
        output: the build.
        manifest: the manifest now in the artifact directory.
        previous: the manifest that was there before, None if none (``--explain``).
        timings: stage name -> seconds, ``write`` included, in stage order.
    """

    output: BuildOutput
    manifest: Manifest
    previous: Manifest | None
    timings: dict[str, float]


@dataclass(kw_only=True, eq=False)
class _WriteState(StageState):
    out_dir: Path
    output: BuildOutput
    on_damage: Callable[[str], None] | None
    texts: bool = True
    staged: BlobStage | None = None
    manifest: Manifest = field(init=False, repr=False)


def _write(state: _WriteState) -> None:
    """The ``write`` stage: the artifact directory, atomically (``write_artifact``)."""
    from gradc.artifacts.store import write_artifact

    try:
        state.manifest = write_artifact(
            state.out_dir,
            state.output,
            on_damage=state.on_damage,
            texts=state.texts,
            staged=state.staged,
        )
    except OSError as exc:
        raise WriteError(f"cannot write {state.out_dir}: {exc}") from exc


#: The stage :func:`build_artifact` runs after :data:`STAGES`.
WRITE = Stage("write", _write, reports=(WriteError,))


def build_artifact(
    source_path: Path,
    out_dir: Path,
    options: CompilerOptions,
    grads: Sequence[str] = (),
    *,
    allow_compile: bool = True,
    remote: RemoteCacheLike | None = None,
    warn: Callable[[str], None] | None = None,
    on_damage: Callable[[str], None] | None = None,
    source_text: bytes | None = None,
    prelude: str = "",
    texts: bool = True,
    progress: Callable[[str], None] | None = None,
) -> ArtifactBuild:
    """Build the module at ``source_path`` into the artifact directory ``out_dir``: the
    entry point of ``gradc build`` and of runtime mode.

    The intact entries of the artifact already in ``out_dir`` are reused by key (then
    those of ``remote``); :func:`build_module` builds; the ``write`` stage writes
    atomically (nothing when nothing changed); then what was compiled is published to
    ``remote``.

    Args:
        source_path, options, grads, allow_compile, source_text, prelude, progress: as
            for :func:`build_module` (``progress`` also hears ``"write"``).
        out_dir: the artifact directory (created with its parents).
        remote: a shared cache to download from and publish to.
        warn: called with a message per entry of the previous artifact that cannot be
            reused (a missing or damaged blob ...); default a ``RuntimeWarning``.
        on_damage: called when the artifact found while writing is damaged (default an
            ``ArtifactWarning``; see ``gradc.artifacts.store.write_artifact``).
        texts: store the IR, LLVM and assembly texts (for ``gradc inspect``).

    Raises:
        what :func:`build_module` raises (nothing is written then), and
        WriteError: ``out_dir`` cannot be written (the previous artifact stays intact).
    """
    from gradc.artifacts.store import previous_build

    if not allow_compile:
        raise _forbidden(source_path)
    previous = previous_build(out_dir)
    for problem in previous.problems:
        (warn or _runtime_warning)(f"{problem}; rebuilding it")
    cache = remote.layered(previous.reusable) if remote is not None else previous.reusable
    stage = _blob_stage(out_dir, options, texts)
    try:
        output = build_module(
            source_path, options, grads, cache=cache, source_text=source_text, prelude=prelude,
            progress=progress, stage=stage,
        )  # fmt: skip
        state = _WriteState(
            out_dir=out_dir,
            output=output,
            on_damage=on_damage,
            texts=texts,
            staged=stage,
            timings=dict(output.timings),
            progress=progress,
        )
        run_stages((WRITE,), state)
    finally:
        if stage is not None:
            stage.discard()  # what the write did not take; all of it if the build failed
    if remote is not None:
        remote.publish_build(output)  # after the local artifact: its failures are warnings
    return ArtifactBuild(output, state.manifest, previous.manifest, state.timings)


def _blob_stage(out_dir: Path, options: CompilerOptions, texts: bool) -> BlobStage | None:
    """Where a ``-j N`` build writes its blobs while it compiles (``gradc.artifacts.
    staging``: the file creation then runs beside the other processes' tasks, not after
    the last); None for a ``-j 1`` build, which has nothing to run it beside."""
    if options.jobs < 2:
        return None
    from gradc.artifacts.staging import BlobStage

    return BlobStage(out_dir, texts)


def _runtime_warning(message: str) -> None:
    import warnings

    warnings.warn(f"gradc: {message}", RuntimeWarning, stacklevel=3)
