"""The back-end stages of a build: keys, lower and emit, and the build's output.

- ``keys``: the call graph, each export's signature, raise sites and, per CPU variant, its
  cache key (``gradc.compiler.keys``) and symbol; a :class:`~gradc.compiler.state.Job`
  per export and variant, holding the cache's blobs when the cache has its key.
- ``lower``: each job the cache did not hold, to LLVM IR with its ABI description.
- ``emit``: those LLVM modules to relocatable objects (checked), with their fast-call
  wrappers; the runtime object unless the cache holds it.

Codegen is imported inside the stages, so that importing the driver stays cheap.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from gradc.artifacts.abi import entry_symbol
from gradc.artifacts.keys import sha256_key
from gradc.compiler import keys
from gradc.compiler.ir.core import Function, Module
from gradc.compiler.options import CompilerOptions
from gradc.compiler.results import BuildOutput, CompiledEntry, Param, Signature
from gradc.compiler.sources import module_relative, source_hashes
from gradc.compiler.state import BuildState, ExportPlan, Job
from gradc.passes.analysis.callgraph import call_graph, reachable


def plan_keys(state: BuildState) -> None:
    """The ``keys`` stage: plan every export's jobs and look their keys up in the cache."""
    from gradc.compiler.codegen.emit import llvm_version, target_info
    from gradc.compiler.ir.printer import print_function
    from gradc.compiler.variant_policy import resolve_variants

    exports = [e.name for e in state.info.exports] + [d.name for d in state.info.derivatives]
    state.options = resolve_variants(state.options, state.module, exports)
    module, options = state.module, state.options
    variant_options = options.variants()
    state.targets = [target_info(o) for o in variant_options]
    versions = keys.versions(llvm_version())
    shared_of = [
        keys.shared_components(o, t, versions)
        for o, t in zip(variant_options, state.targets, strict=True)
    ]
    state.printed = {n: print_function(f) for n, f in module.functions.items()}
    state.callgraph = call_graph(module)
    state.hashes = keys.module_hashes(module, state.printed, state.callgraph)
    derivatives = {d.name: d for d in state.info.derivatives}
    state.exports = []
    for plan in _export_plans(state):
        for variant, shared, target in zip(variant_options, shared_of, state.targets, strict=True):
            # the export's own fastmath=/boundscheck= (@gradc.export) override the build's
            own = variant
            for field_name, value in plan.options:
                own = replace(own, **{field_name: value})  # type: ignore[arg-type]
            components = keys.entry_components(
                state.hashes[plan.name],
                {**shared, **{f"options.{n}": v for n, v in plan.options}},
                plan.signature,
                derivatives.get(plan.name),
                options.tape_budget,
            )
            key = sha256_key(components)
            symbol = entry_symbol(plan.name, key)
            plan.jobs.append(_job(state, plan.name, own, target, components, key, symbol))
        state.exports.append(plan)
    state.runtime_options, state.runtime_key = runtime_plan(options, versions)
    cached_runtime = state.cache.get(state.runtime_key)
    state.runtime_object = cached_runtime.object_code if cached_runtime is not None else None


def runtime_plan(
    options: CompilerOptions, versions: Mapping[str, str]
) -> tuple[CompilerOptions, str]:
    """The options the runtime object of a build with ``options`` is emitted with, and its
    cache key (``keys.runtime_key``: every key field of those options, the target they
    resolve to, ``versions``; the runtime cache and the artifact's entry use it).

    One runtime serves every variant (and every artifact of the process): with several
    CPUs it is built for the generic CPU, so that it runs wherever any variant does.
    """
    from gradc.compiler.codegen.emit import target_info

    runtime = replace(options, cpu="generic", cpus=()) if options.cpus else options
    shared = keys.shared_components(runtime, target_info(runtime), versions)
    return runtime, keys.runtime_key(shared)


