"""A build split into tasks that other processes (Dask workers) run: ``gradc build
DIR --executor ...`` (``gradc.cli.distributed``).

Per module, one *front-end task* runs the stages up to ``keys`` (and plans the CUDA
variants) and returns a :class:`ModulePlan`: the module's :class:`BuildOutput` with an
empty object wherever something must be compiled, and one :class:`EmitTask` per
(export, CPU variant), per kernel (its PTX and cubins) and for the runtime object. Each
emit task ships *canonical IR text*: the functions the entry reaches, printed as the
cache key hashes them (with their source locations, which no object depends on, so
that a compile error raised while lowering names its line). The worker that runs it

1. compares its toolchain (gradc, llvmlite, LLVM, runtime ABI; ptxas for CUDA) with the
   client's and with the ``versions.*`` / ``cuda.ptxas`` components the key was
   computed with, and refuses with :class:`ToolchainMismatchError` when any differs;
2. parses the text and checks that its Merkle hash is the key's ``ir`` component (the
   text is what the key describes);
3. lowers and emits exactly as the local ``lower``/``emit``/``cuda`` stages do (the same
   functions), under the same stage runner (a crash is an internal compiler error
   naming the stage, function and line).

:func:`assemble` puts the results into the plan's output: byte-for-byte the
``BuildOutput`` a local :func:`~gradc.compiler.driver.build_module` returns (tested in
tests/distributed/).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gradc.compiler import backend, cuda_backend
from gradc.compiler.diagnostics import CudaBuildError
from gradc.compiler.gc_pause import paused_gc
from gradc.compiler.ir.core import Function, Module
from gradc.compiler.options import CompilerOptions
from gradc.compiler.pipeline import Stage, StageState, run_stages
from gradc.compiler.results import BuildOutput, CachedEntry, CompiledEntry, Signature
from gradc.compiler.state import BuildState, Job

__all__ = [
    "EmitTask",
    "Emitted",
    "ModulePlan",
    "ToolchainMismatchError",
    "assemble",
    "emit_task",
    "plan_module",
    "toolchain_identity",
]


class ToolchainMismatchError(RuntimeError):
    """A worker's toolchain is not the one a task's keys were computed with: it refuses
    to compile (its objects would carry keys that do not describe them)."""


#: A function's name hints: its values' (parameters, then instructions block by block;
#: None where it has none), then its blocks' labels.
Hints = tuple[tuple[str | None, ...], tuple[str, ...]]


def name_hints(fn: Function) -> Hints:
    """``fn``'s value and block name hints, in the order the printer and parser visit
    them. The printer makes them unique (``%r``, ``%r.1``) and the parser keeps what it
    read, but the lowering names LLVM values after the hints, and the LLVM text is part
    of the artifact: a worker restores them (:func:`restore_hints`) so that its text is
    the local build's. No object depends on them."""
    values = (*(p.name for p in fn.params), *(i.name for i in fn.instructions()))
    return values, tuple(b.label for b in fn.blocks)


def restore_hints(fn: Function, hints: Hints) -> None:
    """Give ``fn`` (parsed from the text of a function with these ``hints``) its hints.

    Raises:
        ValueError: ``hints`` has another number of values or blocks than ``fn``.
    """
    values, labels = hints
    mine = [*fn.params, *fn.instructions()]
    if len(mine) != len(values) or len(fn.blocks) != len(labels):
        raise ValueError(f"the name hints of @{fn.name} do not fit its text")
    for value, name in zip(mine, values, strict=True):
        value.name = name
    for block, label in zip(fn.blocks, labels, strict=True):
        block.label = label


@dataclass(frozen=True)
class EmitTask:
    """One object (or one kernel's PTX and cubins, or the runtime) to compile on a worker.

    Attributes:
        kind: ``"cpu"`` (an export's CPU variant), ``"cuda"`` (a kernel) or ``"runtime"``.
        module: the module's source path (for messages).
        export: the export's (kernel's) name; ``""`` for the runtime.
        variant: the CPU variant's index (``CompilerOptions.variants()``), else 0.
        ir_text: ``print_module(..., locs=True)`` of the functions the entry reaches.
        key: the cache key (of the PTX for ``"cuda"``); components: its components.
        symbol: the entry symbol; signature: the entry's signature.
        options: the variant's options; target: its CPU target (empty for CUDA).
        toolchain: the client's :func:`toolchain_identity`.
        step: what the local ``lower`` stage would say it does (``export 'f'``).
        hints: per function of ``ir_text``, its values' and blocks' name hints as the
            front end gave them (:func:`name_hints`).
        kernel: the kernel's plan (``"cuda"`` only).
    """

    kind: str
    module: str
    export: str
    variant: int
    ir_text: str
    key: str
    components: Mapping[str, str | int | bool]
    symbol: str
    signature: Signature | None
    options: CompilerOptions
    target: Mapping[str, str]
    toolchain: Mapping[str, str]
    step: str = ""
    kernel: cuda_backend.KernelPlan | None = None
    hints: Mapping[str, Hints] = field(default_factory=dict)


