"""Linking an artifact into this process: the runtime, symbol resolution, the images.

All objects of an artifact's CPU variant are linked into one new image by gradc's own
linker (:mod:`.link`, mapped by :mod:`.memory`): no LLVM at run time. Symbols resolve by
name only: among the artifact's objects first, then the process's runtime image, then
what the loader hands the wrappers (the CPython objects of
``gradc.artifacts.abi.symbols.PYTHON_API_DATA`` and NumPy's, by address:
:mod:`.numpy_api`), then the process itself (``dlsym``: libm, libc, the CPython API).

**Runtime.** The first artifact that carries a runtime object (manifest ``runtime``) has
it linked once per process into an image of its own
(``gradc.artifacts.abi.symbols.RUNTIME_LIBRARY`` names it in messages); every artifact
resolves the ``gradc_rt*`` symbols against it, so all arrays in the process share one set
of ``gradc_rt1_*`` functions and one set of block counters (:func:`runtime_stats`).
The runtime image is never unmapped; an artifact's image is unmapped when its library,
its functions and every array borrowing from it are gone.
"""

from __future__ import annotations

import _thread  # ``threading``'s lock without importing ``threading`` (issue 13: start-up)
import ctypes

from gradc.artifacts.abi.symbols import (
    PYTHON_API_DATA,
    PYTHON_API_FUNCTIONS,
    RUNTIME_ALLOCATED,
    RUNTIME_DECREF,
    RUNTIME_LIBRARY,
    RUNTIME_LIVE,
)
from gradc.artifacts.loader.memory import Image, load_image, process_symbol

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gradc.artifacts.manifest_records import AnyManifest as Manifest

__all__ = [
    "Runtime",
    "link_library",
    "link_runtime",
    "linked_runtime",
    "runtime_stats",
]

_lock = _thread.allocate_lock()

# ---------------------------------------------------------------------------- the runtime


class Runtime:
    """The linked runtime: ``gradc_rt1_decref`` and the ``gradc_rt1_live`` and
    ``gradc_rt1_allocated`` counters (``allocated`` is None for a runtime object built
    before it had that counter).

    Holds the runtime's image (``tracker``: symbol name -> address), so the runtime code
    stays mapped as long as any array owner (or library) refers to this object.
    """

    __slots__ = ("allocated", "decref", "live", "sha256", "tracker")

    def __init__(self, image: Image, sha256: str) -> None:
        self.tracker = image
        self.sha256 = sha256
        # PYFUNCTYPE: keeps the GIL over this short call (no release and re-take per array)
        self.decref = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)(image[RUNTIME_DECREF])
        self.live = ctypes.c_int64.from_address(image[RUNTIME_LIVE])
        address = image.symbols.get(RUNTIME_ALLOCATED)
        self.allocated = ctypes.c_int64.from_address(address) if address else None


_runtime: Runtime | None = None


def linked_runtime() -> Runtime | None:
    """The process's runtime, None while no artifact carrying one has been loaded."""
    return _runtime


def link_runtime(code: bytes, sha256: str) -> Runtime:
    """The process's runtime, linking ``code`` as it unless one is linked already.

    The first runtime object wins: every object of one runtime ABI implements it alike.

    Raises:
        LinkError: the runtime object does not link (an ArtifactError).
    """
    global _runtime
    with _lock:
        if _runtime is None:
            image = load_image([(f"{RUNTIME_LIBRARY} runtime", code)], process_symbol)
            _runtime = Runtime(image, sha256)
        return _runtime


def runtime_stats() -> dict[str, int]:
    """``{"live": n, "allocated": m}``: runtime blocks (owned arrays) allocated and not yet
    freed in this process, and blocks allocated in all; 0 before any runtime is linked
    (``allocated`` is -1 when the linked runtime object predates that counter)."""
    rt = _runtime
    if rt is None:
        return {"live": 0, "allocated": 0}
    allocated = int(rt.allocated.value) if rt.allocated is not None else -1
    return {"live": int(rt.live.value), "allocated": allocated}


# ---------------------------------------------------------------------------- artifacts


def link_library(
    manifest: Manifest,
    objects: dict[str, bytes],
    wrappers: dict[str, bytes],
    runtime: Runtime | None,
    imports: dict[str, int] | None = None,
) -> Image:
    """Link entry ``objects`` and fast-call ``wrappers`` (sha256 -> bytes) of one CPU
    variant's ``manifest`` into a new image; ``image[symbol]`` is a symbol's address.
    Wrappers also get ``imports`` (name -> address: what array wrappers read of NumPy,
    ``gradc.artifacts.loader.numpy_api``).

    Raises:
        LinkError: an undefined symbol, an unknown relocation ... (the message names the
            object, the symbol and the relocation type).
    """
    found = {**_python_api(), **(imports or {})} if wrappers else {}
    rt = runtime.tracker.symbols if runtime is not None else {}

    def resolve(name: str) -> int | None:
        return rt.get(name) or found.get(name) or process_symbol(name)

    names = {e.sha256: f"{e.object} (export {e.name!r})" for e in manifest.entries}
    for e in manifest.entries:
        if e.wrapper is not None:
            names[e.wrapper.sha256] = f"{e.wrapper.object} (wrapper of {e.name!r})"
    named = [
        (names.get(sha, sha), blobs[sha]) for blobs in (objects, wrappers) for sha in sorted(blobs)
    ]
    return load_image(named, resolve)


_api_cache: dict[str, int] = {}


def _python_api() -> Mapping[str, int]:
    """Name -> address in this interpreter of every CPython symbol a wrapper may need
    (``PYTHON_API_FUNCTIONS`` the process defines, ``PYTHON_API_DATA``); looked up once
    per process, the same mapping for every load (read, never changed, by the caller)."""
    if not _api_cache:
        for name in PYTHON_API_FUNCTIONS:
            address = process_symbol(name)
            if address is not None:
                _api_cache[name] = address
        for name, obj in PYTHON_API_DATA.items():
            _api_cache[name] = id(obj)  # CPython: an object's id is its address
    return _api_cache