def _export_plans(state: BuildState) -> list[ExportPlan]:
    """The exports of the module (then its derivative exports), in declaration order."""
    from gradc.compiler.codegen.sites import site_table
    from gradc.compiler.ir.types import python_name
    from gradc.passes.analysis.mutation import written_params

    module, info = state.module, state.info
    written = written_params(module)
    base_dir = Path(os.path.abspath(state.source_path)).parent
    plans = []
    defaults = {e.name: e.defaults for e in info.exports}
    primal = {d.name: d.target for d in info.derivatives}
    dispatch = {e.name: e.dispatch for e in info.exports}
    dispatch.update({d.name: d.dispatch for d in info.derivatives})
    options = {e.name: e.options for e in info.exports}
    relative: dict[str, str] = {}  # Loc.file -> module-relative name (a few files, many sites)

    def rename(file: str) -> str:
        if file not in relative:
            relative[file] = module_relative(file, base_dir)
        return relative[file]

    for name in [e.name for e in info.exports] + [d.name for d in info.derivatives]:
        function = state.focus = module.functions[name]
        params = tuple(
            Param(p.name or f"arg{p.index}", python_name(p.type), writes=p.index in written[name])
            for p in function.params
        )
        own = defaults[name] if name in defaults else _inherited(defaults[primal[name]], params)
        defaults[name] = own  # a derivative of this derivative inherits from it
        signature = Signature(params, python_name(function.return_type), own)
        sites = tuple((loc.file, loc.line, loc.col) for loc in site_table(module, name, rename))
        if name not in options:  # a derivative is compiled with its primal's options
            options[name] = options[primal[name]]
        plans.append(
            ExportPlan(
                name,
                signature,
                reachable(module, name),
                sites,
                options=options[name],
                dispatch=dispatch[name] or "",
            )
        )
    return plans


def _inherited(
    defaults: tuple[tuple[str, int | float | bool], ...], params: tuple[Param, ...]
) -> tuple[tuple[str, int | float | bool], ...]:
    """The defaults a derivative export keeps of its primal's: those of its trailing
    parameters that are defaulted parameters of the primal (all of them for ``grad``,
    whose parameters are the primal's; none for ``jvp``, whose tangents come last)."""
    values = dict(defaults)
    kept: list[tuple[str, int | float | bool]] = []
    for p in reversed(params):
        if p.name not in values:
            break
        kept.append((p.name, values[p.name]))
    return tuple(reversed(kept))


def _job(
    state: BuildState,
    export: str,
    options: CompilerOptions,
    target: Mapping[str, str],
    components: dict[str, str | int | bool],
    key: str,
    symbol: str,
) -> Job:
    """The job of ``export`` for one variant, filled from the cache when it has ``key``."""
    job = Job(export, options, target, components, key, symbol, state.cache.get(key))
    if job.cached is not None:
        job.object_code, job.wrapper_object = job.cached.object_code, job.cached.wrapper_object
        # not the assembly a cache of format <= 1.2 may hold: builds store none
        # (gradc inspect --asm generates it), warm or cold alike
        job.llvm_text = job.cached.llvm_text
    return job


def lower(state: BuildState) -> None:
    """The ``lower`` stage: LLVM IR of every job the cache did not hold. A build large
    enough for ``-j N`` processes (a warm pool, or ``emit_pool.worth_forking``) lowers
    and emits each job in a task instead (:func:`_lower_and_emit_all`), so this stage
    then holds the emission's time too."""
    from gradc.compiler.emit_pool import worth_forking

    pending = [(plan, job) for plan in state.exports for job in plan.jobs if job.cached is None]
    ir_bytes = sum(_ir_bytes(state, plan) for plan, _ in pending)
    warm = state.pool is not None and len(pending) > 1  # its workers are already started
    state.lower_in_workers = warm or worth_forking(ir_bytes, len(pending), state.options.jobs)
    if state.lower_in_workers:
        _lower_and_emit_all(state, pending)
        return
    for plan, job in pending:
        _lower_here(state, plan, job)


def _lower_here(state: BuildState, plan: ExportPlan, job: Job) -> None:
    """Lower ``job`` of ``plan`` in this process, with its export as the build's context
    for errors."""
    state.focus, state.step = state.module.functions[plan.name], _step(plan, job)
    job.llvm_module = _lower_export(
        state.module, plan.name, job.symbol, plan.signature, job.options, job.target
    )


