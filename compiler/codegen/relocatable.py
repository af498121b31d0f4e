"""The ``relocatable`` check: emitted objects hold no data of the compiling process.

Precompiled objects that embedded pointers, counters or object ids of the process that
built them crashed when loaded elsewhere (DESIGN.md §7, lesson 1). After emission, each
object is read back (``gradc.artifacts.loader.elfobj``, the loader's own bounds-checked
reader) and checked:

* every relocation refers to a named symbol: one the object defines, a gradc runtime
  function (``gradc_rt1_*``, ``gradc_rt2_*``), or a libm/libc function on the allow-list — never to an
  absolute address (symbol 0 with an absolute relocation type);
* defined symbol names follow gradc's content-derived scheme: no hexadecimal addresses
  (``0x...``) and no long decimal runs (object ids, counters);
* the optimised LLVM IR converts no integer constant to a pointer (``inttoptr``).

A violation raises :class:`RelocatableError` naming the object, the symbol or relocation,
and the rule; the build then fails and writes nothing.
"""

from __future__ import annotations

import re

from gradc._dataclass import dataclass
from gradc.artifacts.abi.symbols import RUNTIME_PREFIXES
from gradc.artifacts.elf import ElfError
from gradc.artifacts.loader.elfobj import SHN_UNDEF, SHT_RELA, SHT_SYMTAB, RelocatableObject
from gradc.compiler.ir.ops import MATH_FUNCTIONS

#: The libm functions lowered ``math`` calls use: ``MathFn.libm``, or the function of
#: the LLVM intrinsic ``llvm.<name>`` (LLVM lowers it to a call of ``name``).
_MATH_LIBRARY = frozenset(
    f.libm or f.name for f in MATH_FUNCTIONS.values() if not (f.internal or f.returns_bool)
)

#: External functions compiled code may call (resolved by name in the loading process).
LIBRARY_SYMBOLS: frozenset[str] = frozenset(
    {
        # libm (sincos and exp10: LLVM's combinations of sin+cos and pow(10, x))
        "sincos",
        "sincosf",
        "exp10",
        "exp10f",
        *_MATH_LIBRARY,
        # other libm functions LLVM's simplifications of those calls may produce
        "fmod",
        "round",
        "exp2",
        "ldexp",
        "frexp",
        "modf",
        "fmin",
        "fmax",
        "cbrt",
        "sinf",
        "cosf",
        "expf",
        "logf",
        "powf",
        "sqrtf",
        "fmodf",
        # floor(fpext x) -> fpext floorf(x): NumPy's rounding of float32 scalars
        "floorf",
        "ceilf",
        "truncf",
        # llvm.rint of the internal math.rint (np.rint, np.round), and of float32
        "rint",
        "rintf",
        # libc
        "malloc",
        "calloc",
        "realloc",
        "free",
        "posix_memalign",
        "aligned_alloc",
        "madvise",  # the runtime's huge-page hint for big blocks
        "memcpy",
        "memmove",
        "memset",
        "abort",
    }
)

# x86-64 relocation types that store an absolute address (R_X86_64_64, _32, _32S).
_ABSOLUTE_X86_64 = {1, 10, 11}

_SUSPICIOUS_NAME = re.compile(r"0x[0-9a-fA-F]+|\d{9,}")
_KEY_SUFFIX = re.compile(r"_[0-9a-f]{16}$")
_INTTOPTR_CONSTANT = re.compile(r"inttoptr\s*\(\s*i64\s+-?\d+")


class RelocatableError(Exception):
    """An emitted object is not free of the compiling process's data."""


@dataclass(frozen=True)
class Relocation:
    """One relocation of an object, for ``gradc inspect --relocations``.

    Attributes:
        section: the relocated section (``.rela.text``).
        offset: byte offset in that section.
        type: the ELF relocation type number.
        symbol: the symbol name (``""`` for none).
        defined: the symbol is defined in the object itself.
    """

    section: str
    offset: int
    type: int
    symbol: str
    defined: bool


def _parsed(object_code: bytes) -> RelocatableObject:
    try:
        return RelocatableObject(object_code)
    except ElfError as exc:
        raise RelocatableError(f"not an ELF object: {exc}") from None


def relocations(object_code: bytes) -> list[Relocation]:
    """Every relocation of an ELF relocatable object, in section and table order.

    Raises:
        RelocatableError: the bytes are not an ELF object.
    """
    return _relocations(_parsed(object_code))


def _relocations(obj: RelocatableObject) -> list[Relocation]:
    by_target = {s.info: s.name for s in obj.sections if s.type == SHT_RELA}
    out: list[Relocation] = []
    for rel in obj.relocations:
        sym = obj.symbols[rel.symbol]
        defined = sym.shndx != SHN_UNDEF
        out.append(Relocation(by_target[rel.target], rel.offset, rel.type, sym.name, defined))
    return out


#: ``STT_OBJECT`` and ``STT_FUNC``: the symbol kinds :func:`defined_symbols` lists.
_DATA_OR_CODE = (1, 2)


def defined_symbols(object_code: bytes) -> list[str]:
    """Names of the symbols an object defines (functions and data, no section symbols).

    Raises:
        RelocatableError: the bytes are not an ELF object.
    """
    return _defined_symbols(_parsed(object_code))


def _defined_symbols(obj: RelocatableObject) -> list[str]:
    if not any(s.type == SHT_SYMTAB for s in obj.sections):
        return []
    return [
        sym.name
        for sym in obj.symbols
        if sym.name and sym.shndx != SHN_UNDEF and sym.kind in _DATA_OR_CODE
    ]


def check_object(
    object_code: bytes,
    what: str,
    llvm_text: str = "",
    *,
    extra_symbols: frozenset[str] = frozenset(),
) -> None:
    """Check one emitted object (see the module docstring).

    Args:
        object_code: the ELF relocatable object.
        what: a name for messages (the export or ``"runtime"``).
        llvm_text: the optimised LLVM IR it came from, checked for ``inttoptr``.
        extra_symbols: further external symbols this object may use (a fast-call
            wrapper: CPython's C API functions it imports by name, and its entry).

    Raises:
        RelocatableError: a rule is broken; the message names the rule and the culprit.
    """
    obj = _parsed(object_code)  # once for both checks
    for rel in _relocations(obj):
        if not rel.symbol:
            if rel.type in _ABSOLUTE_X86_64:
                raise RelocatableError(
                    f"{what}: relocation at {rel.section}+{rel.offset:#x} is an absolute "
                    "address with no symbol"
                )
            continue
        if rel.defined or rel.symbol.startswith(".L"):
            continue
        if rel.symbol.startswith(RUNTIME_PREFIXES) or rel.symbol in LIBRARY_SYMBOLS:
            continue
        if rel.symbol in extra_symbols:
            continue
        raise RelocatableError(
            f"{what}: relocation against '{rel.symbol}', which is neither defined in the "
            "object, a gradc runtime function, nor an allowed libm/libc function"
        )
    for name in _defined_symbols(obj):
        # the 16 hex digits of an export's cache key are content, not an address
        if _SUSPICIOUS_NAME.search(_KEY_SUFFIX.sub("", name)):
            raise RelocatableError(
                f"{what}: symbol '{name}' looks like it holds an address or a process-local counter"
            )
    match = _INTTOPTR_CONSTANT.search(llvm_text)
    if match:
        raise RelocatableError(
            f"{what}: LLVM IR converts an integer constant to a pointer ('{match.group(0)}')"
        )
