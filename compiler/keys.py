"""Cache-key policy: which facts of a build enter each entry's key (DESIGN.md §5).

An export's key is ``sha256_key`` (``gradc.artifacts.keys``: the canonical encoding) of
its *components*, one field each, as ``gradc inspect --key`` lists them::

    ir                   Merkle hash of the export's IR and of every function it reaches
    ad                   the derivative declaration (kind, target, wrt, activity), if any
    signature            parameter names and types, result, written parameters
    options.<field>      CompilerOptions.key_fields(): opt level, CPU, fast-math, bounds checks;
                         a derivative's also options.tape_budget
    target.<field>       triple, cpu, features
    versions.<field>     gradc, abi, runtime, llvm, format, key (:data:`KEY_FORMAT`); in a
                         source checkout also source (compiler/source_digest.py)

The runtime object's key is ``runtime`` (its ABI) with the shared ``options``, ``target``
and ``versions`` fields. Output paths, verbosity and timings never enter a key. Any change
here changes every key: bump :data:`KEY_FORMAT` with it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from gradc.artifacts.abi import ABI_VERSION, RUNTIME_ABI
from gradc.artifacts.keys import sha256_key
from gradc.compiler.ir.core import Module
from gradc.compiler.options import CompilerOptions
from gradc.compiler.source_digest import source_digest
from gradc.passes.analysis.callgraph import strongly_connected_components

if TYPE_CHECKING:
    from gradc.compiler.frontend.module_scan import Derivative
    from gradc.compiler.results import Signature

#: Version of the key schema below (components, Merkle hashing); part of every key.
KEY_FORMAT = "3"

#: A key component's value: plain values only (hex digests, option values).
Component = str | int | bool


def versions(llvm: str) -> dict[str, str]:
    """The ``versions.*`` components: gradc, its ABI and runtime ABI, ``llvm`` (the LLVM
    version the objects are emitted with), the artifact format and :data:`KEY_FORMAT`;
    when gradc runs from a source checkout, ``source``, the digest of the compiler's code
    (an edited compiler must not reuse what the unedited one made)."""
    out = {
        "gradc": gradc_version(),
        "abi": str(ABI_VERSION),
        "runtime": RUNTIME_ABI,  # objects call the runtime's functions by name
        "llvm": llvm,
        "format": "1",
        "key": KEY_FORMAT,
    }
    source = source_digest()
    if source:
        out["source"] = source
    return out


def shared_components(
    options: CompilerOptions, target: Mapping[str, str], versions: Mapping[str, str]
) -> dict[str, Component]:
    """The key components every entry of a build shares, one per field (plain values).

    Raises:
        TypeError: an option or target field is not a plain value.
    """
    out: dict[str, Component] = {}
    for prefix, fields in (("options", options.key_fields()), ("target", target)):
        for name, value in fields.items():
            if not isinstance(value, str | int | bool):
                raise TypeError(f"key field {prefix}.{name} must be a plain value, got {value!r}")
            out[f"{prefix}.{name}"] = value
    for name, value in versions.items():
        out[f"versions.{name}"] = value
    return out


def entry_components(
    ir_hash: str,
    shared: Mapping[str, Component],
    signature: Signature,
    derivative: Derivative | None = None,
    tape_budget: int = 0,
) -> dict[str, Component]:
    """The components of one export's key (see the module docstring), in manifest order.

    Args:
        ir_hash: the export's Merkle hash (:func:`module_hashes`).
        shared: :func:`shared_components` of the variant being compiled.
        signature: the export's signature.
        derivative: the declaration that made the export, when it is a derivative.
        tape_budget: ``CompilerOptions.tape_budget``, a component of a derivative's key
            only, when not 0 (``options.tape_budget``; it changes reverse-mode code
            alone, and 0, the default, keeps the keys made before the option).
    """
    components: dict[str, Component] = {"ir": ir_hash, **shared}
    if derivative is not None:
        if tape_budget:
            components["options.tape_budget"] = tape_budget
        components["ad"] = sha256_key(
            {
                "kind": derivative.kind,
                "target": derivative.target,
                "wrt": list(derivative.wrt),
                "seq": derivative.wrt_sequence,
                "activity": list(derivative.activity),
            }
        )
    # The objects describe their signature (ABI description), parameter names included,
    # which the canonical IR text does not hold.
    components["signature"] = signature_text(signature)
    return components


def cuda_components(
    ir_hash: str,
    options: CompilerOptions,
    versions: Mapping[str, str],
    signature: Signature,
    cuda: Mapping[str, str | bool],
) -> dict[str, Component]:
    """The key components of one CUDA variant (a kernel's PTX or one of its cubins).

    ``ir_hash`` is the Merkle hash of the kernel's per-thread function; ``cuda`` holds the
    variant's own facts, each entering as ``cuda.<name>``: ``kind`` (``"ptx"`` or
    ``"cubin"``), ``arch`` (``sm_XY``), ``ptx_arch`` and ``isa`` (of the PTX),
    ``libdevice`` (its sha256), ``ftz``, and for a cubin ``ptxas`` (``ptxas --version``'s
    lines) and ``ptxas_flags``. The CPU's ``target.*`` fields are not components: the
    CUDA code does not depend on the host.
    """
    components: dict[str, Component] = {"ir": ir_hash}
    for name in ("opt_level", "fastmath", "boundscheck"):
        components[f"options.{name}"] = options.key_fields()[name]  # type: ignore[assignment]
    components["target.triple"] = "nvptx64-nvidia-cuda"
    for name, value in sorted(cuda.items()):
        components[f"cuda.{name}"] = value
    for name, value in versions.items():
        components[f"versions.{name}"] = value
    components["signature"] = signature_text(signature)
    return components


def runtime_key(shared: Mapping[str, Component]) -> str:
    """The key of the runtime object built with the ``shared`` components."""
    return sha256_key({"runtime": RUNTIME_ABI, **shared})


def signature_text(signature: Signature) -> str:
    """``signature`` as one string for the cache key: ``(a: f64[:], s: f64) -> none``, then
    `` writes a`` when the export writes array parameters."""
    writes = [p.name for p in signature.params if p.writes]
    return f"{signature}" + (f" writes {','.join(writes)}" if writes else "")


def module_hashes(
    module: Module, printed: Mapping[str, str], callgraph: Mapping[str, Sequence[str]]
) -> dict[str, str]:
    """Function name -> Merkle hash for every function of ``module``.

    Args:
        printed: function name -> its IR text (``print_function``).
        callgraph: ``gradc.passes.analysis.callgraph.call_graph(module)``.
    """
    return merkle_hashes({n: canonical_ir_text(printed[n]) for n in module.functions}, callgraph)


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
    for scc in strongly_connected_components(texts, callees):
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


def gradc_version() -> str:
    """The installed gradc version string."""
    from gradc._version import __version__

    return __version__