@dataclass(frozen=True)
class Emitted:
    """What an :class:`EmitTask` produced: ``codes`` is (object, wrapper) for a CPU
    variant, (PTX, cubin per arch) for a kernel, (object,) for the runtime; ``timings``: the
    worker's stage times (``read``, ``lower``, ``emit``, ``cuda``) in seconds."""

    codes: tuple[bytes, ...]
    llvm_text: str = ""
    asm_text: str = ""
    timings: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ModulePlan:
    """A front-end task's result: the module's output, less what ``tasks`` compile.

    Attributes:
        output: the ``BuildOutput``; empty objects where a task fills them in.
        tasks: the emit tasks, in the order :func:`assemble` expects their results.
    """

    output: BuildOutput
    tasks: tuple[EmitTask, ...]


def toolchain_identity(cuda: bool = False, cuda_home: str = "") -> dict[str, str]:
    """This process's toolchain: gradc, llvmlite, LLVM and runtime ABI versions, and with
    ``cuda`` the ``ptxas --version`` lines (of ``cuda_home``'s toolchain, else PATH's).

    Raises:
        CudaBuildError: ``cuda`` and no CUDA toolchain is found.
    """
    from gradc.artifacts.abi import RUNTIME_ABI
    from gradc.artifacts.toolchain import host_producer

    p = host_producer()
    out = {"gradc": p.gradc, "llvmlite": p.llvmlite, "llvm": p.llvm, "runtime": RUNTIME_ABI}
    if cuda:
        from gradc.compiler.codegen.ptx import find_toolchain

        out["ptxas"] = find_toolchain(cuda_home or None).ptxas_version
    return out


def check_toolchain(
    expected: Mapping[str, str], components: Mapping[str, object], what: str, cuda_home: str = ""
) -> None:
    """Refuse to compile ``what`` unless this process's toolchain is ``expected`` (the
    client's) and agrees with the key's ``versions.gradc``, ``versions.llvm``,
    ``versions.runtime`` and ``cuda.ptxas`` components (those present).

    Raises:
        ToolchainMismatchError: naming each field that differs, both values.
    """
    mine = toolchain_identity("ptxas" in expected, cuda_home)
    wanted = dict(expected)
    for field_name, component in (
        ("gradc", "versions.gradc"),
        ("llvm", "versions.llvm"),
        ("runtime", "versions.runtime"),
        ("ptxas", "cuda.ptxas"),
    ):
        if component in components and str(components[component]) != wanted.get(field_name):
            wanted[f"{field_name} (key)"] = str(components[component])
            mine[f"{field_name} (key)"] = mine.get(field_name, "")
    differ = sorted(k for k in wanted.keys() | mine.keys() if wanted.get(k) != mine.get(k))
    if differ:
        detail = "; ".join(
            f"{k}: worker {mine.get(k, '(none)')!r}, expected {wanted.get(k, '(none)')!r}"
            for k in differ
        )
        raise ToolchainMismatchError(
            f"this worker's toolchain differs from the one the keys were computed with "
            f"({detail}): refusing to compile {what}"
        )


@dataclass(kw_only=True, eq=False)
class _PlanState(BuildState):
    kernels: list[cuda_backend.KernelPlan] = field(default_factory=list)


def _plan_cuda(state: _PlanState) -> None:
    """The ``cuda`` stage of a front-end task: the kernels' keys, nothing compiled."""
    state.kernels, _ = cuda_backend.plan_kernels(state)


def _front_end() -> tuple[Stage[Any], ...]:
    from gradc.compiler.driver import STAGES

    planned = tuple(s for s in STAGES if s.name not in ("lower", "emit", "cuda"))
    cuda = Stage("cuda", _plan_cuda, needed=cuda_backend.needs_cuda, reports=(CudaBuildError,))
    return (*planned, cuda)


