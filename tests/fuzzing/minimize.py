"""Reduce a failing module while it keeps failing the same way (delta debugging on the AST).

``minimize(source, still_fails)`` applies one-step reductions greedily, first coarse
then fine, and keeps each one for which ``still_fails(new_source)`` holds (the caller
checks that the new module still has the same :meth:`Report.key`):

1. drop a top-level function or derivative declaration;
2. drop a statement of any body (an empty body becomes ``pass``), drop an ``else``;
3. replace an ``if``/``for``/``while`` by its body (or an ``if`` by its ``else``);
4. drop a name from a ``wrt`` tuple (in every declaration of that export and wrt set);
5. replace an expression by one of its operands (``a + b`` -> ``a``, ``f(a)`` -> ``a``,
   ``x if c else y`` -> ``x``) or a float operand by ``1.0``.

A reduction that makes the module invalid is rejected like any other by the predicate
(it then fails with another class: a compile error). The ``FUZZ`` table and the imports
are never touched; at the end the table is pruned to the remaining exports.
"""

from __future__ import annotations

import ast
import time
import warnings
from collections.abc import Callable, Iterator

Mutation = Callable[[], None]


def _is_fixed(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return True
    return isinstance(stmt, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "FUZZ" for t in stmt.targets
    )


def _mutations(tree: ast.Module, stage: int) -> Iterator[tuple[str, Mutation]]:
    """The candidate reductions of ``tree`` for one stage, in a deterministic order."""
    if stage == 0:
        for i, stmt in enumerate(tree.body):
            if not _is_fixed(stmt):
                yield f"drop top-level {i}", _deleter(tree.body, i)
        return
    for node in ast.walk(tree):
        if stage == 1:
            for fld in ("body", "orelse", "finalbody"):
                body = getattr(node, fld, None)
                if not isinstance(body, list) or not body or not isinstance(body[0], ast.stmt):
                    continue
                if node is tree:
                    continue
                if fld == "orelse" and not isinstance(node, ast.Module):
                    yield "drop else", _setter(node, fld, [])
                for i in range(len(body) - 1, -1, -1):
                    if (
                        isinstance(node, ast.While)
                        and fld == "body"
                        and i == 0
                        and isinstance(body[0], ast.AugAssign)
                    ):
                        continue  # the trip counter: dropping it makes the loop endless
                    if not isinstance(body[i], ast.Pass):
                        yield f"drop stmt {i}", _deleter(body, i)
        elif stage == 2:
            for fld in ("body", "orelse"):
                body = getattr(node, fld, None)
                if not isinstance(body, list):
                    continue
                for i, stmt in enumerate(body):
                    if isinstance(stmt, ast.If | ast.For | ast.While):
                        yield "flatten", _replacer(body, i, stmt.body)
                        if isinstance(stmt, ast.If) and stmt.orelse:
                            yield "flatten else", _replacer(body, i, stmt.orelse)
        elif stage == 3:
            if (
                isinstance(node, ast.keyword)
                and node.arg == "wrt"
                and isinstance(node.value, ast.Tuple | ast.List)
            ):
                elts = node.value.elts
                if len(elts) > 1:
                    for i in range(len(elts)):
                        yield "drop wrt", _wrt_dropper(tree, node, i)
        elif stage == 4:
            if isinstance(node, ast.Call) and _is_gradc(node.func):
                continue
            if isinstance(node, ast.While):
                continue  # its test bounds the trip count
            for fld, value in ast.iter_fields(node):
                if fld in _KEEP_FIELDS or (isinstance(node, ast.Attribute) and fld == "value"):
                    continue
                if isinstance(value, ast.expr):
                    for sub in _simpler(value):
                        yield "simplify", _setter(node, fld, sub)
                elif isinstance(value, list):
                    for i, item in enumerate(value):
                        if isinstance(item, ast.expr) and not isinstance(
                            node, ast.Tuple | ast.Dict
                        ):
                            for sub in _simpler(item):
                                yield "simplify", _item_setter(value, i, sub)


_KEEP_FIELDS = frozenset({"annotation", "returns", "func", "decorator_list", "target", "targets"})


def _is_gradc(func: ast.expr) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "gradc"
    )


