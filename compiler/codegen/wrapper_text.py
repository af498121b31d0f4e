"""The LLVM IR text of a fast-call wrapper, generated once per signature in a process.

Two exports of one signature (a primal and its ``grad``, ``poly`` and ``d_poly``) have
wrappers that differ only in the names they carry: the entry symbol they call, their own
symbol (:func:`~gradc.artifacts.abi.symbols.wrapper_symbol`) and their ABI description.
:func:`wrapper_text` builds the llvmlite module of a signature once
(:func:`~.pywrapper.wrapper_module` with placeholder names), prints it once, and gives
each export that text with its own names and description substituted: the same text
:func:`~.pywrapper.described_wrapper_module` prints, character for character
(tests/codegen/test_wrapper_text.py), so the same object. Building and printing a
wrapper's module costs ~8 M instructions (callgrind, ``poly(x: f64, n: i64)``'s); the
substitution a few thousand.
"""

from __future__ import annotations

import functools

from llvmlite import ir as ll

from gradc.artifacts.abi.symbols import ENTRY_PREFIX, wrapper_symbol
from gradc.compiler.codegen.emit import add_abi_description
from gradc.compiler.codegen.pywrapper import SignatureLike, wrapper_module

__all__ = ["wrapper_text"]

#: The entry symbol of the template: no export has it (an export's ends in ``_<16 hex>``).
_ENTRY = f"{ENTRY_PREFIX}_wrapped_entry_"
_WRAPPER = wrapper_symbol(_ENTRY)

#: (parameter type and ``writes`` flag per parameter, result type): all of a signature
#: that :func:`~.pywrapper.wrapper_module` reads.
_Shape = tuple[tuple[tuple[str, bool], ...], str]


@functools.lru_cache(maxsize=1)
def _placeholder_line() -> str:
    """The template's description line."""
    return _description_line(_WRAPPER, b"")


def _description_line(symbol: str, description: bytes) -> str:
    """The line that defines ``symbol``'s ABI description (``add_abi_description``)."""
    module = ll.Module(context=ll.Context())
    add_abi_description(module, symbol, description)
    (gv,) = module.globals.values()
    return str(gv)


@functools.lru_cache(maxsize=256)
def _template(shape: _Shape) -> str | None:
    """The wrapper text of signature ``shape`` with the placeholder names and an empty
    placeholder description; None for tuple parameters."""
    params, result = shape
    signature = _Signature(tuple(_Param(t, w) for t, w in params), result)
    module = wrapper_module(signature, _ENTRY)
    if module is None:
        return None
    add_abi_description(module, _WRAPPER, b"")
    return str(module)


class _Param:
    __slots__ = ("type", "writes")

    def __init__(self, type_: str, writes: bool) -> None:
        self.type, self.writes = type_, writes


class _Signature:
    __slots__ = ("params", "result")

    def __init__(self, params: tuple[_Param, ...], result: str) -> None:
        self.params, self.result = params, result


def wrapper_text(signature: SignatureLike, symbol: str, description: bytes) -> str | None:
    """The LLVM IR text of the fast-call wrapper of entry ``symbol``, with the ABI
    ``description`` of the wrapper (none when empty): ``str()`` of
    :func:`~.pywrapper.described_wrapper_module` ``(signature, symbol, description)``;
    None for tuple parameters (no wrapper)."""
    shape = (tuple((p.type, bool(p.writes)) for p in signature.params), signature.result)
    template = _template(shape)
    if template is None:
        return None
    placeholder = _placeholder_line()
    own = _description_line(wrapper_symbol(symbol), description) if description else ""
    text = template.replace(placeholder if own else placeholder + "\n", own)
    text = text.replace(f'"{_WRAPPER}"', f'"{wrapper_symbol(symbol)}"')
    return text.replace(f'"{_ENTRY}"', f'"{symbol}"')