def _ir_bytes(state: BuildState, plan: ExportPlan) -> int:
    """The size of the gradc IR one job of ``plan`` lowers (the printed IR of every function
    it reaches): what lowering and emitting it costs, roughly."""
    return sum(len(state.printed[n]) for n in plan.reached)


def emit(state: BuildState) -> None:
    """The ``emit`` stage: objects of every lowered job (in a ``-j N`` build, of those
    whose task failed: emitted here, they fail as in a ``-j 1`` build), and the runtime
    object if the cache did not hold it; in ``options.jobs`` spawned worker processes
    when that pays (``gradc.compiler.emit_pool``), with the same bytes either way."""
    from gradc.compiler.codegen.runtime_cache import cached_runtime, find_runtime

    if state.runtime_object is None:
        state.runtime_object = find_runtime(state.runtime_key)
    runtime = _emit_lowered(state)
    if state.runtime_object is None:
        state.focus, state.step = None, "runtime"
        state.runtime_object = cached_runtime(
            state.runtime_key, lambda: _accept_runtime(_emitted(runtime))
        )


#: What a task returns for a job whose lowering raised: the build process lowers it again,
#: so that the error is raised with the build's context, as in a ``-j 1`` build.
_LOWERING_FAILED = "lowering failed"


def _lower_and_emit_all(state: BuildState, pending: list[tuple[ExportPlan, Job]]) -> None:
    """Lower and emit every ``pending`` job (and the runtime, if the runtime cache has
    none) in ``-j N`` processes: the build's warm pool (``gradc.compiler.warm_pool``) if
    it has one and the module pickles, else forked now (``emit_pool.run_forked``).

    A job whose task failed is lowered here again, in job order, as the ``-j 1`` build's
    ``lower`` stage does: a lowering error is raised as it raises it; a job whose
    emission (or object check) failed is left lowered for the ``emit`` stage, which
    emits it here and raises what ``-j 1`` raises, with the same context. So is the
    runtime: kept only when its task succeeded and its object passes the check.
    """
    from gradc.compiler.codegen.runtime_cache import cached_runtime, find_runtime
    from gradc.compiler.emit_pool import EmitFailure, run_forked

    if state.runtime_object is None:
        state.runtime_object = find_runtime(state.runtime_key)
    items: list[Any] = [(p.name, j.symbol, p.signature, j.options, j.target) for p, j in pending]
    items += [state.runtime_options] if state.runtime_object is None else []
    sizes = [_ir_bytes(state, plan) for plan, _ in pending] + [0] * (len(items) - len(pending))
    stage = _stager(state, pending)
    if _shared_with_pool(state):
        assert state.pool is not None
        results = state.pool.run(lower_and_emit, items, sizes, _emit_progress(state), stage)
    else:
        module = state.module
        work = lambda index: lower_and_emit(module, items[index])  # noqa: E731
        results = run_forked(work, sizes, state.options.jobs, _emit_progress(state), stage)
    for (plan, job), result in zip(pending, results, strict=False):
        if isinstance(result, tuple) and result[2]:  # lowered, emitted and checked
            _accept_export(job, result[0], result[1], checked=True)
        else:
            _lower_here(state, plan, job)  # raises as -j 1 does if lowering failed
    runtime = results[-1] if state.runtime_object is None else None
    if runtime is not None and not isinstance(runtime, EmitFailure):
        with contextlib.suppress(Exception):  # else the emit stage makes it (and raises)
            state.runtime_object = cached_runtime(
                state.runtime_key, lambda: _accept_runtime(runtime)
            )


