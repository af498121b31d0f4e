"""``np.einsum(subscripts, *operands)`` for a fixed list of subscripts
(:data:`EINSUM_FORMS`), each written with operations that have their types, loops and
derivatives already; any other subscripts string is a compile error naming it.

Each operand's rank is checked at compile time against its subscripts (an identity
``transpose``, a free view: "axes don't match array" otherwise). The forms:

* ``ij,j->i``, ``ij,jk->ik``, ``i,i->``, ``bij,bjk->bik``: ``np.matmul`` (the promoted
  dtype, bools OR of ANDs, as einsum's; a summed axis of length 1 against a longer one
  is matmul's ValueError, where einsum broadcasts it);
* ``ij->ji``: the transposed view (einsum also returns a view);
* ``ii->``: ``np.diag(a) @ np.ones_like(np.diag(a))`` (einsum keeps the dtype, where
  ``np.trace`` widens ints), after ``a @ a[:, :0]``, which checks that ``a`` is square
  with matmul's ValueError;
* ``ij,ij->``: ``(a * b).ravel() @ np.ones_like(...)`` (the dtype of ``a * b``; shapes
  broadcast as einsum's);
* ``i,j->ij``: ``a[:, None] * b[None, :]``;
* ``ij,ij->i`` (``->j``: of the transposes), ``ij->i`` (``->j``): each row of ``a * b``
  (of ``a``) dotted with ones, a batched ``np.matmul`` ``p[:, None, :] @
  np.ones_like(p)[:, :, None]`` (the dtype kept, as einsum's);
* ``ij,kj->ik``, ``ij,ik->jk``, ``i,ij->j``, ``ij,i->j``: ``np.matmul`` of the operands
  or their transposes.

Subscripts are matched after renaming their letters in order of first appearance
(``'bi,bi->b'`` is ``'ij,ij->i'``, ``'nd,md->nm'`` is ``'ij,kj->ik'``).

Shape errors are ValueErrors with matmul's or broadcasting's message, not einsum's
("operands could not be broadcast together with remapped shapes ...").
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Value
from gradc.compiler.ir.ops.views import FULL_SLICE, INT_ITEM, NEW_ITEM
from gradc.compiler.ir.types import I64

if TYPE_CHECKING:
    from gradc.compiler.frontend.lower_calls import CallLowering

#: The subscripts gradc compiles, and what each computes.
EINSUM_FORMS: dict[str, str] = {
    "ij,j->i": "matrix-vector product",
    "ij,jk->ik": "matrix product",
    "i,i->": "dot product",
    "ij->ji": "transpose (a view)",
    "ii->": "trace, in the dtype",
    "ij,ij->": "sum of the products",
    "i,j->ij": "outer product",
    "bij,bjk->bik": "batched matrix product",
    "ij,ij->i": "row-wise dot products",
    "ij,ij->j": "column-wise dot products",
    "ij->i": "row sums, in the dtype",
    "ij->j": "column sums, in the dtype",
    "ij,kj->ik": "a @ b.T",
    "ij,ik->jk": "a.T @ b",
    "i,ij->j": "vector-matrix product",
    "ij,i->j": "a.T @ v",
}


def _ones_dot(low: CallLowering, flat: Value) -> Value:
    """``flat @ np.ones_like(flat)``: the sum of a 1-D array in its own dtype."""
    ones = low.b.insert(ops.Allocate(ops.AllocKind.ONES, "", None, flat, None))
    return low.b.insert(ops.Contract(ops.ContractKind.MATMUL, flat, ones))


def _view(low: CallLowering, array: Value, items: tuple[str, ...], *bounds: int) -> Value:
    args = tuple(low.b.const(x, I64) for x in bounds)
    return low.b.insert(ops.BasicIndex(array, args, items))


def _row_sums(low: CallLowering, p: Value) -> Value:
    """``(p[:, None, :] @ np.ones_like(p)[:, :, None])[:, 0, 0]``: each row of the 2-D
    ``p`` summed in its dtype."""
    b = low.b
    ones = b.insert(ops.Allocate(ops.AllocKind.ONES, "", None, p, None))
    rows = _view(low, p, (FULL_SLICE, NEW_ITEM, FULL_SLICE))
    columns = _view(low, ones, (FULL_SLICE, FULL_SLICE, NEW_ITEM))
    sums = b.insert(ops.Contract(ops.ContractKind.MATMUL, rows, columns))
    return _view(low, sums, (FULL_SLICE, INT_ITEM, INT_ITEM), 0, 0)


def _canonical(form: str) -> str:
    """``form`` with its letters renamed ``i, j, k, ...`` in order of first appearance."""
    names: dict[str, str] = {}
    for c in form:
        if c.isalpha() and c not in names:
            names[c] = "ijkbcdefgh"[len(names)] if len(names) < 10 else c
    return "".join(names.get(c, c) for c in form)


def _transposed(low: CallLowering, form: str, x: Value, y: Value | None) -> Value | None:
    """The forms written with transposes, matmul and :func:`_row_sums`; None for others."""
    b = low.b
    if form in ("ij->j", "ij,ij->j", "ij,ik->jk", "ij,i->j"):
        x = b.insert(ops.Transpose(x, ()))
    if form in ("ij,ij->j", "ij,kj->ik"):
        assert y is not None
        y = b.insert(ops.Transpose(y, ()))
    if form in ("ij->i", "ij->j"):
        return _row_sums(low, x)
    if form in ("ij,ij->i", "ij,ij->j"):
        return _row_sums(low, b.insert(ops.NumpyCall("multiply", (x, y))))  # type: ignore[arg-type]
    if form in ("ij,kj->ik", "ij,ik->jk", "i,ij->j", "ij,i->j"):
        return b.insert(ops.Contract(ops.ContractKind.MATMUL, x, y))  # type: ignore[arg-type]
    return None


#: Each form's canonical spelling -> the form.
_CANONICAL = {_canonical(form): form for form in EINSUM_FORMS}


def _compute(low: CallLowering, form: str, x: Value, y: Value | None) -> Value:
    b = low.b
    done = _transposed(low, form, x, y)
    if done is not None:
        return done
    if form == "ij->ji":
        return b.insert(ops.Transpose(x, ()))
    if form == "ii->":
        b.insert(ops.Contract(ops.ContractKind.MATMUL, x, _view(low, x, (FULL_SLICE, "s010"), 0)))
        return _ones_dot(low, b.insert(ops.Diag(x, b.const(0, I64))))
    assert y is not None
    if form == "ij,ij->":
        product = b.insert(ops.NumpyCall("multiply", (x, y)))
        return _ones_dot(low, b.insert(ops.Reshape(product, (b.const(-1, I64),), "", ravel=True)))
    if form == "i,j->ij":
        column = _view(low, x, (FULL_SLICE, NEW_ITEM))
        row = _view(low, y, (NEW_ITEM, FULL_SLICE))
        return b.insert(ops.NumpyCall("multiply", (column, row)))
    return b.insert(ops.Contract(ops.ContractKind.MATMUL, x, y))


def einsum_call(low: CallLowering, e: ast.Call) -> Value:
    """``np.einsum('ij,jk->ik', a, b)`` and the other :data:`EINSUM_FORMS`.

    Raises:
        CompileError: subscripts that are not a constant string of the list, keywords,
            a wrong number of operands.
    """
    if e.keywords:
        raise low.src.error("np.einsum() takes no keyword arguments here", e.keywords[0].value)
    node = e.args[0] if e.args else None
    if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
        raise low.src.error("np.einsum() subscripts must be a constant string", node or e)
    form = _CANONICAL.get(_canonical(node.value.replace(" ", "")), "")
    if form not in EINSUM_FORMS:
        raise low.src.error(
            f"np.einsum() subscripts {node.value!r} are not supported (only "
            f"{', '.join(repr(f) for f in EINSUM_FORMS)}); write the product with @, "
            "np.sum or broadcasting",
            node,
        )
    inputs = form.split("->")[0].split(",")
    if len(e.args) - 1 != len(inputs):
        raise low.src.error(
            f"np.einsum({form!r}) takes {len(inputs)} operand(s), {len(e.args) - 1} given", e
        )
    values = [low.expr(a) for a in e.args[1:]]
    with low.b.at(low.src.loc(e)):
        checked = [  # the rank each operand's subscripts name
            low.b.insert(ops.Transpose(v, tuple(range(len(labels)))))
            for v, labels in zip(values, inputs, strict=True)
        ]
        return _compute(low, form, checked[0], checked[1] if len(checked) > 1 else None)