def plan_module(
    source_path: Path,
    options: CompilerOptions,
    toolchain: Mapping[str, str],
    *,
    grads: Sequence[str] = (),
    cache: Mapping[str, CachedEntry] | None = None,
) -> ModulePlan:
    """The front-end task of one module: the stages up to ``keys`` (and the kernels'
    keys), then an :class:`EmitTask` per entry ``cache`` does not hold.

    Args:
        source_path, options, grads, cache: as for ``driver.build_module`` (the source
            is read here, so a worker reads it at the client's path).
        toolchain: the client's :func:`toolchain_identity`.

    Raises:
        ToolchainMismatchError: this process's toolchain is not ``toolchain``.
        what ``driver.build_module`` raises for the stages up to ``keys``.
    """
    from gradc.artifacts.keys import sha256_key

    check_toolchain(toolchain, {}, f"the front end of {source_path}", options.cuda_home)
    state = _PlanState(
        source_path=source_path,
        options=options,
        grads=grads,
        cache=cache if cache is not None else {},
    )
    with paused_gc():  # as build_module (compiler/gc_pause.py)
        run_stages(_front_end(), state)
    module = str(source_path)
    tasks = []
    for plan in state.exports:
        text, hints = _ir_text(state, plan.reached)
        for i, job in enumerate(plan.jobs):
            if job.cached is None:
                step = backend._step(plan, job)
                tasks.append(
                    _cpu_task(module, job, i, (text, hints), plan.signature, toolchain, step)
                )
    kernels = []
    for k in state.kernels:
        found = [state.cache.get(sha256_key(c)) for c in k.components]
        if all(f is not None for f in found):
            kernels.append(k.kernel([f.object_code for f in found if f is not None]))
            continue
        kernels.append(k.kernel([b""] * len(k.components)))
        tasks.append(_kernel_task(state, k, toolchain))
    state.cuda = tuple(kernels)
    if state.runtime_object is None:
        tasks.append(
            EmitTask("runtime", module, "", 0, "", state.runtime_key, {}, "", None,
                     state.runtime_options, {}, toolchain, "runtime")
        )  # fmt: skip
        state.runtime_object = b""
    return ModulePlan(backend.build_output(state), tuple(tasks))


def _cpu_task(
    module: str,
    job: Job,
    variant: int,
    ir: tuple[str, dict[str, Hints]],
    signature: Signature,
    toolchain: Mapping[str, str],
    step: str,
) -> EmitTask:
    return EmitTask(
        "cpu", module, job.export, variant, ir[0], job.key, dict(job.components), job.symbol,
        signature, job.options, dict(job.target), dict(toolchain), step, hints=ir[1],
    )  # fmt: skip


def _kernel_task(
    state: BuildState, k: cuda_backend.KernelPlan, toolchain: Mapping[str, str]
) -> EmitTask:
    from gradc.artifacts.keys import sha256_key
    from gradc.passes.analysis.callgraph import reachable

    text, hints = _ir_text(state, reachable(state.module, k.thread))
    step = f"kernel {k.name!r} for CUDA"
    return EmitTask(
        "cuda", str(state.source_path), k.name, 0, text, sha256_key(k.components[-1]),
        k.components[-1], k.symbol, k.signature, state.options, {}, dict(toolchain), step, k,
        hints,
    )  # fmt: skip


def _ir_text(state: BuildState, names: Sequence[str]) -> tuple[str, dict[str, Hints]]:
    """The module's functions ``names`` (in module order), printed with locations, and
    their name hints."""
    from gradc.compiler.ir.printer import print_module

    wanted = set(names)
    fns = {n: f for n, f in state.module.functions.items() if n in wanted}
    text = print_module(Module(state.module.name, fns, state.module.source_file), locs=True)
    return text, {n: name_hints(f) for n, f in fns.items()}


@dataclass(kw_only=True, eq=False)
class _EmitState(StageState):
    task: EmitTask
    module: Module | None = None
    job: Job | None = None
    result: Emitted | None = None


def _read(state: _EmitState) -> None:
    """The ``read`` stage: parse the shipped IR; its Merkle hash must be the key's."""
    from gradc.compiler.ir.parser import parse_module
    from gradc.compiler.ir.printer import print_function
    from gradc.compiler.keys import module_hashes
    from gradc.passes.analysis.callgraph import call_graph

    task = state.task
    module = parse_module(task.ir_text)
    lowered = task.kernel.thread if task.kernel is not None else task.export
    printed = {n: print_function(f) for n, f in module.functions.items()}
    got = module_hashes(module, printed, call_graph(module)).get(lowered)
    if got != task.components.get("ir"):
        raise ToolchainMismatchError(
            f"the IR shipped for {task.step} of {task.module} hashes to {got}, "
            f"not to its key's ir component {task.components.get('ir')}: refusing to compile"
        )
    for name, fn in module.functions.items():
        restore_hints(fn, task.hints[name])
    state.module = module
    state.focus = module.functions[lowered]


