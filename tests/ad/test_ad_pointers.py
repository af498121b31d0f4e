"""Reverse mode where element addresses of the forward sweep are needed again in the
reverse sweep (issue: GC-aware passes × AD). The tape must carry (base, index), never a
derived pointer: the verifier refuses pointer-typed tape pops (rule 13), and here every
address the reverse sweep uses is rebuilt by ``elemaddr`` from a tracked array (a
parameter or a popped shadow) and integer indices. The gradients are checked against
central finite differences of the plain Python functions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradc.compiler.driver import build_module
from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument
from gradc.compiler.ir.parser import parse_module
from gradc.compiler.ir.types import I64, ArrayType, PointerType
from gradc.compiler.options import CompilerOptions
from tests.ad.corpus import _harness as H

KERNELS = Path(__file__).parent / "pointers" / "kernels.py"
PLAIN = H.load_plain(KERNELS)


@pytest.fixture(scope="module")
def lib(compile_module: Callable[[Path], Any]) -> Any:
    return compile_module(KERNELS)


@settings(max_examples=30, deadline=None)
@given(
    x=st.lists(st.floats(-2, 2), min_size=4, max_size=4).map(np.array),
    idx=st.lists(st.integers(-4, 3), min_size=0, max_size=6).map(lambda v: np.array(v, "i8")),
    w=st.floats(-2, 2),
)
def test_gather_scatter_gradient(lib: Any, x: np.ndarray, idx: np.ndarray, w: float) -> None:
    value = PLAIN.gather_scatter(x.copy(), idx, w)
    g_x, g_w = lib.d_gather_scatter(x, idx, w)
    fd_x, fd_w = H.fd_gradient(PLAIN.gather_scatter, [x, idx, w], [0, 2])
    H.assert_grad_matches_fd("gather_scatter", [g_x, g_w], [fd_x, fd_w], ["x", "w"], value)


@settings(max_examples=20, deadline=None)
@given(
    a=st.lists(st.floats(-2, 2), min_size=12, max_size=12).map(lambda v: np.array(v)),
    rows=st.lists(st.integers(0, 2), min_size=1, max_size=4).map(lambda v: np.array(v, "i8")),
    order=st.sampled_from(["C", "F"]),
)
def test_strided_rows_gradient(lib: Any, a: np.ndarray, rows: np.ndarray, order: str) -> None:
    a = np.asarray(a.reshape(3, 4), order=order)
    value = PLAIN.strided_rows(a, rows)
    (fd,) = H.fd_gradient(PLAIN.strided_rows, [a, rows], [0])
    H.assert_grad_matches_fd("strided_rows", [lib.d_strided_rows(a, rows)], [fd], ["a"], value)


@settings(max_examples=30, deadline=None)
@given(
    a=st.lists(st.floats(-2, 2), min_size=4, max_size=4).map(np.array),
    b=st.lists(st.floats(-2, 2), min_size=4, max_size=4).map(np.array),
    idx=st.lists(st.integers(-4, 3), min_size=0, max_size=7).map(lambda v: np.array(v, "i8")),
    c=st.floats(0.1, 2) | st.floats(-2, -0.1),
)
def test_array_phi_gradient(
    lib: Any, a: np.ndarray, b: np.ndarray, idx: np.ndarray, c: float
) -> None:
    """``src = a if c > 0 else b``, later ``src = t`` (a local array), read and written
    at data-dependent indices: each adjoint reaches the shadow of the array ``src`` held
    (b's, which is not differentiated, too: a stale one would corrupt a's)."""
    value = PLAIN.phi_gather(a.copy(), b.copy(), idx, c)
    g_a, g_c = lib.d_phi_gather(a.copy(), b.copy(), idx, c)  # it writes through src
    fd_a, fd_c = H.fd_gradient(PLAIN.phi_gather, [a, b, idx, c], [0, 3])
    H.assert_grad_matches_fd("phi_gather", [g_a, g_c], [fd_a, fd_c], ["a", "c"], value)


def _tracked(base: Any) -> bool:
    """A tracked array: a shadow parameter, a shadow popped off the tape, a layout cast
    of one, or a phi of those (the shadow of an array phi, chosen by a popped selector)."""
    seen: set[int] = set()
    work = [base]
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, ops.Phi):
            work.extend(v.operands())
        elif isinstance(v, ops.Cast):
            work.append(v.value)
        elif not isinstance(v, Argument | ops.TapePop):
            return False
    return True


def test_reverse_sweep_rebuilds_addresses_from_base_and_index() -> None:
    output = build_module(KERNELS, CompilerOptions())
    for entry in output.entries:
        if not entry.name.startswith("d_"):
            continue
        module = parse_module(entry.ir_text)
        rev = [f for name, f in module.functions.items() if ".rev." in name]
        assert rev, entry.name
        for fn in rev:
            # the forward sweep checked the indices: the reverse one wraps them without a
            # check, ``addr(elemoffset)``, never an ``elemaddr`` (which checks again)
            checked = [i for i in fn.instructions() if isinstance(i, ops.ElementAddr)]
            assert not checked, (fn.name, checked)
            addresses = [i for i in fn.instructions() if isinstance(i, ops.ElementAddr | ops.Addr)]
            assert addresses, fn.name  # the kernels' adjoints go through memory
            if fn.name.startswith("phi_gather.rev"):
                # the shadow of ``src`` is rebuilt from a popped selector
                assert any(isinstance(a.array, ops.Phi) for a in addresses), fn.name
            for inst in fn.instructions():
                if isinstance(inst, ops.TapePop):
                    assert not isinstance(inst.type, PointerType), (fn.name, inst)
            for addr in addresses:
                base = addr.array
                assert isinstance(base.type, ArrayType)
                assert _tracked(base), (fn.name, base)
                if isinstance(addr, ops.Addr):
                    offset = addr.offset
                    assert isinstance(offset, ops.ElementOffset), (fn.name, addr)
                    assert offset.array is base, (fn.name, addr)
                    indices = offset.indices
                else:
                    indices = addr.indices
                assert all(i.type == I64 for i in indices), (fn.name, addr)
