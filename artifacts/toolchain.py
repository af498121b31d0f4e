"""The toolchain of this process: gradc, llvmlite and the LLVM it bundles.

A manifest records the versions that produced it (``producer``), a remote-cache record
those that made its blobs, runtime mode those it compares an artifact with. Reading the
LLVM version imports ``llvmlite.binding`` (on first call only): this module is the one
place outside the code generator and the loader that does (pyproject.toml, contract
``llvmlite-codegen-loader-only``), so that the store needs neither.
"""

from __future__ import annotations

import functools

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gradc.artifacts.manifest import Producer

__all__ = ["host_producer", "llvm_version"]


@functools.cache
def llvm_version() -> str:
    """Version of the LLVM bundled with llvmlite, as ``"22.1.0"``."""
    import llvmlite.binding as llvm

    return ".".join(str(v) for v in llvm.llvm_version_info)


def host_producer() -> Producer:
    """Versions of this process: gradc, llvmlite and its bundled LLVM (``"22.1.0"``)."""
    import llvmlite  # its __version__, not importlib.metadata's (~10 ms to import)

    from gradc._version import __version__
    from gradc.artifacts.manifest import Producer  # not on the load path (issue 13)

    return Producer(gradc=__version__, llvmlite=llvmlite.__version__, llvm=llvm_version())
