"""Types written by users: annotations (``x: f64``) and signature strings.

Accepted scalar spellings (annotations and signature strings alike):

============================  =========
spelling                      IR type
============================  =========
``f64 float float64 double``  ``f64``
``f32 float32``               ``f32``
``i64 int int64``             ``i64``
``i32 int32``                 ``i32``
``bool boolean bool_``        ``i1``
============================  =========

Arrays are written as NumPy-typed slices, as in Numba: ``f64[:]`` (1-D, any strides),
``f64[:, :]`` (2-D), ``f64[:, ::1]`` (2-D C-contiguous), ``f64[::1, :]`` (Fortran order).
Result types may also be ``tuple[f64, i64]`` or ``None``. Signature strings are
Numba-style: ``"f64[:](f64[:, :], i64)"`` — result, then parameters in parentheses;
``"void(f64[:], f64)"`` (Numba's spelling) declares a function without a result (``None``).
"""

from __future__ import annotations

import ast

from gradc.compiler.ir.types import (
    F32,
    F64,
    I1,
    I32,
    I64,
    NONE,
    ArrayType,
    ScalarType,
    TupleType,
    Type,
)

SCALAR_NAMES: dict[str, Type] = {
    "f64": F64,
    "float": F64,
    "float64": F64,
    "double": F64,
    "f32": F32,
    "float32": F32,
    "i64": I64,
    "int": I64,
    "int64": I64,
    "i32": I32,
    "int32": I32,
    "bool": I1,
    "boolean": I1,
    "bool_": I1,
}


class TypeSyntaxError(ValueError):
    """A type annotation or signature string gradc cannot read."""


def type_from_annotation(node: ast.expr) -> Type:
    """The IR type an annotation expression names.

    Accepts ``f64``, ``gradc.f64``, ``float``, ``tuple[f64, i64]``, ``None`` and string
    annotations holding any of these.

    Raises:
        TypeSyntaxError: anything else.
    """
    if isinstance(node, ast.Constant):
        if node.value is None:
            return NONE
        if isinstance(node.value, str):
            return parse_type_text(node.value)
    if isinstance(node, ast.Name) and node.id in SCALAR_NAMES:
        return SCALAR_NAMES[node.id]
    if isinstance(node, ast.Attribute) and node.attr in SCALAR_NAMES:
        return SCALAR_NAMES[node.attr]
    if isinstance(node, ast.Subscript) and _is_array_spec(node.slice):
        dtype = type_from_annotation(node.value)
        if not isinstance(dtype, ScalarType):
            raise TypeSyntaxError(f"array element type must be a scalar in {ast.unparse(node)!r}")
        return _array_type(dtype, node.slice)
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id in ("tuple", "Tuple")
    ):
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return TupleType(tuple(type_from_annotation(e) for e in elts))
    raise TypeSyntaxError(f"unsupported type annotation {ast.unparse(node)!r}")


def _is_array_spec(index: ast.expr) -> bool:
    axes = index.elts if isinstance(index, ast.Tuple) else [index]
    return bool(axes) and all(isinstance(a, ast.Slice) for a in axes)


def _array_type(dtype: ScalarType, index: ast.expr) -> ArrayType:
    """``f64[:, :]`` → any layout; ``f64[:, ::1]`` → C order; ``f64[::1, :]`` → F order."""
    axes = index.elts if isinstance(index, ast.Tuple) else [index]
    unit = []
    for axis in axes:
        assert isinstance(axis, ast.Slice)
        if axis.lower is not None or axis.upper is not None:
            raise TypeSyntaxError(f"array axes are written ':' or '::1', not {ast.unparse(axis)!r}")
        step = axis.step
        if step is None:
            unit.append(False)
        elif isinstance(step, ast.Constant) and step.value == 1:
            unit.append(True)
        else:
            raise TypeSyntaxError(f"array axes are written ':' or '::1', not {ast.unparse(axis)!r}")
    layout = "A"
    if unit[-1] and not any(unit[:-1]):
        layout = "C"
    elif unit[0] and len(unit) > 1 and not any(unit[1:]):
        layout = "F"
    elif any(unit):
        raise TypeSyntaxError("'::1' may mark only the first (F order) or last (C order) axis")
    return ArrayType(dtype, len(axes), layout)


def parse_type_text(text: str) -> Type:
    """Parse a type written as text (``"f64"``, ``"tuple[f64, i64]"``).

    Raises:
        TypeSyntaxError: the text is not a type gradc knows.
    """
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise TypeSyntaxError(f"invalid type {text!r}") from None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        raise TypeSyntaxError(f"invalid type {text!r}")
    return type_from_annotation(node)


def parse_signature(text: str) -> tuple[Type | None, list[Type]]:
    """Parse a Numba-style signature string ``"result(param, ...)"``.

    Returns:
        (result type, or None when the string is just ``"(param, ...)"``; param types).

    Raises:
        TypeSyntaxError: the string is not a signature.
    """
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise TypeSyntaxError(f"invalid signature string {text!r}") from None
    if isinstance(node, ast.Call) and not node.keywords:
        try:
            void = isinstance(node.func, ast.Name) and node.func.id == "void"
            result = NONE if void else type_from_annotation(node.func)
            params = [type_from_annotation(a) for a in node.args]
        except TypeSyntaxError as exc:
            raise TypeSyntaxError(f"invalid signature string {text!r}: {exc}") from None
        return result, params
    if isinstance(node, ast.Tuple):
        try:
            return None, [type_from_annotation(a) for a in node.elts]
        except TypeSyntaxError as exc:
            raise TypeSyntaxError(f"invalid signature string {text!r}: {exc}") from None
    raise TypeSyntaxError(f"invalid signature string {text!r}: expected 'result(params)'")