def _simpler(e: ast.expr) -> list[ast.expr]:
    if isinstance(e, ast.BinOp):
        return [e.left, e.right, ast.Constant(1.0)]
    if isinstance(e, ast.UnaryOp):
        return [e.operand]
    if isinstance(e, ast.IfExp):
        return [e.body, e.orelse]
    if isinstance(e, ast.BoolOp):
        return list(e.values)
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in ("export",):
        return []
    if isinstance(e, ast.Call) and not (
        isinstance(e.func, ast.Attribute)
        and isinstance(e.func.value, ast.Name)
        and e.func.value.id == "gradc"
    ):
        return [a for a in e.args if not isinstance(a, ast.Constant | ast.Tuple)] + [
            ast.Constant(1.0)
        ]
    if isinstance(e, ast.Compare) and len(e.comparators) > 1:
        return [ast.Compare(e.left, e.ops[:1], e.comparators[:1])]
    if isinstance(e, ast.Subscript | ast.Name) and isinstance(getattr(e, "ctx", None), ast.Load):
        return [ast.Constant(1.0)]
    return []


def _deleter(body: list[ast.stmt], i: int) -> Mutation:
    def run() -> None:
        del body[i]
        if not body:
            body.append(ast.Pass())

    return run


def _replacer(body: list[ast.stmt], i: int, new: list[ast.stmt]) -> Mutation:
    def run() -> None:
        body[i : i + 1] = new

    return run


def _setter(node: ast.AST, fld: str, value: object) -> Mutation:
    return lambda: setattr(node, fld, value)


def _item_setter(items: list[ast.expr], i: int, value: ast.expr) -> Mutation:
    def run() -> None:
        items[i] = value

    return run


def _wrt_dropper(tree: ast.Module, kw: ast.keyword, i: int) -> Mutation:
    old = ast.dump(kw.value)

    def run() -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "wrt" and ast.dump(node.value) == old:
                assert isinstance(node.value, ast.Tuple | ast.List)
                node.value = ast.Tuple(
                    [e for j, e in enumerate(node.value.elts) if j != i], ast.Load()
                )

    return run


def prune_fuzz_table(source: str) -> str:
    """Drop ``FUZZ`` entries of exports the module no longer has."""
    tree = ast.parse(source)
    names = {s.name for s in tree.body if isinstance(s, ast.FunctionDef)}
    for stmt in tree.body:
        if _is_fixed(stmt) and isinstance(stmt, ast.Assign) and stmt.targets[0].id == "FUZZ":  # type: ignore[attr-defined]
            table = ast.literal_eval(stmt.value)
            stmt.value = ast.parse(
                repr({k: v for k, v in table.items() if k in names}), mode="eval"
            ).body
    return ast.unparse(tree) + "\n"


def minimize(
    source: str,
    still_fails: Callable[[str], bool],
    *,
    max_checks: int = 300,
    max_seconds: float = 600.0,
) -> tuple[str, int]:
    """The smallest variant of ``source`` found for which ``still_fails`` holds.

    Returns the reduced source (``ast.unparse`` formatting) and the number of checks
    made. Stops after ``max_checks`` predicate calls or ``max_seconds``.
    """
    best = ast.unparse(ast.parse(source)) + "\n"
    checks = 0
    deadline = time.monotonic() + max_seconds
    for stage in (0, 1, 2, 0, 1, 3, 4, 1):
        progress = True
        while progress:
            progress = False
            k = 0
            while True:
                if checks >= max_checks or time.monotonic() > deadline:
                    return prune_fuzz_table(best), checks
                tree = ast.parse(best)
                cands = list(_mutations(tree, stage))
                if k >= len(cands):
                    break
                cands[k][1]()
                try:
                    candidate = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        compile(candidate, "<candidate>", "exec")
                except (SyntaxError, ValueError, TypeError, AttributeError):
                    k += 1
                    continue
                if candidate == best:
                    k += 1
                    continue
                checks += 1
                if still_fails(candidate):
                    best = candidate
                    progress = True
                    # the same position now holds the next candidate
                else:
                    k += 1
    return prune_fuzz_table(best), checks


__all__ = ["minimize", "prune_fuzz_table"]
