"""Whole-array elementwise operations: a NumPy ufunc applied to broadcast operands.

``%r = elementwise add(%a, %s) : array[f64,2,C]`` is ``np.add(a, s)``: the operands are
arrays (any layout) and scalars, broadcast together as NumPy broadcasts (shapes aligned
at the last axis; an axis of size 1 stretches; other mismatches raise ValueError
"operands could not be broadcast together with shapes (3,) (4,) "); the result is a new
C-contiguous array (or, for ``elementwise_into``, written into an existing one). Which
scalar operation each element gets is the attribute ``fn``, a name of
:data:`gradc.compiler.ir.ufuncs.UFUNCS` (NumPy's semantics: nothing raises but
broadcasting, allocation and integer ``power`` with a negative exponent).

Operand types: every scalar operand has the common type (inference converted it, as NEP
50 converts a Python scalar); array operands may have any dtype, converted element by
element. These operations never reach AD or codegen: the ``lower-arrays`` pass
(passes/arrays/) replaces each by loop nests (``LOWERED_TO_LOOPS``).
"""

from __future__ import annotations

from typing import ClassVar, final

from gradc.compiler.ir.core import Instruction, Value, VerifyContext
from gradc.compiler.ir.opclass import operation
from gradc.compiler.ir.ops.checks import array_operand, front_end_only
from gradc.compiler.ir.types import ArrayType, ScalarType


def _operand_types(
    ctx: VerifyContext, inst: Instruction, fn: str, args: tuple[Value, ...]
) -> ScalarType | str:
    """The result element type of ``fn`` over ``args``, or the verifier's reason."""
    from gradc.compiler.ir import ufuncs  # ufuncs builds with the builder, which imports ops

    u = ufuncs.UFUNCS.get(fn)
    if u is None:
        return f"{inst.OPNAME}: unknown ufunc {fn!r}"
    if len(args) != u.arity:
        return f"{inst.OPNAME} {fn} takes {u.arity} operand(s), got {len(args)}"
    elements: list[ScalarType] = []
    for a in args:
        t = a.type
        if isinstance(t, ArrayType):
            elements.append(t.dtype)
        elif isinstance(t, ScalarType):
            elements.append(t)
        else:
            return (
                f"{inst.OPNAME} operand {ctx.show(a)} has type {t}, expected an array or a scalar"
            )
    if not any(isinstance(a.type, ArrayType) for a in args):
        return f"{inst.OPNAME} {fn} has no array operand"
    common = ufuncs.common_type(fn, elements)
    for k, a in enumerate(args):
        if isinstance(a.type, ScalarType) and not (u.condition_first and k == 0):
            if a.type != common:
                return (
                    f"{inst.OPNAME} scalar operand {ctx.show(a)} has type {a.type}, expected "
                    f"the common type {common}"
                )
    result = u.loop(common)
    if isinstance(result, str):
        return f"{inst.OPNAME} {fn}: {result}"
    return result


def _rank(args: tuple[Value, ...]) -> int:
    return max(a.type.ndim for a in args if isinstance(a.type, ArrayType))


@final
@operation
class Elementwise(Instruction):
    """``np.<fn>(*args)``: a new C-contiguous array of the broadcast shape of ``args``.

    Raises ValueError (NumPy's broadcasting message), MemoryError, and NumPy's
    ValueError of integer ``power`` with a negative exponent.
    """

    OPNAME: ClassVar[str] = "elementwise"
    OPERANDS: ClassVar[tuple[str, ...]] = ("args",)
    ATTRS: ClassVar[tuple[str, ...]] = ("fn",)
    MAY_RAISE: ClassVar[bool] = True
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    fn: str
    args: tuple[Value, ...]

    def verify_(self, ctx: VerifyContext) -> str | None:
        """A known ufunc of its arity; arrays and scalars of the common type, one array
        at least; result ``array[loop(common), max rank, C]``."""
        dtype = _operand_types(ctx, self, self.fn, self.args)
        if isinstance(dtype, str):
            return dtype
        expected = ArrayType(dtype, _rank(self.args), "C")
        if self.type != expected:
            return f"elementwise {self.fn} result type is {self.type}, expected {expected}"
        return None


@final
@operation
class ElementwiseInto(Instruction):
    """``np.<fn>(*args, out=out)``: the in-place operators (``a += b`` is
    ``elementwise_into add %a, (%a, %b)``).

    The broadcast shape of ``args`` with ``out``'s must be ``out``'s shape, else
    ValueError("non-broadcastable output operand with shape (3,) doesn't match the
    broadcast shape (2,3)"); each result element is converted to ``out``'s dtype (the
    'same_kind' rule, checked by inference). An operand that shares memory with ``out``
    other than element for element is read as if copied first (NumPy's overlap rule).
    """

    OPNAME: ClassVar[str] = "elementwise_into"
    OPERANDS: ClassVar[tuple[str, ...]] = ("out", "args")
    ATTRS: ClassVar[tuple[str, ...]] = ("fn",)
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    LOWERED_TO_LOOPS: ClassVar[bool] = True
    fn: str
    out: Value
    args: tuple[Value, ...]

    def verify_(self, ctx: VerifyContext) -> str | None:
        """``out`` an array of rank >= every operand's, a dtype the result converts to;
        no result."""
        out = array_operand(ctx, self, self.out)
        if isinstance(out, str):
            return out
        dtype = _operand_types(ctx, self, self.fn, self.args)
        if isinstance(dtype, str):
            return dtype
        if _rank(self.args) > out.ndim:
            return f"elementwise_into operands have more axes than {ctx.show(self.out)}: {out}"
        if (dtype.is_float and not out.dtype.is_float) or (not dtype.is_bool and out.dtype.is_bool):
            return f"elementwise_into {self.fn}: cannot store {dtype} into {out}"
        return None


@final
@operation
class InPlace(Instruction):
    """The value of variable ``target`` after ``target op= ...``, whose ``target op ...``
    the front end computed as ``value``: for an array ``target``, NumPy writes the
    result into it (``value`` becomes an ``elementwise_into``) and the variable still
    names it; otherwise the variable is ``value``."""

    OPNAME: ClassVar[str] = "inplace"
    OPERANDS: ClassVar[tuple[str, ...]] = ("target", "value")
    MAY_RAISE: ClassVar[bool] = True
    HAS_SIDE_EFFECTS: ClassVar[bool] = True
    target: Value
    value: Value

    def verify_(self, ctx: VerifyContext) -> str | None:
        """Never in typed IR."""
        return front_end_only(self)
