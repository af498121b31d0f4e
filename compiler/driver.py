"""The compiler driver: source file in, compiled entries out (no files written here).

``cli`` calls :func:`build_module` and hands the result to ``gradc.artifacts.store``.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gradc.artifacts.abi import ABI_VERSION, RUNTIME_ABI, entry_symbol
from gradc.artifacts.keys import sha256_key
from gradc.compiler.ir.core import Module
from gradc.compiler.ir.types import python_name
from gradc.compiler.options import CompilerOptions

if TYPE_CHECKING:
    from gradc.compiler.frontend.module_scan import ModuleInfo
    from gradc.compiler.frontend.source import SourceFile


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


class CompileForbiddenError(RuntimeError):
    """Compiling was forbidden (``GRADC_NO_COMPILE=1``) and a build was asked for."""


#: Version of the key schema below (components, Merkle hashing); part of every key.
KEY_FORMAT = "2"


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


def add_derivative_exports(module: Module, info: ModuleInfo, source: SourceFile) -> None:
    """Add the derivative exports ``info`` (a scanned module) declares to ``module``, its
    inferred IR, in declaration order.

    Raises:
        CompileError: a declaration AD cannot carry out, at its (or its import's) line.
    """
    from gradc.compiler.ir.errors import PassError
    from gradc.passes.ad.api import add_derivative_export

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


def build_module(
    source_path: Path,
    options: CompilerOptions,
    grads: Sequence[str] = (),
    *,
    cache: Mapping[str, CachedEntry] | None = None,
    allow_compile: bool = True,
    source_text: bytes | None = None,
    prelude: str = "",
) -> BuildOutput:
    """Compile every export of the module at ``source_path``.

    Phases (each timed into ``BuildOutput.timings``): parse, infer, ad, passes, then per
    export lower and emit (LLVM optimisation and object emission) unless ``cache`` holds
    the export's key: then the cached object is reused and nothing is lowered.

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

    Raises:
        CompileForbiddenError: ``allow_compile`` is False.
        CompileError: the program is ill-typed or uses an unsupported construct; nothing
            has been written anywhere.
        OSError: the file cannot be read.
        GradRequestError: a ``grads`` request names no export or parameter of the module, or
            its ``d_f`` name is taken (the message says which).
    """
    if not allow_compile:
        raise CompileForbiddenError(
            f"compiling {source_path} is forbidden (GRADC_NO_COMPILE=1): build its artifact "
            "beforehand with `gradc build`, or unset GRADC_NO_COMPILE"
        )
    # Imported here so that ``import gradc.compiler.driver`` stays cheap for tools that
    # only need the data classes above.
    from gradc.compiler.codegen.emit import llvm_version, target_info
    from gradc.compiler.codegen.sites import callees as direct_callees
    from gradc.compiler.codegen.sites import reachable, site_table
    from gradc.compiler.frontend.module_scan import requested_derivative, scan_module
    from gradc.compiler.frontend.source import SourceFile
    from gradc.compiler.infer import infer_module
    from gradc.compiler.ir.printer import print_function
    from gradc.compiler.ir.verifier import verify_module
    from gradc.passes.analysis.mutation import written_params
    from gradc.passes.registry import DEFAULT_PIPELINE
    from gradc.passes.registry import get as get_pass

    cache = cache if cache is not None else {}  # an empty mapping may still look up remotely
    timer = _Timer()
    with timer.phase("parse"):
        data = Path(source_path).read_bytes() if source_text is None else source_text
        text = _universal_newlines(data)
        source = SourceFile.parse(text + "\n" + prelude if prelude else text, str(source_path))
        if prelude:  # the prelude's statements are the last ones: scan them first
            count = len(source.tree.body) - len(SourceFile.parse(text, "").tree.body)
            body = source.tree.body
            body[:] = body[len(body) - count :] + body[: len(body) - count]
        info = scan_module(source, Path(source_path).stem)
        for spec in grads:
            info.derivatives.append(requested_derivative(info, spec))
    with timer.phase("infer"):
        module = infer_module(info)
    with timer.phase("ad"):
        add_derivative_exports(module, info, source)
    with timer.phase("passes"):
        # The IR is verified as AD leaves it and as the pipeline leaves it; between passes
        # only with -v (options.verbose), which stops right after a pass that broke it: each
        # verification of a large gradient costs as much as a pass (N = 400 ifs: 0.3 s).
        verify_module(module)
        for i, name in enumerate(DEFAULT_PIPELINE):
            module = get_pass(name).run(module)
            if options.verbose or i == len(DEFAULT_PIPELINE) - 1:
                verify_module(module)
    written = written_params(module)
    variant_options = options.variants()
    targets = [target_info(o) for o in variant_options]
    versions = {
        "gradc": gradc_version(),
        "abi": str(ABI_VERSION),
        "runtime": RUNTIME_ABI,  # objects call the runtime's functions by name
        "llvm": llvm_version(),
        "format": "1",
        "key": KEY_FORMAT,
    }
    shared_of = [
        _shared_components(o, t, versions) for o, t in zip(variant_options, targets, strict=True)
    ]
    callgraph = {name: tuple(direct_callees(module, name)) for name in module.functions}
    hashes = merkle_hashes(
        {n: canonical_ir_text(print_function(f)) for n, f in module.functions.items()}, callgraph
    )
    base_dir = Path(os.path.abspath(source_path)).parent
    ad_config = {
        d.name: {
            "kind": d.kind,
            "target": d.target,
            "wrt": list(d.wrt),
            "seq": d.wrt_sequence,
            "activity": list(d.activity),
        }
        for d in info.derivatives
    }
    entries = []
    export_names = [e.name for e in info.exports] + [d.name for d in info.derivatives]
    for export_name in export_names:
        function = module.functions[export_name]
        reached = reachable(module, export_name)
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
        sites = tuple(
            (loc.file, loc.line, loc.col)
            for loc in site_table(module, export_name, lambda f: module_relative(f, base_dir))
        )
        compiled = []
        for variant, shared, target in zip(variant_options, shared_of, targets, strict=True):
            components: dict[str, str | int | bool] = {"ir": hashes[export_name], **shared}
            if export_name in ad_config:
                components["ad"] = sha256_key(ad_config[export_name])
            # The objects describe their signature (ABI description), parameter names
            # included, which the canonical IR text does not hold.
            components["signature"] = signature_text(signature)
            key = sha256_key(components)
            symbol = entry_symbol(export_name, key)
            cached = cache.get(key)
            if cached is not None:
                object_code, wrapper = cached.object_code, cached.wrapper_object
                # not the assembly a cache of format <= 1.2 may hold: builds store none
                # (gradc inspect --asm generates it), warm or cold alike
                llvm_text, asm_text = cached.llvm_text, ""
            else:
                object_code, wrapper, llvm_text, asm_text = _compile_export(
                    module, export_name, symbol, signature, variant, timer, target
                )
            compiled.append(
                CompiledEntry(
                    name=export_name,
                    signature=signature,
                    symbol=symbol,
                    object_code=object_code,
                    key=key,
                    key_components=components,
                    ir_text="\n".join(print_function(module.functions[n]) for n in reached),
                    llvm_text=llvm_text,
                    asm_text=asm_text,
                    wrapper_object=wrapper,
                    dependencies={n: hashes[n] for n in reached},
                    sites=sites,
                    reused=cached is not None,
                )
            )
        entries.append(replace(compiled[0], variants=tuple(compiled[1:])))
    # One runtime serves every variant (and every artifact of the process): with several
    # CPUs it is built for the generic CPU, so that it runs wherever any variant does.
    runtime_options = replace(options, cpu="generic", cpus=()) if options.cpus else options
    shared = (
        shared_of[0]
        if not options.cpus
        else _shared_components(runtime_options, target_info(runtime_options), versions)
    )
    runtime_key = sha256_key({"runtime": RUNTIME_ABI, **shared})
    cached_runtime = cache.get(runtime_key)
    if cached_runtime is not None:
        runtime = cached_runtime.object_code
    else:
        with timer.phase("emit"):
            runtime = _emit_runtime(runtime_options)
    return BuildOutput(
        info.name,
        tuple(entries),
        targets[0],
        timer.phases,
        runtime,
        runtime_key=runtime_key,
        sources=source_hashes(info, base_dir, {str(source_path): data}),
        callees=callgraph,
        variant_targets=tuple(targets) if len(targets) > 1 else (),
    )


def _compile_export(
    module: Module,
    export_name: str,
    symbol: str,
    signature: Signature,
    options: CompilerOptions,
    timer: _Timer,
    target: Mapping[str, str],
) -> tuple[bytes, bytes, str, str]:
    """Lower and emit one export: (object, wrapper object, LLVM text, assembly).

    Each object carries its ABI description (``gradc.artifacts.abi``) for ``target``.
    """
    from gradc.compiler.codegen.emit import add_abi_description, emit_object
    from gradc.compiler.codegen.lower import lower_export
    from gradc.compiler.codegen.pywrapper import PYTHON_API_SYMBOLS, emit_wrapper
    from gradc.compiler.codegen.relocatable import RelocatableError, check_object
    from gradc.compiler.diagnostics import InternalCompilerError

    with timer.phase("lower"):
        llvm_module = lower_export(module, export_name, symbol, options)
        add_abi_description(
            llvm_module, symbol, abi_description(export_name, symbol, signature, target)
        )
    with timer.phase("emit"):
        emitted = emit_object(llvm_module, options)
        try:
            check_object(emitted.object_code, export_name, emitted.llvm_text)
        except RelocatableError as exc:
            raise InternalCompilerError(f"relocatable check failed: {exc}") from None
        wrapper = emit_wrapper(
            signature,
            symbol,
            options,
            abi_description(export_name, symbol, signature, target, wrapper=True),
        )
        if wrapper:
            allowed = frozenset(PYTHON_API_SYMBOLS) | {symbol}
            check_object(wrapper, f"{export_name} (wrapper)", extra_symbols=allowed)
    return emitted.object_code, wrapper, emitted.llvm_text, emitted.asm_text


def signature_text(signature: Signature) -> str:
    """``signature`` as one string for the cache key: ``(a: f64[:], s: f64) -> none``, then
    `` writes a`` when the export writes array parameters."""
    writes = [p.name for p in signature.params if p.writes]
    return f"{signature}" + (f" writes {','.join(writes)}" if writes else "")


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


def _emit_runtime(options: CompilerOptions) -> bytes:
    from gradc.compiler.codegen.relocatable import check_object
    from gradc.compiler.codegen.runtime import emit_runtime_object

    runtime = emit_runtime_object(options).object_code
    check_object(runtime, "runtime")
    return runtime


def _shared_components(
    options: CompilerOptions, target: Mapping[str, str], versions: Mapping[str, str]
) -> dict[str, str | int | bool]:
    """The key components every entry of a build shares, one per field (plain values)."""
    out: dict[str, str | int | bool] = {}
    for prefix, fields in (("options", options.key_fields()), ("target", target)):
        for name, value in fields.items():
            if not isinstance(value, str | int | bool):
                raise TypeError(f"key field {prefix}.{name} must be a plain value, got {value!r}")
            out[f"{prefix}.{name}"] = value
    for name, value in versions.items():
        out[f"versions.{name}"] = value
    return out


def merkle_hashes(texts: Mapping[str, str], callees: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Per-function Merkle hashes: a function's text and, recursively, its callees'.

    ``hash(f)`` is the sha256 key of f's text (IR printed without locations, so comments
    and line shifts do not matter) and the hashes of its direct callees by name: a change
    in any function reached from ``f`` changes ``hash(f)``, a change elsewhere never
    does. Mutually recursive functions (a strongly connected component of the call graph)
    are hashed together: the component's hash covers every member's text and the
    hashes of the callees outside it; a member's hash is that and its own name.

    Args:
        texts: function name -> its IR text.
        callees: function name -> names it calls directly (names missing from ``texts``
            are hashed as their name only).

    Returns:
        function name -> 64 hex digits, for every name in ``texts``.
    """
    hashes: dict[str, str] = {}
    for scc in _components(texts, callees):
        members = set(scc)
        outside = sorted({c for n in scc for c in callees.get(n, ()) if c not in members})
        scc_hash = sha256_key(
            {
                "texts": {n: texts[n] for n in scc},
                "callees": {c: hashes.get(c, "missing:" + c) for c in outside},
                "recursive": [
                    n for n in sorted(scc) if any(c in members for c in callees.get(n, ()))
                ],
            }
        )
        for n in scc:
            hashes[n] = scc_hash if len(scc) == 1 else sha256_key({"scc": scc_hash, "name": n})
    return hashes


def _components(texts: Mapping[str, str], callees: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """Strongly connected components of the call graph, callees before callers (Tarjan,
    iterative; names visited in sorted order, so the result is deterministic)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in sorted(texts):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = []
        child: str | None = root
        while True:
            if child is not None and child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(c for c in callees.get(child, ()) if c in texts))))
            if not work:
                break
            n, it = work[-1]
            child = next(it, None)
            if child is not None:
                if child in on_stack:
                    low[n] = min(low[n], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[n])
            if low[n] == index[n]:
                scc = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    scc.append(m)
                    if m == n:
                        break
                out.append(sorted(scc))
    return out


_IR_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|([%^])\??[\w.]+')


def canonical_ir_text(text: str) -> str:
    """IR text with every value and block renamed by order of first appearance.

    Value names and block labels are cosmetic (they reach no object: LLVM drops local
    names when it emits code), but the front end derives some from source positions
    (``%range.12.4``), so they must not enter a key. String literals (messages) are kept
    as they are.
    """
    names: dict[str, str] = {}

    def rename(m: re.Match[str]) -> str:
        sigil = m.group(1)
        if sigil is None:
            return m.group(0)
        token = m.group(0)
        if token not in names:
            names[token] = f"{sigil}{'v' if sigil == '%' else 'b'}{len(names)}"
        return names[token]

    return _IR_TOKEN.sub(rename, text)


def module_relative(file: str, base_dir: Path) -> str:
    """``file`` (a ``Loc.file``) relative to the main module's folder, ``/``-separated.

    Pseudo-files such as ``<unknown>`` stay as they are.
    """
    if file.startswith("<"):
        return file
    return Path(os.path.relpath(os.path.abspath(file), base_dir)).as_posix()


def source_hashes(info: ModuleInfo, base_dir: Path, read: Mapping[str, bytes]) -> dict[str, str]:
    """Module-relative name -> sha256 of the bytes, for each file the front end read.

    ``read`` holds bytes already read (path -> bytes), so the hash is of what was
    compiled; the other files (user imports, ``ModuleInfo.files``) are read again.
    """
    already = {os.path.abspath(f): data for f, data in read.items()}
    out = {}
    for f in info.files:
        path = os.path.abspath(f)
        data = already[path] if path in already else Path(path).read_bytes()
        out[module_relative(path, base_dir)] = hashlib.sha256(data).hexdigest()
    return out


def _universal_newlines(data: bytes) -> str:
    """``data`` decoded as UTF-8 with ``\\r\\n`` and ``\\r`` read as ``\\n`` (as ``open`` does).

    Raises:
        UnicodeDecodeError: the bytes are not UTF-8.
    """
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def gradc_version() -> str:
    """The installed gradc version string."""
    from gradc._version import __version__

    return __version__