def _lower(state: _EmitState) -> None:
    task, module = state.task, state.module
    assert module is not None and task.signature is not None
    state.focus, state.step = module.functions[task.export], task.step
    job = Job(task.export, task.options, task.target, dict(task.components), task.key,
              task.symbol, None)  # fmt: skip
    job.llvm_module = backend._lower_export(
        module, task.export, task.symbol, task.signature, task.options, task.target
    )
    state.job = job


def _emit(state: _EmitState) -> None:
    task, job = state.task, state.job
    assert job is not None and task.signature is not None and state.module is not None
    state.focus, state.step = state.module.functions[task.export], task.step
    backend.emit_job(job, task.signature)
    state.result = Emitted(
        (job.object_code, job.wrapper_object), job.llvm_text, job.asm_text, state.timings
    )


def _cuda(state: _EmitState) -> None:
    from gradc.compiler.codegen.ptx import find_toolchain

    task, module = state.task, state.module
    assert module is not None and task.kernel is not None
    state.focus, state.step = module.functions[task.kernel.thread], task.step
    toolchain = find_toolchain(task.options.cuda_home or None)
    codes = cuda_backend.compile_kernel(module, task.kernel, toolchain, task.options)
    state.result = Emitted(tuple(codes), timings=state.timings)


def _runtime(state: _EmitState) -> None:
    state.step = "runtime"
    state.result = Emitted((backend.emit_runtime(state.task.options),), timings=state.timings)


_READ: Stage[_EmitState] = Stage("read", _read, reports=(ToolchainMismatchError,))
_STAGES: dict[str, tuple[Stage[_EmitState], ...]] = {
    "cpu": (_READ, Stage("lower", _lower), Stage("emit", _emit)),
    "cuda": (_READ, Stage("cuda", _cuda, reports=(CudaBuildError,))),
    "runtime": (Stage("emit", _runtime),),
}


def emit_task(task: EmitTask) -> Emitted:
    """Run one :class:`EmitTask` (on a worker); see the module docstring.

    Raises:
        ToolchainMismatchError: this worker's toolchain is not the task's, or the shipped
            IR is not what the key hashes.
        CompileError: the entry cannot be lowered (at its line).
        CudaBuildError: as the local ``cuda`` stage.
        InternalCompilerError: a crash, naming the stage, function and line.
    """
    what = f"{task.step} of {task.module}"
    check_toolchain(task.toolchain, task.components, what, task.options.cuda_home)
    state = _EmitState(task=task)
    with paused_gc():
        run_stages(_STAGES[task.kind], state)
    assert state.result is not None
    return state.result


def assemble(plan: ModulePlan, results: Sequence[Emitted]) -> BuildOutput:
    """``plan.output`` with the objects ``results`` (one per ``plan.tasks``, in order)
    filled in, and the workers' stage times added to its timings."""
    cpu = {(t.export, t.variant): r for t, r in zip(plan.tasks, results, strict=True)
           if t.kind == "cpu"}  # fmt: skip
    kernels = {t.export: t.kernel.kernel(list(r.codes))
               for t, r in zip(plan.tasks, results) if t.kernel is not None}  # fmt: skip
    out = plan.output
    entries = []
    for e in out.entries:
        filled = [_fill(v, cpu.get((e.name, i))) for i, v in enumerate((e, *e.variants))]
        entries.append(replace(filled[0], variants=tuple(filled[1:])))
    runtime = [r.codes[0] for t, r in zip(plan.tasks, results) if t.kind == "runtime"]
    timings = dict(out.timings)
    for r in results:
        for name, seconds in r.timings.items():
            timings[name] = timings.get(name, 0.0) + seconds
    return replace(
        out,
        entries=tuple(entries),
        cuda=tuple(kernels.get(k.name, k) for k in out.cuda),
        runtime_object=runtime[0] if runtime else out.runtime_object,
        timings=timings,
    )


def _fill(entry: CompiledEntry, result: Emitted | None) -> CompiledEntry:
    if result is None:
        return entry
    return replace(
        entry,
        object_code=result.codes[0],
        wrapper_object=result.codes[1],
        llvm_text=result.llvm_text,
        asm_text=result.asm_text,
    )