def _stager(state: BuildState, pending: list[tuple[ExportPlan, Job]]) -> Any:
    """``each(index, result)`` for the pool, which writes the blobs of pending job
    ``index``'s result ahead of the ``write`` stage to ``state.stage``
    (``gradc.artifacts.staging``), as the build process gets them; None without a stage.
    A blob that cannot be written is left to the ``write`` stage (which reports it)."""
    stage = state.stage
    if stage is None:
        return None

    def put(index: int, result: Any) -> None:
        nonlocal stage
        if stage is None or index >= len(pending) or not isinstance(result, tuple):
            return
        (plan, job), (entry, wrapper, checked) = pending[index], result
        if not checked:
            return  # the build raises its error
        try:
            stage.put_object(entry.object_code)
            if wrapper is not None:
                stage.put_object(wrapper.object_code)
            if job is plan.jobs[0]:  # the texts the manifest keeps are the first variant's
                stage.put_text("\n".join(state.printed[n] for n in plan.reached), "ir")
                stage.put_text(entry.llvm_text, "llvm")
                stage.put_text(entry.asm_text, "asm")
        except OSError:
            stage = None

    return put


def _shared_with_pool(state: BuildState) -> bool:
    """Whether the build's warm pool has the module (sent now): False when there is no
    pool or the module does not pickle (the pool is then closed: no thread, no worker
    left, so that ``run_forked`` may fork)."""
    import pickle

    if state.pool is None:
        return False
    try:
        state.pool.share(state.module)
    except (pickle.PicklingError, RecursionError, TypeError, AttributeError):
        state.pool.close()
        state.pool = None
        return False
    return True


def lower_and_emit(module: Module, item: Any) -> Any:
    """A ``-j N`` worker's task: the runtime's emitted object when ``item`` is the runtime's
    :class:`CompilerOptions`; else ``item``'s job, ``(export, symbol, signature, options,
    target)``, lowered from ``module`` and emitted: ``(entry, wrapper or None, checked)``,
    ``checked`` False when the objects failed ``_accept_export``'s checks (the build
    raises that with its context), or :data:`_LOWERING_FAILED`."""
    from gradc.compiler.codegen.emit import emit_object

    if isinstance(item, CompilerOptions):
        return emit_object(_runtime_text(), item)
    export, symbol, signature, options, target = item
    try:
        llvm_module = _lower_export(module, export, symbol, signature, options, target)
    except Exception:
        return _LOWERING_FAILED
    entry = emit_object(str(llvm_module), options)
    wrapper_module = _wrapper_module(export, symbol, target, signature)
    wrapper = None if wrapper_module is None else emit_object(str(wrapper_module), options)
    try:
        _check_export(export, symbol, entry, wrapper)
    except Exception:
        return entry, wrapper, False
    return entry, wrapper, True


def _emit_progress(state: BuildState) -> Any:
    """``done(finished, total)`` for the emit pool: ``state.progress`` of ``emit k/n``."""
    progress = state.progress
    if progress is None:
        return None
    return lambda finished, total: progress(f"emit {finished}/{total}")


def _emit_lowered(state: BuildState) -> Any:
    """Emit every lowered job (and the runtime, if still missing) in this process or, when
    that pays, spawned workers (``emit_pool.emit_all``); returns the runtime's emitted
    object or None."""
    from gradc.compiler.emit_pool import EmitTask, emit_all, worth_a_pool

    pending = [(p, j) for p in state.exports for j in p.jobs if j.llvm_module is not None]
    tasks: list[EmitTask] = []
    focus: list[Function | None] = []  # per task: the user function it compiles
    slots: list[tuple[int, int | None]] = []  # per pending job: its entry's, wrapper's task
    for plan, job in pending:
        state.focus, state.step = state.module.functions[plan.name], _step(plan, job)
        entry = len(tasks)
        tasks.append(EmitTask(str(job.llvm_module), job.options, state.step))
        job.llvm_module = None  # free it: a large gradient's LLVM IR is large
        wrapper = _wrapper_module(job.export, job.symbol, job.target, plan.signature)
        if wrapper is not None:
            tasks.append(EmitTask(str(wrapper), job.options, f"{state.step} (wrapper)"))
        focus += [state.focus] * (len(tasks) - entry)
        slots.append((entry, None if wrapper is None else entry + 1))
    if state.runtime_object is None:
        tasks.append(EmitTask(_runtime_text(), state.runtime_options, "runtime"))
        focus.append(None)
    if worth_a_pool(tasks, state.options.jobs):
        emitted = emit_all(tasks, state.options.jobs)
    else:
        done = _emit_progress(state)
        emitted = []
        for t, f in zip(tasks, focus, strict=True):
            emitted.append(_emit_here(state, t, f))
            if done is not None:
                done(len(emitted), len(tasks))
    for (plan, job), (entry, wrapper_task) in zip(pending, slots, strict=True):
        state.focus, state.step = state.module.functions[plan.name], _step(plan, job)
        _accept_export(
            job,
            _emitted(emitted[entry]),
            None if wrapper_task is None else _emitted(emitted[wrapper_task]),
        )
    return emitted[-1] if state.runtime_object is None else None


