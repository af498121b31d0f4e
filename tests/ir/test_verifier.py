"""Verifier: for each invariant, a function that passes and one that fails with its message.

Most cases are IR text. Violations the parser cannot express (a value of another function,
a branch to a block outside the function, broken back-links) are made by editing parsed IR.
"""

from __future__ import annotations

import textwrap

import pytest

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument, Block, Function
from gradc.compiler.ir.parser import parse_function, parse_module
from gradc.compiler.ir.types import F64
from gradc.compiler.ir.verifier import VerificationError, verify_function, verify_module


def func(body: str, params: str = "%x: f64, %y: f64, %i: i64, %b: i1", ret: str = "f64") -> str:
    return f"func @f({params}) -> {ret} {{\n" + textwrap.dedent(body).strip("\n") + "\n}\n"


def module(*functions: str) -> str:
    return "module @m\n\n" + "\n".join(functions)


CALLEE = func("^entry:\n  ret %x", params="%x: f64").replace("@f", "@g")
VOID = "func @v() -> none {\n^entry:\n  ret\n}\n"


def check(text: str, *, typed: bool = True) -> None:
    if text.startswith("module"):
        verify_module(parse_module(text), typed=typed)
    else:
        verify_module(parse_module(module(text, CALLEE, VOID)), typed=typed)


