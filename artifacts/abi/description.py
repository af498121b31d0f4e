"""ABI descriptions: what each object says about itself, checked against the manifest.

A manifest edited consistently (its blob hashes still valid) could otherwise make the
loader call an entry with the wrong C signature: a result type changed to a smaller one,
two entries' symbols swapped, an ``f64`` parameter relabelled ``i64`` — a crash or a
silently wrong number on the first call. So every object the code generator writes carries
its own description (docs/abi.md "ABI description"), a constant data symbol

    __gradc_abi_<SYMBOL>      (SYMBOL: the entry symbol, or the fast-call wrapper symbol)

defined in the same object as ``SYMBOL``, whose bytes are :func:`encode` of a map:

=========== ==========================================================================
``abi``     calling-convention version (:data:`~gradc.artifacts.abi.symbols.ABI_VERSION`)
``role``    ``"entry"`` (the C-ABI entry) or ``"wrapper"`` (its CPython fast-call wrapper)
``export``  the export's Python name
``symbol``  ``SYMBOL``
``calls``   the entry symbol (a wrapper calls it; an entry names itself)
``params``  ``[[name, type], ...]``: gradc type strings as in the manifest (dtype, rank
            and layout of arrays: ``f64[:, ::1]``)
``result``  the result's type string
``writes``  the array parameters the export writes, in parameter order
``target``  ``[triple, cpu, features]`` the object was generated for
=========== ==========================================================================

The loader (and the store, before it reuses an object of a previous build) reads the
description from the object's bytes (:mod:`gradc.artifacts.elf`) before linking and
compares it with the one the manifest entry implies (:func:`expected`); any difference
refuses the artifact with an :class:`~gradc.artifacts.errors.ArtifactError` naming the
export, the object and the field (:func:`check_object`).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgpack

from gradc.artifacts.abi.symbols import ABI_VERSION, description_symbol
from gradc.artifacts.elf import ElfError, ElfObject
from gradc.artifacts.errors import ArtifactError

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gradc.artifacts.manifest_records import AnyEntry as Entry
    from gradc.artifacts.manifest_records import AnyTarget as Target

__all__ = [
    "AbiMismatchError",
    "check_object",
    "describe",
    "encode",
    "expected",
]

#: Fields of a description, in the order a mismatch is reported, with their wording.
_FIELDS: tuple[tuple[str, str], ...] = (
    ("abi", "calling-convention version"),
    ("role", "role"),
    ("export", "export name"),
    ("symbol", "symbol"),
    ("calls", "entry symbol"),
    ("params", "parameters"),
    ("result", "result type"),
    ("writes", "written parameters"),
    ("target", "target"),
)


class AbiMismatchError(ArtifactError):
    """An object's ABI description disagrees with its manifest entry (or is missing)."""


def describe(
    *,
    role: str,
    export: str,
    symbol: str,
    calls: str,
    params: Sequence[tuple[str, str]],
    result: str,
    writes: Sequence[str],
    target: Sequence[str],
    abi: int = ABI_VERSION,
) -> dict[str, Any]:
    """The description of one object's ``symbol`` (see the module docstring for fields).

    ``role`` is ``"entry"`` or ``"wrapper"``; ``calls`` the entry symbol (``symbol`` itself
    for an entry); ``target`` is (triple, cpu, features).
    """
    if role not in ("entry", "wrapper"):
        raise ValueError(f"role must be 'entry' or 'wrapper', not {role!r}")
    return {
        "abi": int(abi),
        "role": role,
        "export": export,
        "symbol": symbol,
        "calls": calls,
        "params": [[str(n), str(t)] for n, t in params],
        "result": str(result),
        "writes": [str(w) for w in writes],
        "target": [str(t) for t in target],
    }


def encode(description: dict[str, Any]) -> bytes:
    """The bytes stored in the object: msgpack with sorted keys (byte-reproducible)."""
    return msgpack.packb(  # type: ignore[no-any-return]
        {k: description[k] for k in sorted(description)}, use_bin_type=True
    )


def _decode(data: bytes) -> dict[str, Any] | None:
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception:  # msgpack raises several unrelated exception types
        return None
    return value if isinstance(value, dict) else None