def needs_lowering(state: BuildState) -> bool:
    """Some export must be compiled (the cache did not hold its key)."""
    return bool(state.pending())


def needs_emission(state: BuildState) -> bool:
    """Some export or the runtime must be compiled."""
    return bool(state.pending()) or state.runtime_object is None


def _step(plan: ExportPlan, job: Job) -> str:
    """``export 'f'``, with the CPU when the export has several variants."""
    cpu = f" for CPU {job.options.cpu!r}" if len(plan.jobs) > 1 else ""
    return f"export {plan.name!r}{cpu}"


def _lower_export(
    module: Module,
    export_name: str,
    symbol: str,
    signature: Signature,
    options: CompilerOptions,
    target: Mapping[str, str],
) -> Any:
    """The LLVM module of one export, carrying its ABI description (``gradc.artifacts.abi``)
    for ``target``."""
    from gradc.compiler.codegen.emit import add_abi_description
    from gradc.compiler.codegen.lower import lower_export

    llvm_module = lower_export(module, export_name, symbol, options)
    add_abi_description(
        llvm_module, symbol, abi_description(export_name, symbol, signature, target)
    )
    return llvm_module


def emit_job(job: Job, signature: Signature) -> None:
    """Emit one lowered job in this process: its entry object and fast-call wrapper,
    checked (``gradc build --executor`` runs this on a worker, one job per task)."""
    from gradc.compiler.codegen.emit import emit_object

    entry = emit_object(str(job.llvm_module), job.options)
    job.llvm_module = None
    wrapper = _wrapper_module(job.export, job.symbol, job.target, signature)
    _accept_export(job, entry, None if wrapper is None else emit_object(str(wrapper), job.options))


def emit_runtime(options: CompilerOptions) -> bytes:
    """The runtime object (``gradc_rt*`` functions) for ``options``, checked."""
    from gradc.compiler.codegen.emit import emit_object

    return _accept_runtime(emit_object(_runtime_text(), options))


def _wrapper_module(
    export: str, symbol: str, target: Mapping[str, str], signature: Signature
) -> Any:
    """The LLVM IR text of the fast-call wrapper of ``export``'s entry ``symbol`` (None
    when the export has none), generated once per signature (``codegen.wrapper_text``)."""
    from gradc.compiler.codegen.wrapper_text import wrapper_text

    description = abi_description(export, symbol, signature, target, wrapper=True)
    return wrapper_text(signature, symbol, description)


def _runtime_text() -> str:
    """The LLVM IR text of the runtime object (``gradc_rt*`` functions)."""
    from gradc.compiler.codegen.runtime import runtime_module

    return str(runtime_module())


def _emit_here(state: BuildState, task: Any, focus: Function | None) -> Any:
    """Emit one task in this process (``-j 1``, or a build too small for a pool), with the
    user function ``focus`` and the task's label as the build's context for errors."""
    from gradc.compiler.codegen.emit import emit_object

    state.focus, state.step = focus, task.label
    return emit_object(task.text, task.options)


def _emitted(result: Any) -> Any:
    """A task's emitted object; a worker's failure raised here, with the task's context
    already in the build state (so the stage runner names the export)."""
    from gradc.compiler.emit_pool import EmitFailure

    if isinstance(result, EmitFailure):
        raise RuntimeError(f"{result.kind}: {result.message}\n(in a -j worker)\n{result.trace}")
    return result