# (invariant, valid text, invalid text, expected message part)
CASES: list[tuple[str, str, str, str]] = [
    (
        "block non-empty",
        func("^entry:\n  br ^a\n^a:\n  ret %x"),
        func("^entry:\n  br ^a\n^a:\n^b:\n  ret %x"),
        "block ^a: block is empty",
    ),
    (
        "block ends in a terminator",
        func("^entry:\n  %s = add %x, %y : f64\n  ret %s"),
        func("^entry:\n  %s = add %x, %y : f64"),
        "block ^entry, instruction `%s = add %x, %y : f64`: block does not end in a terminator",
    ),
    (
        "no terminator mid-block",
        func("^entry:\n  br ^a\n^a:\n  ret %x"),
        func("^entry:\n  ret %x\n  ret %y"),
        "instruction `ret %x`: terminator in the middle of a block",
    ),
    (
        "phis only at the head",
        func("""
            ^entry:
              br ^a
            ^a:
              %p = phi [^entry: %x] : f64
              %q = phi [^entry: %y] : f64
              ret %p
        """),
        func("""
            ^entry:
              br ^a
            ^a:
              %p = phi [^entry: %x] : f64
              %s = add %x, %y : f64
              %q = phi [^entry: %y] : f64
              ret %p
        """),
        "instruction `%q = phi [^entry: %y] : f64`: phi after a non-phi instruction",
    ),
    (
        "entry has no predecessors",
        func("^entry:\n  br ^loop\n^loop:\n  br ^loop"),
        func("^entry:\n  br ^entry"),
        "block ^entry: entry block has predecessors (^entry)",
    ),
    (
        "entry has no phis",
        func("^entry:\n  br ^a\n^a:\n  %p = phi [^entry: %x] : f64\n  ret %p"),
        func("^entry:\n  %p = phi : f64\n  ret %p"),
        "instruction `%p = phi : f64`: phi in the entry block",
    ),
    (
        "phi incoming blocks == predecessors (missing edge)",
        func("""
            ^entry:
              condbr %b, ^l, ^r
            ^l:
              br ^j
            ^r:
              br ^j
            ^j:
              %p = phi [^l: %x], [^r: %y] : f64
              ret %p
        """),
        func("""
            ^entry:
              condbr %b, ^l, ^r
            ^l:
              br ^j
            ^r:
              br ^j
            ^j:
              %p = phi [^l: %x] : f64
              ret %p
        """),
        "phi incoming blocks {^l} differ from the predecessors {^l, ^r}",
    ),
    (
        "phi incoming blocks == predecessors (edge from a non-predecessor)",
        func("^entry:\n  br ^a\n^a:\n  %p = phi [^entry: %x] : f64\n  ret %p"),
        func("^entry:\n  br ^a\n^a:\n  %p = phi [^entry: %x], [^a: %y] : f64\n  ret %p"),
        "phi incoming blocks {^a, ^entry} differ from the predecessors {^entry}",
    ),
    (
        "phi incoming blocks == predecessors as a multiset",
        func(
            "^entry:\n  condbr %b, ^a, ^a\n^a:\n  %p = phi [^entry: %x], [^entry: %x] : f64\n  ret %p"
        ),
        func("^entry:\n  condbr %b, ^a, ^a\n^a:\n  %p = phi [^entry: %x] : f64\n  ret %p"),
        "phi incoming blocks {^entry} differ from the predecessors {^entry×2}",
    ),
    (
        "duplicate edges carry one value",
        func(
            "^entry:\n  condbr %b, ^a, ^a\n^a:\n  %p = phi [^entry: %x], [^entry: %x] : f64\n  ret %p"
        ),
        func(
            "^entry:\n  condbr %b, ^a, ^a\n^a:\n  %p = phi [^entry: %x], [^entry: %y] : f64\n  ret %p"
        ),
        "phi has different values for the duplicate edge from ^entry",
    ),
    (
        "def dominates use (same block)",
        func("^entry:\n  %s = add %x, %y : f64\n  %t = add %s, %s : f64\n  ret %t"),
        func("^entry:\n  %t = add %s, %s : f64\n  %s = add %x, %y : f64\n  ret %t"),
        "instruction `%t = add %s, %s : f64`: %s is used before its definition",
    ),
    (
        "def dominates use (self-reference)",
        func("^entry:\n  %s = add %x, %x : f64\n  ret %s"),
        func("^entry:\n  %s = add %s, %x : f64\n  ret %s"),
        "%s is used before its definition",
    ),
    (
        "def dominates use (across blocks)",
        func("""
            ^entry:
              %s = add %x, %y : f64
              condbr %b, ^l, ^r
            ^l:
              ret %s
            ^r:
              ret %s
        """),
        func("""
            ^entry:
              condbr %b, ^l, ^r
            ^l:
              %s = add %x, %y : f64
              br ^j
            ^r:
              br ^j
            ^j:
              ret %s
        """),
        "block ^j, instruction `ret %s`: %s (defined in ^l) does not dominate this use",
    ),
    (
        "phi value dominates the end of its incoming block",
        func("""
            ^entry:
              condbr %b, ^l, ^r
            ^l:
              %s = add %x, %y : f64
              br ^j
            ^r:
              br ^j
            ^j:
              %p = phi [^l: %s], [^r: %x] : f64
              ret %p
        """),
        func("""
            ^entry:
              condbr %b, ^l, ^r
            ^l:
              %s = add %x, %y : f64
              br ^j
            ^r:
              br ^j
            ^j:
              %p = phi [^l: %s], [^r: %s] : f64
              ret %p
        """),
        "%s (defined in ^l) does not dominate the end of predecessor ^r",
    ),
    (
        "loop-carried phi",
        func("""
            ^entry:
              br ^loop
            ^loop:
              %p = phi [^entry: %x], [^loop: %q] : f64
              %q = add %p, %y : f64
              %c = cmp lt %q, %y : i1
              condbr %c, ^loop, ^exit
            ^exit:
              ret %q
        """),
        func("""
            ^entry:
              br ^loop
            ^loop:
              %p = phi [^entry: %q], [^loop: %q] : f64
              %q = add %p, %y : f64
              %c = cmp lt %q, %y : i1
              condbr %c, ^loop, ^exit
            ^exit:
              ret %q
        """),
        "%q (defined in ^loop) does not dominate the end of predecessor ^entry",
    ),
    (
        "a value defined in unreachable code is not available in reachable code",
        func("""
            ^entry:
              ret %x
            ^dead:
              %s = add %x, %y : f64
              br ^dead2
            ^dead2:
              %t = add %s, %s : f64
              ret %t
        """),
        func("""
            ^entry:
              br ^exit
            ^dead:
              %s = add %x, %y : f64
              br ^exit
            ^exit:
              %p = phi [^entry: %x], [^dead: %s] : f64
              %t = add %s, %p : f64
              ret %t
        """),
        "block ^exit, instruction `%t = add %s, %p : f64`: %s (defined in ^dead) does not dominate",
    ),
    (
        "unreachable blocks are still well-formed",
        func("^entry:\n  ret %x\n^dead:\n  br ^dead"),
        func("^entry:\n  ret %x\n^dead:\n  %s = add %x, %y : f64"),
        "block ^dead, instruction `%s = add %x, %y : f64`: block does not end in a terminator",
    ),
    (
        "unreachable blocks keep same-block order",
        func("^entry:\n  ret %x\n^dead:\n  %s = add %x, %y : f64\n  ret %s"),
        func(
            "^entry:\n  ret %x\n^dead:\n  ret %s\n^dead2:\n  %s = add %x, %y : f64\n  %t = add %t, %s : f64\n  ret %t"
        ),
        "%t is used before its definition",
    ),
    (
        "no unknown types (result)",
        func("^entry:\n  %s = add %x, %y : f64\n  ret %s"),
        func("^entry:\n  %s = add %x, %y : ?\n  ret %x"),
        "instruction `%s = add %x, %y : ?`: result type ? is unknown",
    ),
    (
        "no unknown types (nested in a tuple)",
        func("^entry:\n  %t = tuple(%x, %y) : tuple[f64,f64]\n  ret %x"),
        func("^entry:\n  %t = tuple(%x, %y) : tuple[f64,?]\n  ret %x"),
        "result type tuple[f64,?] is unknown",
    ),
    (
        "no unknown types (parameter)",
        func("^entry:\n  ret %x", params="%x: f64"),
        func("^entry:\n  ret %x", params="%x: f64, %z: ?"),
        "in function @f: parameter %z has unknown type ?",
    ),
    (
        "no unknown types (return type)",
        func("^entry:\n  ret %x", params="%x: f64"),
        func("^entry:\n  ret %x", params="%x: f64", ret="?"),
        "in function @f: return type ? is unknown",
    ),
    (
        "binary operands have the result type",
        func("^entry:\n  %s = mul %x, %y : f64\n  ret %s"),
        func("^entry:\n  %s = mul %x, %i : f64\n  ret %s"),
        "operand types (%x: f64, %i: i64) differ from the result type f64",
    ),
    (
        "no arithmetic on i1 except min/max",
        func("^entry:\n  %m = min %b, %b : i1\n  ret %x"),
        func("^entry:\n  %m = add %b, %b : i1\n  ret %x"),
        "add on i1",
    ),
    (
        "div on floats only",
        func("^entry:\n  %d = floordiv %i, %i : i64\n  ret %x"),
        func("^entry:\n  %d = div %i, %i : i64\n  ret %x"),
        "div on i64: true division is defined on floats only",
    ),
    (
        "bitwise operators on ints and bools only",
        func("^entry:\n  %d = bitxor %b, %b : i1\n  ret %x"),
        func("^entry:\n  %d = bitxor %x, %x : f64\n  ret %x"),
        "bitxor on f64: bitwise operators are defined on ints only",
    ),
    (
        "shifts on ints only (not i1)",
        func("^entry:\n  %d = rshift %i, %i : i64\n  ret %x"),
        func("^entry:\n  %d = lshift %b, %b : i1\n  ret %x"),
        "lshift on i1",
    ),
    (
        "invert on ints only",
        func("^entry:\n  %d = invert %i : i64\n  ret %x"),
        func("^entry:\n  %d = invert %x : f64\n  ret %x"),
        "invert on f64: bitwise operators are defined on ints only",
    ),
    (
        "unary operand has the result type",
        func("^entry:\n  %n = neg %i : i64\n  ret %x"),
        func("^entry:\n  %n = neg %i : f64\n  ret %x"),
        "operand type (%i: i64) differs from the result type f64",
    ),
    (
        "not: i1 operand and result",
        func("^entry:\n  %n = not %b : i1\n  ret %x"),
        func("^entry:\n  %n = not %i : i1\n  ret %x"),
        "not needs an i1 operand and result",
    ),
    (
        "cmp operands are one scalar type",
        func("^entry:\n  %c = cmp eq %i, %i : i1\n  ret %x"),
        func("^entry:\n  %c = cmp eq %i, %x : i1\n  ret %x"),
        "cmp operands (%i: i64, %x: f64) are not one scalar type",
    ),
    (
        "cmp result is i1",
        func("^entry:\n  %c = cmp eq %i, %i : i1\n  ret %x"),
        func("^entry:\n  %c = cmp eq %i, %i : i64\n  ret %x"),
        "cmp result type is i64, expected i1",
    ),
    (
        "cmp predicate is known",
        func("^entry:\n  %c = cmp ne %i, %i : i1\n  ret %x"),
        func("^entry:\n  %c = cmp spaceship %i, %i : i1\n  ret %x"),
        "unknown cmp predicate 'spaceship'",
    ),
    (
        "select condition is i1",
        func("^entry:\n  %s = select %b, %x, %y : f64\n  ret %s"),
        func("^entry:\n  %s = select %i, %x, %y : f64\n  ret %s"),
        "select condition %i has type i64, expected i1",
    ),
    (
        "select arms have the result type",
        func("^entry:\n  %s = select %b, %x, %y : f64\n  ret %s"),
        func("^entry:\n  %s = select %b, %x, %i : f64\n  ret %s"),
        "select arms (%x: f64, %i: i64) differ from the result type f64",
    ),
    (
        "branch condition is i1",
        func("^entry:\n  condbr %b, ^a, ^a\n^a:\n  ret %x"),
        func("^entry:\n  condbr %x, ^a, ^a\n^a:\n  ret %x"),
        "instruction `condbr %x, ^a, ^a`: branch condition %x has type f64, expected i1",
    ),
    (
        "ret value has the return type",
        func("^entry:\n  ret %x"),
        func("^entry:\n  ret %i"),
        "ret value %i has type i64, expected f64",
    ),
    (
        "ret without a value only for none",
        func("^entry:\n  ret", ret="none"),
        func("^entry:\n  ret"),
        "ret without a value in a function returning f64",
    ),
    (
        "ret with a value only for non-none",
        func("^entry:\n  ret", ret="none"),
        func("^entry:\n  ret %x", ret="none"),
        "ret with a value in a function returning none",
    ),
    (
        "call callee exists",
        func("^entry:\n  %r = call @g(%x) : f64\n  ret %r"),
        func("^entry:\n  %r = call @nope(%x) : f64\n  ret %r"),
        "call of @nope, which is not in module 'm'",
    ),
    (
        "call arity",
        func("^entry:\n  %r = call @g(%x) : f64\n  ret %r"),
        func("^entry:\n  %r = call @g(%x, %y) : f64\n  ret %r"),
        "@g takes 1 argument(s), got 2",
    ),
    (
        "call argument types",
        func("^entry:\n  %r = call @g(%y) : f64\n  ret %r"),
        func("^entry:\n  %r = call @g(%i) : f64\n  ret %r"),
        "argument 0 (%i: i64) of @g must be f64",
    ),
    (
        "call result type",
        func("^entry:\n  %r = call @v() : none\n  ret %x"),
        func("^entry:\n  %r = call @v() : f64\n  ret %x"),
        "call result type f64 differs from @v's return type none",
    ),
    (
        "math function is known",
        func("^entry:\n  %r = math exp(%x) : f64\n  ret %r"),
        func("^entry:\n  %r = math frexp(%x) : f64\n  ret %r"),
        "unknown math function 'frexp'",
    ),
    (
        "math arity",
        func("^entry:\n  %r = math hypot(%x, %y) : f64\n  ret %r"),
        func("^entry:\n  %r = math hypot(%x) : f64\n  ret %r"),
        "math.hypot takes 2 argument(s), got 1",
    ),
    (
        "math arguments are f64",
        func("^entry:\n  %r = math sqrt(%x) : f64\n  ret %r"),
        func("^entry:\n  %r = math sqrt(%i) : f64\n  ret %r"),
        "math.sqrt argument %i has type i64, expected f64",
    ),
    (
        "math result type",
        func("^entry:\n  %r = math isinf(%x) : i1\n  ret %x"),
        func("^entry:\n  %r = math isinf(%x) : f64\n  ret %x"),
        "math.isinf result type is f64, expected i1",
    ),
    (
        "extract from a tuple",
        func(
            "^entry:\n  %t = tuple(%x, %i) : tuple[f64,i64]\n  %e = extract %t, 1 : i64\n  ret %x"
        ),
        func("^entry:\n  %e = extract %x, 0 : f64\n  ret %x"),
        "extract from %x of non-tuple type f64",
    ),
    (
        "extract index in range",
        func(
            "^entry:\n  %t = tuple(%x, %i) : tuple[f64,i64]\n  %e = extract %t, 1 : i64\n  ret %x"
        ),
        func(
            "^entry:\n  %t = tuple(%x, %i) : tuple[f64,i64]\n  %e = extract %t, 2 : i64\n  ret %x"
        ),
        "extract index 2 out of range for tuple[f64,i64]",
    ),
    (
        "extract index is not negative",
        func(
            "^entry:\n  %t = tuple(%x, %i) : tuple[f64,i64]\n  %e = extract %t, 0 : f64\n  ret %x"
        ),
        func(
            "^entry:\n  %t = tuple(%x, %i) : tuple[f64,i64]\n  %e = extract %t, -1 : i64\n  ret %x"
        ),
        "extract index -1 is not an int >= 0",
    ),
    (
        "extract result is the element type",
        func(
            "^entry:\n  %t = tuple(%x, %i) : tuple[f64,i64]\n  %e = extract %t, 0 : f64\n  ret %x"
        ),
        func(
            "^entry:\n  %t = tuple(%x, %i) : tuple[f64,i64]\n  %e = extract %t, 0 : i64\n  ret %x"
        ),
        "extract result type i64 differs from element type f64",
    ),
    (
        "tuple result type",
        func("^entry:\n  %t = tuple(%x, %b) : tuple[f64,i1]\n  ret %x"),
        func("^entry:\n  %t = tuple(%x, %b) : tuple[f64,i64]\n  ret %x"),
        "tuple result type tuple[f64,i64] differs from the element types tuple[f64,i1]",
    ),
    (
        "const int range",
        func("^entry:\n  %c = const 2147483647 : i32\n  ret %x"),
        func("^entry:\n  %c = const 2147483648 : i32\n  ret %x"),
        "const value 2147483648 out of range for i32",
    ),
    (
        "const int for ints",
        func("^entry:\n  %c = const -3 : i64\n  ret %x"),
        func("^entry:\n  %c = const 1.5 : i64\n  ret %x"),
        "const value 1.5 (float) does not match type i64 (expected an int)",
    ),
    (
        "const bool for i1",
        func("^entry:\n  %c = const false : i1\n  ret %x"),
        func("^entry:\n  %c = const 2 : i1\n  ret %x"),
        "const value 2 (int) does not match type i1 (expected a bool)",
    ),
    (
        "const float for floats",
        func("^entry:\n  %c = const 2 : f64\n  ret %c"),
        func("^entry:\n  %c = const true : f32\n  ret %x"),
        "const value True (bool) does not match type f32 (expected a float)",
    ),
    (
        "const is scalar",
        func("^entry:\n  %c = const 2 : f64\n  ret %c"),
        func("^entry:\n  %c = const 2 : tuple[i64]\n  ret %x"),
        "const of non-scalar type tuple[i64]",
    ),
    (
        "cast between scalars",
        func("^entry:\n  %c = cast %i : i1\n  ret %x"),
        func("^entry:\n  %t = tuple(%x) : tuple[f64]\n  %c = cast %t : f64\n  ret %x"),
        "cast from tuple[f64] to f64: both must be scalars",
    ),
    (
        "phi values have the phi type",
        func("^entry:\n  br ^a\n^a:\n  %p = phi [^entry: %y] : f64\n  ret %p"),
        func("^entry:\n  br ^a\n^a:\n  %p = phi [^entry: %i] : f64\n  ret %p"),
        "phi value %i from ^entry has type i64, expected f64",
    ),
    (
        "raise kind is known",
        func('^entry:\n  raise IndexError "index out of range"'),
        func('^entry:\n  raise KeyError "k"'),
        "instruction `raise KeyError \"k\"`: unknown exception kind 'KeyError'",
    ),
]


