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

Result types may also be ``tuple[f64, i64]`` or ``None``. Signature strings are
Numba-style: ``"f64(f64, i64)"`` — result, then parameters in parentheses.
"""

from __future__ import annotations

import ast

from gradc.compiler.ir.types import F32, F64, I1, I32, I64, NONE, TupleType, Type

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
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id in ("tuple", "Tuple")
    ):
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return TupleType(tuple(type_from_annotation(e) for e in elts))
    raise TypeSyntaxError(f"unsupported type annotation {ast.unparse(node)!r}")


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
            result = type_from_annotation(node.func)
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
