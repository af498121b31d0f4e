"""A ``.pyi`` stub of what an artifact's library offers, for type checkers and IDEs.

``gradc build m.py`` writes ``m.pyi`` beside the artifact directory (``build/m.pyi``
next to ``build/m.gradc/``), and ``gradc.setuptools`` writes it into the package beside
the shipped artifact (``mypkg/kernels.pyi``), so that ``from mypkg.kernels import f`` and
``mypkg.kernels.f(...)`` type-check against the compiled signatures. Types follow what
the loader takes and returns (docs/abi.md): f64/f32 scalars are ``float``, i64/i32
``int``, bool ``bool``, arrays ``numpy.typing.NDArray`` of their dtype (a parameter also
takes anything array-like the loader converts, but the stub names the precise type),
tuples ``tuple[...]``, a ``void`` result ``None``. A function exported with several
signatures gets one ``@overload`` per signature (manifest 1.7 ``dispatch``), narrowest
first; each
specialisation is reachable by subscript only (``lib["f.f64"]``), so it has no stub.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from gradc.artifacts.abi.types import NUMPY_DTYPES, AbiType, Array, Scalar, Tuple, parse_type
from gradc.artifacts.manifest import Entry, Manifest

__all__ = ["python_type", "stub_path", "stub_text", "write_stub"]

_SCALARS = {"f64": "float", "f32": "float", "i64": "int", "i32": "int", "bool": "bool"}


def python_type(t: AbiType) -> str:
    """The annotation of ABI type ``t`` in a stub (``"NDArray[np.float64]"``)."""
    if isinstance(t, Scalar):
        return "None" if t.name == "none" else _SCALARS[t.name]
    if isinstance(t, Array):
        return f"NDArray[np.{NUMPY_DTYPES[t.dtype]}]"
    if isinstance(t, Tuple):
        return "tuple[" + ", ".join(python_type(e) for e in t.elements) + "]"
    raise TypeError(f"not an ABI type: {t!r}")


#: The order of element types from narrow to broad, for scalars (PEP 484: bool <: int <:
#: float) and for arrays alike (NumPy's stubs make ``float32`` a subtype of
#: ``floating[_64Bit]``, so an ``NDArray[np.float32]`` fits an ``NDArray[np.float64]``).
_BREADTH = {"bool": 0, "i32": 1, "i64": 2, "f32": 3, "f64": 4}


def _breadth(entry: Entry) -> tuple[int, ...]:
    """The sort key of an overload: its parameters' element types, narrowest first."""
    return tuple(_BREADTH.get(t.split("[")[0], 0) for _, t in entry.signature.params)


def _signature(entry: Entry) -> str:
    """``(x: float, a: NDArray[np.float64] = ...) -> float`` of ``entry``."""
    where = f"export {entry.name!r}"
    defaults = dict(entry.signature.defaults)
    params = [
        f"{p}: {python_type(parse_type(t, where))}" + (" = ..." if p in defaults else "")
        for p, t in entry.signature.params
    ]
    return f"({', '.join(params)}) -> {python_type(parse_type(entry.signature.result, where))}"


def _overloads(name: str, entries: list[Entry]) -> list[str]:
    """The stub of a function with several signatures: one ``@overload`` per distinct
    Python signature (f32 and f64 are both ``float``), narrowest first; a plain ``def``
    when only one is left. Overloads of arrays of different dtypes overlap for mypy
    (``NDArray`` of any dtype fits ``NDArray[Any]``), hence the ``ignore`` on all but the
    last (as typeshed does)."""
    signatures = list(dict.fromkeys(_signature(e) for e in sorted(entries, key=_breadth)))
    if len(signatures) == 1:
        return [f"def {name}{signatures[0]}: ...", ""]
    lines = []
    for i, signature in enumerate(signatures):
        ignore = "  # type: ignore[overload-overlap]" if i < len(signatures) - 1 else ""
        lines += ["@overload", f"def {name}{signature}: ...{ignore}", ""]
    return lines


def stub_text(manifest: Manifest) -> str:
    """The ``.pyi`` text of ``manifest``'s library: one ``def`` per export, in manifest
    order; ``@overload``s for a function with several signatures."""
    lines = [
        f'"""Stub of the gradc artifact of {manifest.module!r} (written by gradc build)."""',
        "",
        "from typing import overload",
        "",
        "import numpy as np",
        "from numpy.typing import NDArray",
        "",
        "",
    ]
    dispatched: dict[str, list[Entry]] = {}
    for entry in manifest.entries:
        if entry.dispatch:
            dispatched.setdefault(entry.dispatch, []).append(entry)
        else:
            lines += [f"def {entry.name}{_signature(entry)}: ...", ""]
    for name, entries in dispatched.items():
        lines += _overloads(name, entries)
    uses_overload = any("@overload" in line for line in lines)
    if not uses_overload:
        lines.remove("from typing import overload")
        lines.pop(2)  # the blank line after it
    return "\n".join(lines).rstrip("\n") + "\n"


def stub_path(artifact_dir: Path) -> Path:
    """Where :func:`write_stub` puts the stub of ``artifact_dir``: beside it, named after
    it (``build/m.gradc`` -> ``build/m.pyi``)."""
    return artifact_dir.with_suffix(".pyi")


def write_stub(artifact_dir: Path, manifest: Manifest) -> Path | None:
    """Write the stub of ``manifest`` to :func:`stub_path` atomically (a temporary file
    renamed into place); nothing when the file there already says the same. Returns the
    path written, or None.

    Raises:
        OSError: the folder cannot be written.
    """
    path, text = stub_path(artifact_dir), stub_text(manifest)
    try:
        if path.read_text(encoding="utf-8") == text:
            return None
    except (OSError, UnicodeDecodeError):
        pass
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