ARR = "%a: array[f64,2,A], %i: i64, %x: f64, %b: i1"


def arr(body: str) -> str:
    return func(body, params=ARR)


CASES += [
    (
        "dim axis in range",
        arr("^entry:\n  %d = dim %a, 1 : i64\n  ret %x"),
        arr("^entry:\n  %d = dim %a, 2 : i64\n  ret %x"),
        "dim axis 2 out of range for array[f64,2,A]",
    ),
    (
        "dim of an array",
        arr("^entry:\n  %d = dim %a, 0 : i64\n  ret %x"),
        arr("^entry:\n  %d = dim %x, 0 : i64\n  ret %x"),
        "dim operand %x has type f64, expected an array",
    ),
    (
        "elemaddr: one index per axis",
        arr("^entry:\n  %p = elemaddr %a, (%i, %i) : ptr[f64]\n  ret %x"),
        arr("^entry:\n  %p = elemaddr %a, (%i) : ptr[f64]\n  ret %x"),
        "elemaddr has 1 index(es) for array[f64,2,A]",
    ),
    (
        "elemaddr: i64 indices",
        arr("^entry:\n  %p = elemaddr %a, (%i, %i) : ptr[f64]\n  ret %x"),
        arr("^entry:\n  %p = elemaddr %a, (%i, %b) : ptr[f64]\n  ret %x"),
        "elemaddr index %b has type i1, expected i64",
    ),
    (
        "elemaddr: pointer to the dtype",
        arr("^entry:\n  %p = elemaddr %a, (%i, %i) : ptr[f64]\n  ret %x"),
        arr("^entry:\n  %p = elemaddr %a, (%i, %i) : ptr[f32]\n  ret %x"),
        "elemaddr result type is ptr[f32], expected ptr[f64]",
    ),
    (
        "load gives the pointee type",
        arr("^entry:\n  %p = elemaddr %a, (%i, %i) : ptr[f64]\n  %v = load %p : f64\n  ret %v"),
        arr("^entry:\n  %p = elemaddr %a, (%i, %i) : ptr[f64]\n  %v = load %p : i64\n  ret %x"),
        "load result type is i64, expected f64",
    ),
    (
        "load from a pointer",
        arr("^entry:\n  %p = elemaddr %a, (%i, %i) : ptr[f64]\n  %v = load %p : f64\n  ret %v"),
        arr("^entry:\n  %v = load %x : f64\n  ret %v"),
        "load from %x of non-pointer type f64",
    ),
    (
        "store the pointee type",
        arr("^entry:\n  %p = elemaddr %a, (%i, %i) : ptr[f64]\n  store %p, %x\n  ret %x"),
        arr("^entry:\n  %p = elemaddr %a, (%i, %i) : ptr[f64]\n  store %p, %i\n  ret %x"),
        "store of %i: i64 through ptr[f64]",
    ),
    (
        "newarray: C layout",
        arr("^entry:\n  %n = newarray(%i), %x : array[f64,1,C]\n  ret %x"),
        arr("^entry:\n  %n = newarray(%i), %x : array[f64,1,A]\n  ret %x"),
        "newarray result type array[f64,1,A] is not a C-contiguous array",
    ),
    (
        "newarray: one dimension per axis",
        arr("^entry:\n  %n = newarray(%i, %i) : array[f64,2,C]\n  ret %x"),
        arr("^entry:\n  %n = newarray(%i) : array[f64,2,C]\n  ret %x"),
        "newarray has 1 dimension(s) for array[f64,2,C]",
    ),
    (
        "newarray: fill of the dtype",
        arr("^entry:\n  %n = newarray(%i), %x : array[f64,1,C]\n  ret %x"),
        arr("^entry:\n  %n = newarray(%i), %i : array[f64,1,C]\n  ret %x"),
        "newarray fill %i has type i64, expected f64",
    ),
    (
        "newarray on the stack: constant dimensions",
        arr(
            "^entry:\n  %two = const 2 : i64\n  %n = newarray(%two) {on_stack} : array[f64,1,C]\n  ret %x"
        ),
        arr("^entry:\n  %n = newarray(%i) {on_stack} : array[f64,1,C]\n  ret %x"),
        "on-stack newarray dimension %i is not a non-negative const",
    ),
    (
        "copyarray result",
        arr("^entry:\n  %c = copyarray %a : array[f64,2,C]\n  ret %x"),
        arr("^entry:\n  %c = copyarray %a : array[f64,2,A]\n  ret %x"),
        "copyarray result type is array[f64,2,A], expected array[f64,2,C]",
    ),
    (
        "incref/decref a value holding an array",
        arr(
            "^entry:\n  incref %a\n  decref %a\n"
            "  %t = tuple(%x, %a) : tuple[f64,array[f64,2,A]]\n  decref %t\n  ret %x"
        ),
        arr("^entry:\n  incref %x\n  ret %x"),
        "incref operand %x has type f64, which holds no array",
    ),
    (
        "derived pointers only from pointer-making operations",
        arr("""
            ^entry:
              %p = elemaddr %a, (%i, %i) : ptr[f64]
              %q = elemaddr %a, (%i, %i) : ptr[f64]
              condbr %b, ^l, ^r
            ^l:
              %eight = const 8 : i64
              %p1 = ptradd %p, %eight : ptr[f64]
              br ^j
            ^r:
              %s = select %b, %p, %q : ptr[f64]
              br ^j
            ^j:
              %r = phi [^l: %p1], [^r: %s] : ptr[f64]
              %v = load %r : f64
              ret %v
        """),
        arr("""
            ^entry:
              %t = tapenew : tape
              %p = elemaddr %a, (%i, %i) : ptr[f64]
              tapepush %t, %p
              %q = tapepop %t : ptr[f64]
              tapefree %t
              ret %x
        """),
        "tapepop makes a value of pointer type ptr[f64]; derived pointers come only from",
    ),
    (
        "derived pointers only from elemaddr (tuple)",
        arr("^entry:\n  %t = tuple(%a, %x) : tuple[array[f64,2,A],f64]\n  ret %x"),
        arr(
            "^entry:\n  %p = elemaddr %a, (%i, %i) : ptr[f64]\n"
            "  %t = tuple(%p) : tuple[ptr[f64]]\n  ret %x"
        ),
        "tuple makes a value of pointer type tuple[ptr[f64]]",
    ),
    (
        "addr from an array and an i64 offset",
        arr(
            "^entry:\n  %o = elemoffset %a, (%i, %i) : i64\n  %p = addr %a, %o : ptr[f64]\n  ret %x"
        ),
        arr("^entry:\n  %p = addr %a, %x : ptr[f64]\n  ret %x"),
        "addr offset %x has type f64, expected i64",
    ),
    (
        "elemoffset is an i64",
        arr("^entry:\n  %o = elemoffset %a, (%i, %i) : i64\n  ret %x"),
        arr("^entry:\n  %o = elemoffset %a, (%i, %i) : i32\n  ret %x"),
        "elemoffset result type is i32, expected i64",
    ),
    (
        "dataaddr of an array is an i64",
        arr("^entry:\n  %d = dataaddr %a : i64\n  ret %x"),
        arr("^entry:\n  %d = dataaddr %x : i64\n  ret %x"),
        "dataaddr operand %x has type f64, expected an array",
    ),
    (
        "ptradd keeps the pointer type",
        arr(
            "^entry:\n  %p = elemaddr %a, (%i, %i) : ptr[f64]\n  %q = ptradd %p, %i : ptr[f64]\n  ret %x"
        ),
        arr(
            "^entry:\n  %p = elemaddr %a, (%i, %i) : ptr[f64]\n  %q = ptradd %p, %i : ptr[i64]\n  ret %x"
        ),
        "ptradd result type is ptr[i64], expected ptr[f64]",
    ),
    (
        "fdiv on floats only",
        arr("^entry:\n  %q = fdiv %x, %x : f64\n  ret %q"),
        arr("^entry:\n  %q = fdiv %i, %i : i64\n  ret %x"),
        "fdiv on i64: true division is defined on floats only",
    ),
    (
        "tape operands are tapes",
        arr(
            "^entry:\n  %t = tapenew : tape\n  tapepush %t, %x\n  %y = tapepop %t : f64\n  tapefree %t\n  ret %y"
        ),
        arr("^entry:\n  %t = tapenew : tape\n  tapepush %x, %x\n  ret %x"),
        "tapepush operand %x has type f64, expected tape",
    ),
    (
        "tapenew makes a tape",
        arr("^entry:\n  %t = tapenew : tape\n  tapefree %t\n  ret %x"),
        arr("^entry:\n  %t = tapenew : f64\n  ret %x"),
        "tapenew result type is f64, expected tape",
    ),
    (
        "no pointer parameters",
        arr("^entry:\n  ret %x"),
        func("^entry:\n  ret %x", params="%x: f64, %p: ptr[f64]"),
        "in function @f: parameter %p has pointer type ptr[f64]",
    ),
    (
        "sharedarray is a C array of its shape's rank",
        arr("^entry:\n  %s = sharedarray [4, 2] : array[f64,2,C]\n  ret %x"),
        arr("^entry:\n  %s = sharedarray [4] : array[f64,2,C]\n  ret %x"),
        "sharedarray result type array[f64,2,C] is not a C array of rank 1",
    ),
    (
        "sharedarray has a positive shape",
        arr("^entry:\n  %s = sharedarray [1] : array[i64,1,C]\n  ret %x"),
        arr("^entry:\n  %s = sharedarray [0] : array[i64,1,C]\n  ret %x"),
        "sharedarray shape (0,) is not a tuple of positive ints",
    ),
]


