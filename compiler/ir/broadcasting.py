"""NumPy's broadcasting errors, as compiled code and the interpreter report them.

Shapes broadcast as NumPy's do: aligned at the last axis, an axis of size 1 stretches,
any other two sizes must be equal. The check runs output axis by output axis from the
last, operand by operand in order; the first mismatch raises ValueError.

Messages are NumPy's ("operands could not be broadcast together with shapes (3,) (4,) ",
a scalar as ``()``, the output operand of an in-place operation last) when they need at
most :data:`~gradc.compiler.ir.ops.FORMAT_FIELDS` run-time sizes, the most an error record
carries (docs/abi.md); otherwise they name the two sizes that do not match and the axis,
counted from the end: "operands could not be broadcast together (sizes 3 and 4 at axis
-1)". The same holds for the output of an in-place operation ("non-broadcastable output
operand with shape (1,) doesn't match the broadcast shape (3,)").
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from gradc.compiler.ir.ops import FORMAT_FIELDS

Shape = tuple[int, ...]


def _shape_text(fields: Iterator[str], rank: int | None) -> str:
    if rank is None:
        return "()"
    parts = [next(fields) for _ in range(rank)]
    return "(" + ",".join(parts) + ("," if rank == 1 else "") + ")"


def _numbered() -> Iterator[str]:
    k = 0
    while True:
        yield f"{{{k}}}"
        k += 1


def mismatch_template(ranks: Sequence[int | None], axis: int) -> tuple[str, bool]:
    """The message template of operands of ``ranks`` (None: a scalar) that do not
    broadcast, found at ``axis`` (negative, from the end), and whether its fields are
    every size of every array operand in order (True) or the two sizes that differ."""
    if sum(r or 0 for r in ranks) <= FORMAT_FIELDS:
        fields = _numbered()
        shapes = "".join(_shape_text(fields, r) + " " for r in ranks)
        return f"operands could not be broadcast together with shapes {shapes}", True
    return f"operands could not be broadcast together (sizes {{0}} and {{1}} at axis {axis})", False


def output_template(rank: int, axis: int) -> tuple[str, bool]:
    """The message template when the broadcast shape (of ``rank`` axes) differs from the
    output operand's, found at ``axis``; fields: the output's sizes then the broadcast
    sizes (True), or the output's size and the broadcast size at ``axis``."""
    if 2 * rank <= FORMAT_FIELDS:
        fields = _numbered()
        out = _shape_text(fields, rank)
        shape = _shape_text(fields, rank)
        return (
            f"non-broadcastable output operand with shape {out} doesn't match the broadcast "
            f"shape {shape}",
            True,
        )
    return (
        f"non-broadcastable output operand with size {{0}} at axis {axis} doesn't match the "
        "broadcast size {1}",
        False,
    )


def broadcast_shape(shapes: Sequence[Shape | None]) -> Shape:
    """The broadcast shape of ``shapes`` (None: a scalar).

    Raises:
        ValueError: they do not broadcast (the module docstring's message).
    """
    rank = max((len(s) for s in shapes if s is not None), default=0)
    out = [1] * rank
    for axis in range(-1, -rank - 1, -1):
        size = 1
        for s in shapes:
            if s is None or len(s) < -axis:
                continue
            d = s[axis]
            if d != 1 and size != 1 and size != d:
                raise ValueError(_mismatch(shapes, axis, size, d))
            if d != 1:
                size = d
        out[axis] = size
    return tuple(out)


def _mismatch(shapes: Sequence[Shape | None], axis: int, size: int, d: int) -> str:
    template, full = mismatch_template([None if s is None else len(s) for s in shapes], axis)
    values = [x for s in shapes if s is not None for x in s] if full else [size, d]
    return template.format(*values)


def check_output(out: Shape, shape: Shape) -> None:
    """Check that the broadcast ``shape`` of an in-place operation (its output included)
    is the output's shape.

    Raises:
        ValueError: it is not (the module docstring's message).
    """
    for axis in range(-1, -len(out) - 1, -1):
        if out[axis] != shape[axis]:
            template, full = output_template(len(out), axis)
            values = [*out, *shape] if full else [out[axis], shape[axis]]
            raise ValueError(template.format(*values))