def expected(entry: Entry, target: Target, role: str = "entry") -> dict[str, Any]:
    """The description the manifest ``entry`` implies for its entry object, or for its
    fast-call wrapper object with ``role="wrapper"`` (the entry must have a wrapper).

    ``entry`` and ``target`` are one CPU variant's (``Manifest.for_variant``).
    """
    symbol = entry.symbol
    if role == "wrapper":
        if entry.wrapper is None:
            raise ValueError(f"export {entry.name!r} has no fast-call wrapper")
        symbol = entry.wrapper.symbol
    return describe(
        role=role,
        export=entry.name,
        symbol=symbol,
        calls=entry.symbol,
        params=entry.signature.params,
        result=entry.signature.result,
        writes=entry.signature.writes,
        target=(target.triple, target.cpu, target.features),
        abi=entry.abi_version,
    )


def _show(value: Any) -> str:
    """A field's value as a message shows it: params as ``(a: f64, n: i64)``."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(p, list) for p in value):
        return "(" + ", ".join(": ".join(str(x) for x in p) for p in value) + ")"
    return repr(value)


def _difference(want: dict[str, Any], found: dict[str, Any]) -> str | None:
    """The first field in which ``found`` (the object's) differs from ``want``, in words."""
    for key, words in _FIELDS:
        a, b = want[key], found.get(key)
        if a == b:
            continue
        if key == "params" and isinstance(b, list) and len(a) == len(b):
            for k, ((name, t), p) in enumerate(zip(a, b, strict=True)):
                if p == [name, t]:
                    continue
                if isinstance(p, list) and len(p) == 2 and p[0] == name:
                    return f"parameter {name!r}: the manifest says {t}, the object {_show(p[1])}"
                return f"parameter {k}: the manifest says {name}: {t}, the object {_show([p])}"
        return f"{words}: the manifest says {_show(a)}, the object {_show(b)}"
    extra = sorted(repr(k) for k in set(found) - set(want))
    if extra:
        return f"the object's description has unknown fields {extra}"
    return None


def check_object(
    where: str, entry: Entry, target: Target, code: bytes, role: str = "entry"
) -> None:
    """Check that object ``code`` (the entry object of ``entry``, or its wrapper object
    with ``role="wrapper"``) defines the symbol the manifest names and describes itself as
    the manifest says (:func:`expected`).

    Args:
        where: the artifact, for messages.
        entry, target: one CPU variant's manifest entry and target.
        code: the object's bytes (already sha256-verified).
        role: ``"entry"`` or ``"wrapper"``.

    Raises:
        AbiMismatchError: the object is not ELF, lacks the symbol or its description, or
            the description differs from the manifest; the message names the export, the
            object and what disagrees. The artifact must not be linked.
    """
    want = expected(entry, target, role)
    symbol = want["symbol"]
    path = entry.object if role == "entry" else entry.wrapper.object  # type: ignore[union-attr]
    what = "fast-call wrapper object" if role == "wrapper" else "object"
    prefix = f"{where}: export {entry.name!r}: its {what} {path}"
    refuse = "; the artifact is refused: rebuild it with `gradc build`"
    try:
        elf = ElfObject(code)
        symbols = elf.symbols()
        desc_symbol = symbols.get(description_symbol(symbol))
        raw = elf.symbol_bytes(desc_symbol) if desc_symbol is not None else None
    except ElfError as exc:
        raise AbiMismatchError(f"{prefix} is not a readable ELF object ({exc}){refuse}") from None
    if symbol not in symbols:
        raise AbiMismatchError(f"{prefix} does not define the manifest's symbol {symbol}{refuse}")
    if raw is None:
        raise AbiMismatchError(
            f"{prefix} carries no ABI description for {symbol} (built by a gradc older than "
            f"calling convention {ABI_VERSION}, or not by gradc){refuse}"
        )
    found = _decode(raw)
    if found is None:
        raise AbiMismatchError(f"{prefix} has an unreadable ABI description{refuse}")
    why = _difference(want, found)
    if why is not None:
        raise AbiMismatchError(f"{prefix} disagrees with the manifest: {why}{refuse}")