def _accept_export(job: Job, emitted: Any, wrapper: Any, checked: bool = False) -> None:
    """Check ``job``'s emitted entry object and its wrapper object (unless a worker did:
    ``checked``; :func:`_check_export`), and keep them with the LLVM text."""
    if not checked:
        _check_export(job.export, job.symbol, emitted, wrapper)
    wrapper_object = b"" if wrapper is None else wrapper.object_code
    job.object_code, job.wrapper_object = emitted.object_code, wrapper_object
    job.llvm_text, job.asm_text = emitted.llvm_text, emitted.asm_text


def _check_export(export: str, symbol: str, emitted: Any, wrapper: Any) -> None:
    """Check the emitted entry object of ``export`` (relocatable, no forbidden symbols)
    and its wrapper object (None: none), whose entry is ``symbol``.

    Raises:
        InternalCompilerError: the entry object is not relocatable as the loader needs.
        RelocatableError: the wrapper object is not.
    """
    from gradc.compiler.codegen.pywrapper import PYTHON_API_SYMBOLS
    from gradc.compiler.codegen.relocatable import RelocatableError, check_object
    from gradc.compiler.diagnostics import InternalCompilerError

    try:
        check_object(emitted.object_code, export, emitted.llvm_text)
    except RelocatableError as exc:
        raise InternalCompilerError(f"relocatable check failed: {exc}") from None
    if wrapper is not None and wrapper.object_code:
        allowed = frozenset(PYTHON_API_SYMBOLS) | {symbol}
        check_object(wrapper.object_code, f"{export} (wrapper)", extra_symbols=allowed)


def _accept_runtime(emitted: Any) -> bytes:
    """The runtime object, checked."""
    from gradc.compiler.codegen.relocatable import check_object

    check_object(emitted.object_code, "runtime")
    return bytes(emitted.object_code)


def abi_description(
    export_name: str,
    symbol: str,
    signature: Signature,
    target: Mapping[str, str],
    *,
    wrapper: bool = False,
) -> bytes:
    """The encoded ABI description (``gradc.artifacts.abi``) of export ``export_name``'s
    entry object, or of its fast-call wrapper object with ``wrapper``: what the loader
    checks the manifest against before linking (docs/abi.md "ABI description")."""
    from gradc.artifacts.abi.description import describe, encode
    from gradc.compiler.codegen.pywrapper import wrapper_symbol

    return encode(
        describe(
            role="wrapper" if wrapper else "entry",
            export=export_name,
            symbol=wrapper_symbol(symbol) if wrapper else symbol,
            calls=symbol,
            params=[(p.name, p.type) for p in signature.params],
            result=signature.result,
            writes=[p.name for p in signature.params if p.writes],
            target=(target["triple"], target["cpu"], target["features"]),
        )
    )


def build_output(state: BuildState) -> BuildOutput:
    """What the stages produced, as the artifact store takes it."""
    entries = []
    for plan in state.exports:
        compiled = [
            CompiledEntry(
                name=plan.name,
                signature=plan.signature,
                symbol=job.symbol,
                object_code=job.object_code,
                key=job.key,
                key_components=job.components,
                ir_text="\n".join(state.printed[n] for n in plan.reached),
                llvm_text=job.llvm_text,
                asm_text=job.asm_text,
                wrapper_object=job.wrapper_object,
                dependencies={n: state.hashes[n] for n in plan.reached},
                sites=plan.sites,
                reused=job.cached is not None,
                dispatch=plan.dispatch,
            )
            for job in plan.jobs
        ]
        entries.append(replace(compiled[0], variants=tuple(compiled[1:])))
    base_dir = Path(os.path.abspath(state.source_path)).parent
    assert state.runtime_object is not None  # the emit stage made it if the cache had none
    return BuildOutput(
        state.info.name,
        tuple(entries),
        state.targets[0],
        state.timings,
        state.runtime_object,
        runtime_key=state.runtime_key,
        sources=source_hashes(state.info, base_dir, {str(state.source_path): state.data}),
        callees=state.callgraph,
        variant_targets=tuple(state.targets) if len(state.targets) > 1 else (),
        cuda=state.cuda,
    )
