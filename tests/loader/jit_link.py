"""The cross-check linker: an artifact's objects linked by LLVM's JIT linker (llvmlite's
``JITLibraryBuilder``, what the loader used before it linked by itself), with the same
signature as ``gradc.artifacts.loader.linking.link_library``, so that a test can load one
artifact both ways and compare every export (tests/loader/test_loader_differential.py).

Runtime symbols resolve to the process's runtime image (the one gradc's linker mapped), so
both libraries share one runtime and its live-block counter.
"""

from __future__ import annotations

import itertools
from typing import Any

import llvmlite.binding as llvm

from gradc.artifacts.loader import linking
from gradc.artifacts.loader.link import LinkError
from gradc.artifacts.manifest import Manifest

_jit: list[Any] = []
_numbers = itertools.count()


def _lljit() -> Any:
    if not _jit:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _jit.append(llvm.create_lljit_compiler())
    return _jit[0]


class _Tracker:
    """``tracker[symbol]`` -> address, keeping the JIT's resource tracker alive."""

    def __init__(self, tracker: Any) -> None:
        self.tracker = tracker

    def __getitem__(self, name: str) -> int:
        return int(self.tracker[name] or 0)


def jit_link_library(
    manifest: Manifest,
    objects: dict[str, bytes],
    wrappers: dict[str, bytes],
    runtime: linking.Runtime | None,
    imports: dict[str, int] | None = None,
) -> _Tracker:
    """``link_library`` through LLVM's JIT linker.

    Raises:
        LinkError: LLVM's linker failed.
    """
    builder = llvm.JITLibraryBuilder()
    for blobs in (objects, wrappers):
        for sha in sorted(blobs):
            builder.add_object_img(blobs[sha])
    for e in manifest.entries:
        builder.export_symbol(e.symbol)
        if e.wrapper is not None and e.wrapper.sha256 in wrappers:
            builder.export_symbol(e.wrapper.symbol)
    found = {**linking._python_api(), **(imports or {})} if wrappers else {}
    if runtime is not None:
        found.update(runtime.tracker.symbols)
    for name, address in found.items():
        builder.import_symbol(name, address)
    try:
        return _Tracker(builder.link(_lljit(), f"xcheck:{manifest.module}:{next(_numbers)}"))
    except RuntimeError as exc:
        raise LinkError(str(exc)) from exc