@pytest.mark.parametrize(
    ("valid", "invalid", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_invariant(valid: str, invalid: str, message: str) -> None:
    check(valid)
    with pytest.raises(VerificationError) as info:
        check(invalid)
    assert message in str(info.value)
    assert str(info.value).startswith("in function @f")


@pytest.mark.parametrize(
    "line",
    [
        "%g = getitem %a, (%i, %i) : f64",
        "setitem %a, (%i, %i), %x",
        "%n = len %a : i64",
        "%s = arrayattr shape %a : tuple[i64,i64]",
        '%z = allocate zeros "" %i : array[f64,1,C]',
    ],
)
def test_front_end_operations_only_in_untyped_ir(line: str) -> None:
    text = arr(f"^entry:\n  {line}\n  ret %x")
    check(text, typed=False)
    opname = line.split("=")[-1].split()[0] if "=" in line else line.split()[0]
    with pytest.raises(VerificationError, match=f"{opname} is a front-end operation"):
        check(text)


def test_message_names_function_block_and_instruction() -> None:
    with pytest.raises(VerificationError) as info:
        check(func("^entry:\n  br ^next\n^next:\n  %s = add %x, %i : f64\n  ret %s"))
    err = info.value
    assert str(err) == (
        "in function @f, block ^next, instruction `%s = add %x, %i : f64`: "
        "operand types (%x: f64, %i: i64) differ from the result type f64"
    )
    assert (err.function, err.block, err.instruction) == ("f", "next", "%s = add %x, %i : f64")


def test_empty_function() -> None:
    with pytest.raises(VerificationError, match="in function @f: function has no blocks"):
        verify_function(parse_function("func @f() -> none {\n}\n"))


def test_untyped_ir_skips_type_rules() -> None:
    text = func("^entry:\n  %s = add %x, %i : ?\n  ret %s", ret="?")
    check(text, typed=False)
    with pytest.raises(VerificationError, match="unknown"):
        check(text)


def test_untyped_mode_still_checks_structure() -> None:
    with pytest.raises(VerificationError, match="terminator in the middle"):
        check(func("^entry:\n  ret %x\n  ret %x", ret="?"), typed=False)


def test_verify_function_without_module_skips_callee_checks() -> None:
    fn = parse_function(func("^entry:\n  %r = call @elsewhere(%x) : f64\n  ret %r"))
    verify_function(fn)
    with pytest.raises(VerificationError, match="not in module"):
        verify_module(
            parse_module(module(func("^entry:\n  %r = call @elsewhere(%x) : f64\n  ret %r")))
        )


# ---------------------------------------------------------------------------------
# invariants that text cannot violate: made by editing parsed IR

VALID = func("""
    ^entry:
      %s = add %x, %y : f64
      condbr %b, ^a, ^c
    ^a:
      br ^c
    ^c:
      %p = phi [^entry: %s], [^a: %x] : f64
      ret %p
""")


def parsed() -> Function:
    fn = parse_function(VALID)
    verify_function(fn)
    return fn


def expect(fn: Function, message: str) -> None:
    with pytest.raises(VerificationError) as info:
        verify_function(fn)
    assert message in str(info.value)


def test_operand_from_another_function() -> None:
    fn = parsed()
    foreign = Argument(type=F64, name="z", index=0)
    fn.blocks[2].instructions[1].replace_operand(fn.blocks[2].instructions[0], foreign)
    expect(fn, "instruction `ret %?z`: operand %?z is not an argument or instruction of @f")


def test_operand_erased_but_still_used() -> None:
    fn = parsed()
    fn.entry.instructions[0].erase()
    expect(
        fn, "instruction `%p = phi [^entry: %?s], [^a: %x] : f64`: operand %?s is not an argument"
    )


def test_unwind_value_from_another_function() -> None:
    fn = parse_function("func @f(%x: f64) -> f64 {\n^entry:\n  %y = fdiv %x, %x : f64\n  ret %y\n}")
    other = parse_function(
        "func @g(%t: tape) -> f64 {\n^entry:\n  %z = const 0.0 : f64\n  ret %z\n}"
    )
    fn.entry.instructions[0].unwind = (other.params[0],)
    with pytest.raises(VerificationError, match="unwind value %\\?t is not an argument"):
        verify_function(fn)


def test_operand_is_a_terminator() -> None:
    fn = parsed()
    term = fn.blocks[1].instructions[0]
    fn.blocks[2].instructions[1].replace_operand(fn.blocks[2].instructions[0], term)
    expect(fn, "is a terminator (no result)")


def test_successor_outside_the_function() -> None:
    fn = parsed()
    jump = fn.blocks[1].instructions[0]
    assert isinstance(jump, ops.Jump)
    jump.target = Block("elsewhere")
    expect(fn, "block ^a, instruction `br ^?elsewhere`: successor ^elsewhere is not a block of @f")


def test_phi_edge_from_outside_the_function() -> None:
    fn = parsed()
    phi = fn.blocks[2].instructions[0]
    assert isinstance(phi, ops.Phi)
    phi.replace_block(fn.blocks[1], Block("elsewhere"))
    expect(fn, "phi edge from ^elsewhere, not a block of @f")


def test_block_back_link() -> None:
    fn = parsed()
    fn.blocks[1].function = None
    expect(fn, "block ^a: block.function is not this function")


def test_instruction_back_link() -> None:
    fn = parsed()
    fn.entry.instructions[0].block = fn.blocks[1]
    expect(fn, "inst.block is not the block holding it")


def test_duplicate_block_labels() -> None:
    fn = parsed()
    fn.blocks[1].label = "c"
    expect(fn, "duplicate block label ^c")


def test_argument_index() -> None:
    fn = parsed()
    fn.params[1].index = 0
    expect(fn, "parameter %y has index 0, expected 1")


def test_missing_operand() -> None:
    fn = parsed()
    add = fn.entry.instructions[0]
    assert isinstance(add, ops.Add)
    add.rhs = None  # type: ignore[assignment]
    expect(fn, "operand 'rhs' is None")


def test_const_value_kind() -> None:
    fn = parsed()
    fn.entry.insert(0, ops.Const(1, type=F64))  # an int for f64, printed as 1.0
    expect(fn, "const value 1 (int) does not match type f64 (expected a float)")


def test_module_key_matches_function_name() -> None:
    mod = parse_module(module(VALID))
    mod.functions["other"] = mod.functions.pop("f")
    with pytest.raises(VerificationError, match="stored under the name 'other'"):
        verify_module(mod)
