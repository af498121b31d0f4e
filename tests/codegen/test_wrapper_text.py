"""Fast-call wrapper text generated once per signature (gradc.compiler.codegen.wrapper_text).

The oracle: the text of the wrapper's llvmlite module built for that export alone
(``described_wrapper_module``), which builds before the per-signature template did.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gradc.compiler.codegen.pywrapper import described_wrapper_module
from gradc.compiler.codegen.wrapper_text import wrapper_text

SIGNATURES = [
    ((("f64", False), ("i64", False)), "f64"),
    ((("bool", False), ("f32", False), ("i32", False)), "tuple[f64,tuple[i64,bool]]"),
    ((("f64[:]", True), ("f64[:, ::1]", False), ("f64", False)), "f64[:]"),
    ((("f32[::1]", False),), "none"),
    ((("tuple[f64,f64]", False),), "f64"),  # tuple parameters: no wrapper
]


def _signature(params: tuple[tuple[str, bool], ...], result: str) -> SimpleNamespace:
    return SimpleNamespace(
        params=[SimpleNamespace(type=t, writes=w) for t, w in params], result=result
    )


@pytest.mark.parametrize(("params", "result"), SIGNATURES)
@pytest.mark.parametrize("description", [b'\x89\xa3abi\x02"\\\x00', b""])
def test_wrapper_text_is_the_modules_text(
    params: tuple[tuple[str, bool], ...], result: str, description: bytes
) -> None:
    """Two exports of one signature (the second from the template the first made) get the
    text their own modules print, with their names and descriptions only."""
    signature = _signature(params, result)
    for symbol in ("gradc_poly_0123456789abcdef", "gradc_d_poly_fedcba9876543210"):
        module = described_wrapper_module(signature, symbol, description)
        expected = None if module is None else str(module)
        assert wrapper_text(signature, symbol, description) == expected
