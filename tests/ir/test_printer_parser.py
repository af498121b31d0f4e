"""Printer and parser: text → parse → print gives the same text; errors name line and column."""

from __future__ import annotations

import math
import textwrap
import typing
from enum import StrEnum

import pytest

from gradc.compiler.ir import ops, printer
from gradc.compiler.ir.builder import Builder
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Module
from gradc.compiler.ir.loc import UNKNOWN_LOC, Loc
from gradc.compiler.ir.parser import IRParseError, parse_function, parse_module
from gradc.compiler.ir.printer import (
    is_literal_annotation,
    operation_fields,
    print_function,
    print_instruction,
    print_module,
)
from gradc.compiler.ir.types import F32, F64, I1, I32, I64, UNKNOWN, TupleType, Type
from gradc.compiler.ir.verifier import verify_module


def ir(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


POLY = ir("""
    module @poly source "poly.py"

    func @poly(%x: f64, %n: i64) -> f64 export {
    ^entry:
      %0 = const 0.0 : f64
      %1 = const 0 : i64
      br ^loop
    ^loop:
      %s = phi [^entry: %0], [^body: %5] : f64
      %k = phi [^entry: %1], [^body: %6] : i64
      %2 = cmp lt %k, %n : i1
      condbr %2, ^body, ^exit
    ^body:
      %3 = cast %k : f64
      %4 = math sin(%3) : f64
      %t = call @helper(%x, %4) : tuple[f64,i64]
      %e = extract %t, 0 : f64
      %5 = add %s, %e : f64
      %one = const 1 : i64
      %6 = add %k, %one : i64
      br ^loop
    ^exit:
      ret %s
    }

    func @helper(%a: f64, %b: f64) -> tuple[f64,i64] {
    ^entry:
      %z = const 0.0 : f64
      %c = cmp lt %a, %z : i1
      condbr %c, ^bad, ^ok
    ^bad:
      raise ValueError "a must be non-negative"
    ^ok:
      %p = mul %a, %b : f64
      %i = const 1 : i64
      %t = tuple(%p, %i) : tuple[f64,i64]
      ret %t
    }
""")

#: Uses every operation in ops.OPERATIONS (test_all_ops_covers_every_operation checks it).
ALL_OPS = ir("""
    module @all

    func @all(%x: f64, %y: f64, %i: i64, %j: i64, %b: i1) -> f64 export {
    ^entry:
      %c0 = const -0.0 : f64
      %c1 = const inf : f64
      %c2 = const -inf : f64
      %c3 = const nan : f64
      %c4 = const 1e+300 : f64
      %c5 = const 5e-324 : f64
      %c6 = const 0.1 : f32
      %c7 = const -9223372036854775808 : i64
      %c8 = const true : i1
      %c9 = const 7 : i32
      %f = cast %i : f64
      %g = cast %x : i64
      %sel = select %b, %x, %y : f64
      %t = tuple(%x, %i) : tuple[f64,i64]
      %e = extract %t, 1 : i64
      %a1 = add %x, %y : f64
      %a2 = sub %x, %y : f64
      %a3 = mul %x, %y : f64
      %a4 = div %x, %y : f64
      %a4i = div %x, %y, int : f64
      %a5 = floordiv %i, %j : i64
      %a6 = mod %i, %j : i64
      %a7 = pow %x, %y : f64
      %a8 = min %x, %y : f64
      %a9 = max %i, %j : i64
      %u1 = neg %x : f64
      %u2 = abs %i : i64
      %u3 = not %b : i1
      %u4 = invert %i : i64
      %w1 = bitand %i, %j : i64
      %w2 = bitor %b, %b : i1
      %w3 = bitxor %i, %j : i64
      %w4 = lshift %i, %j : i64
      %w5 = rshift %i, %j : i64
      %k = cmp ge %x, %y : i1
      %m1 = math atan2(%x, %y) : f64
      %m2 = math isnan(%x) : i1
      %r = call @id(%x) : f64
      call @nothing()
      condbr %k, ^pre, ^fmt
    ^pre:
      br ^loop
    ^loop:
      %p = phi [^pre: %x], [^loop: %q] : f64
      %q = add %p, %p : f64
      %done = cmp gt %q, %y : i1
      condbr %done, ^exit, ^loop
    ^fmt:
      condbr %b, ^fail, ^fmt2
    ^fmt2:
      raisef ValueError "{0} {{braces}} {1:>4}"(%i, %b)
    ^fail:
      raise AssertionError ""
    ^exit:
      ret %q
    }

    func @id(%v: f64) -> f64 {
    ^entry:
      ret %v
    }

    func @nothing() -> none {
    ^entry:
      ret
    }

    func @arrays(%a: array[f64,2,A], %i: i64, %v: f64, %k: i1, %b64: array[i64,1,A]) -> array[f64,1,C] {
    ^entry:
      %d = dim %a, 1 : i64
      %p = elemaddr %a, (%i, %d) : ptr[f64]
      %x = load %p : f64
      %y = add %x, %v : f64
      store %p, %y
      %old = atomicadd %p, %y : f64
      %old2 = atomicadd %p, %y {uniform, global_memory} : f64
      syncthreads(%i, %d, %i)
      %sh = sharedarray [4, 8] : array[f32,2,C]
      %b = newarray(%d), %v : array[f64,1,C]
      %e = newarray(%d) : array[f64,1,C]
      %two = const 2 : i64
      %s = newarray(%two), %v {on_stack} : array[f64,1,C]
      %s1 = newarray(%two) {on_stack} : array[f64,1,C]
      %c = copyarray %a : array[f64,2,C]
      arrayacc %c, %a
      incref %b
      decref %e
      decref %c
      %o = elemoffset %a, (%i, %d) : i64
      %da = dataaddr %a : i64
      %q = addr %a, %o : ptr[f64]
      %q1 = ptradd %q, %o : ptr[f64]
      %u = poison : ptr[f64]
      %w = select %k, %q1, %u : ptr[f64]
      %fd = fdiv %v, %v : f64
      %ew = elementwise where(%k, %a, %v) : array[f64,2,C]
      elementwise_into add %a, (%a, %ew)
      %rs = reduce var %a, [1] 1 {keepdims} : array[f64,2,C]
      %ra = reduce argmax %a, [0, 1] 0 : i64
      %cs = cumulate cumsum %a, none : array[f64,1,C]
      %cp = cumulate cumprod %a, 0 : array[f64,2,C]
      %vw = view %a, (%i, %i, %two), [s101, new, int] : array[f64,2,A]
      %tr = transpose %a, [1, 0] : array[f64,2,A]
      %rsh = reshape %b, (%i, %two), "cannot reshape array of size {0} into shape ({1},2)" : array[f64,2,C]
      assign_into %vw, %v
      %tk = take %b, %b64 : array[f64,1,C]
      %ga = gather %a, (%b64, %i) : array[f64,1,C]
      %km = newarray(%d), %k : array[i1,1,C]
      %cm = compress %b, %km : array[f64,1,C]
      %fi = flatindex %i, %d : i64
      ret %b
    }

    func @linalg(%a: array[f64,2,A], %v: array[i64,1,C], %x: f64, %n: i64) -> f64 {
    ^entry:
      %p = elemaddr %v, (%n) {in_range} : ptr[i64]
      %y = contract matmul %a, %v : array[f64,1,C]
      %s = contract vdot %y, %v : f64
      %o = outer %y, %v : array[f64,2,C]
      %t = trace %o : f64
      %r = arange f64 %x, %x, %x : array[f64,1,C]
      %l = linspace f32 %x, %x, %n {no_endpoint} : array[f32,1,C]
      %e = eye i1 %n, %n, %n : array[i1,2,C]
      %k = arraylit f64 [2, 1](%x, %t) : array[f64,2,C]
      %c = concat concatenate 1(%a, %k) : array[f64,2,C]
      %h = concat stack 0(%y, %y) : array[f64,2,C]
      %w = concat vstack 0(%y, %r) : array[f64,2,C]
      %i = astype i32 %a : array[i32,2,C]
      %dg = diag %o, %n : array[f64,1,C]
      %tu = triangle %o, %n {upper} : array[f64,2,C]
      %rf = roll 0 %o, %n {flat} : array[f64,2,C]
      %ra = roll 1 %o, %n : array[f64,2,C]
      %md = sort median 1 %o : array[f64,1,C]
      %as = sort argsort 1 %o : array[i64,2,C]
      %sv = linsolve solve %o, (%y) : array[f64,1,C]
      %dt = linsolve det %o, () : f64
      %o3 = newarray(%n, %n, %n) : array[f64,3,C]
      %bm = batchmatmul %o3, %o : array[f64,3,C]
      %km = newarray(%n, %n) : array[i1,2,C]
      maskassign %o, %km, %x
      indexassign %o, %v, %y
      %s3 = sort sort 0 %o3 : array[f64,3,C]
      %i3 = linsolve inv %o3, () : array[f64,3,C]
      %ch = linsolve cholesky %o3, () : array[f64,3,C]
      ret %s
    }

    func @tape(%x: f64, %a: array[f64,1,C]) -> f64 {
    ^entry:
      %t = tapenew : tape
      tapepush %t, %x
      tapepush %t, %a
      %b = tapepop %t : array[f64,1,C]
      %y = tapepop %t : f64
      tapefree %t
      ret %y
    }
""")

#: The front end's polymorphic operations, which only occur before inference.
FRONT_END_OPS = ir("""
    module @front

    func @front(%a: ?, %i: ?, %v: ?) -> ? {
    ^entry:
      %g = getitem %a, (%i, %i) : ?
      setitem %a, (%i), %v
      %o = atomicadditem %a, (%i), %v : ?
      %n = len %a : ?
      %sh = arrayattr shape %a : ?
      %z = allocate zeros "" %sh : ?
      %zl = allocate zeros_like f64 none, %a : ?
      %f = allocate full "" %sh, none, %v : ?
      %e = allocate empty i32 : ?
      %m = numpy minimum(%v, %v) : ?
      %ip = inplace %a, %v : ?
      %rd = npreduce "norm:inf" %a, none 0 "" "np.linalg.norm()" : ?
      %rk = npreduce sum %a, [-1, 0] 0 i32 "a.sum()" {keepdims} : ?
      %bi = basicindex %a, (%i, %i), [s011, "...", new] : ?
      %fg = flatget %a, %i : ?
      ret %g
    }
""")

WITH_LOCS = ir("""
    module @m source "src/m.py"

    func @f.f64(%x: f64) -> f64 export source_name "f" loc("src/m.py":3:0) {
    ^entry:
      %y = mul %x, %x : f64  loc("src/m.py":4:11)
      %z = add %y, %x : f64
      ret %z  loc("src/m.py":5:4)
    }
""")


def test_printer_docstring_example() -> None:
    """The example in the printer's docstring is exact: it parses, verifies, round-trips."""
    doc = printer.__doc__ or ""
    start = doc.index("    module @poly")
    block = doc[start : doc.index("\nGrammar")].rstrip() + "\n"
    text = textwrap.dedent(block)
    mod = parse_module(text)
    verify_module(mod)
    assert print_module(mod, locs=True) == text
    assert print_module(mod) == POLY


def roundtrip(text: str) -> str:
    return print_module(parse_module(text), locs=True)


@pytest.mark.parametrize(
    "text", [POLY, ALL_OPS, FRONT_END_OPS, WITH_LOCS], ids=["poly", "all_ops", "front", "locs"]
)
def test_round_trip_text(text: str) -> None:
    assert roundtrip(text) == text
    mod = parse_module(text)
    assert print_module(parse_module(print_module(mod))) == print_module(mod)


@pytest.mark.parametrize("text", [POLY, ALL_OPS, WITH_LOCS], ids=["poly", "all_ops", "locs"])
def test_examples_are_valid_ir(text: str) -> None:
    verify_module(parse_module(text))


def test_front_end_example_is_valid_untyped_ir() -> None:
    verify_module(parse_module(FRONT_END_OPS), typed=False)


def test_optional_operands_are_not_ambiguous() -> None:
    allocs = [
        i
        for i in parse_module(FRONT_END_OPS).functions["front"].instructions()
        if isinstance(i, ops.Allocate)
    ]
    present = [(a.shape is not None, a.like is not None, a.fill is not None) for a in allocs]
    assert present == [
        (True, False, False),
        (False, True, False),
        (True, False, True),
        (False, False, False),
    ]


def test_all_ops_covers_every_operation() -> None:
    """A new operation must get a line in ALL_OPS (and so a round-trip test)."""
    used = {
        type(inst)
        for text in (ALL_OPS, FRONT_END_OPS)
        for fn in parse_module(text).functions.values()
        for inst in fn.instructions()
    }
    missing = sorted(name for name, cls in ops.OPERATIONS.items() if cls not in used)
    assert missing == [], f"add these operations to ALL_OPS: {missing}"


# ---------------------------------------------------------------------------------
# every operation class, constructed generically from its declarations


def _sample_attr(ann: object, result: Type, name: str) -> object:
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if is_literal_annotation(ann):
        return 0.5 if result == F64 else 1
    if origin is not None and type(None) in args:
        return None
    if ann is str:
        return {"callee": "f", "pred": "lt", "fn": "sin", "exception": "ValueError"}.get(
            name, "a b"
        )
    if isinstance(ann, type) and issubclass(ann, StrEnum):
        return list(ann)[-1]  # not the default (``div``'s ``kind``), so it is printed
    if ann is bool:
        return True
    if ann is int:
        return 1
    if ann is float:
        return 0.25
    if origin is tuple:
        return ("a", "b") if args and args[0] is str else (1, 2)
    if isinstance(ann, type) and issubclass(ann, Type):
        return F64
    raise AssertionError(f"no sample for attribute annotation {ann!r}")


def _synthesize(
    cls: type[Instruction], absent: frozenset[str] = frozenset()
) -> tuple[Function, Instruction]:
    fn = Function("f", return_type=F64)
    x = Argument(type=F64, name="x", index=0)
    fn.params.append(x)
    entry = fn.add_block("entry")
    other = fn.add_block("other")
    other.append(ops.Return(x))
    kwargs: dict[str, object] = {}
    for spec in operation_fields(cls):
        if spec.kind == "operand":
            kwargs[spec.name] = None if spec.name in absent else x
        elif spec.kind == "operands":
            kwargs[spec.name] = (x, x)
        elif spec.kind == "successor":
            kwargs[spec.name] = other
        elif spec.kind == "edges":
            kwargs[spec.name] = [(other, x), (entry, x)]
        else:
            kwargs[spec.name] = _sample_attr(spec.annotation, F64, spec.name)
    result = UNKNOWN if cls.IS_TERMINATOR else F64
    unwind = () if cls.IS_TERMINATOR else (x,)  # what lifetimes records, printed too
    inst = cls(**kwargs, type=result, name="r", loc=Loc("a.py", 7, 3), unwind=unwind)  # type: ignore[arg-type]
    entry.append(inst)
    return fn, inst


def _absent_sets(cls: type[Instruction]) -> list[frozenset[str]]:
    """Every combination of the optional operands of ``cls`` being None."""
    optional = [f.name for f in operation_fields(cls) if f.kind == "operand" and f.optional]
    return [
        frozenset(name for bit, name in enumerate(optional) if mask >> bit & 1)
        for mask in range(1 << len(optional))
    ]


@pytest.mark.parametrize("opname", sorted(ops.OPERATIONS))
def test_every_operation_round_trips(opname: str) -> None:
    cls = ops.OPERATIONS[opname]
    for absent in _absent_sets(cls):
        fn, inst = _synthesize(cls, absent)
        text = print_function(fn, locs=True)
        back = parse_function(text)
        assert print_function(back, locs=True) == text
        again = back.blocks[0].instructions[0]
        assert type(again) is cls
        assert again.attrs() == inst.attrs()
        assert again.loc == Loc("a.py", 7, 3)
        for spec in operation_fields(cls):
            if spec.kind == "operand":
                # the same field is present: optional operands are not shifted
                assert (getattr(again, spec.name) is None) == (spec.name in absent), text
        assert [v.name for v in again.operands()] == [v.name for v in inst.operands()]
        assert [v.name for v in again.unwind] == [v.name for v in inst.unwind]
        assert [b.label for b in again.successors()] == [b.label for b in inst.successors()]


@pytest.mark.parametrize("opname", sorted(ops.OPERATIONS))
def test_every_operation_declares_its_fields(opname: str) -> None:
    cls = ops.OPERATIONS[opname]
    assert opname == cls.OPNAME
    operation_fields(cls)  # raises for an undeclared field


# ---------------------------------------------------------------------------------
# generic syntax, names, literals


def test_generic_syntax_examples() -> None:
    fn = parse_function(POLY.split("\n\n")[1])
    lines = print_function(fn).splitlines()
    assert "  %2 = cmp lt %k, %n : i1" in lines
    assert "  %4 = math sin(%3) : f64" in lines
    assert "  %t = call @helper(%x, %4) : tuple[f64,i64]" in lines
    assert "  %e = extract %t, 0 : f64" in lines
    assert "  condbr %2, ^body, ^exit" in lines
    assert lines[0] == "func @poly(%x: f64, %n: i64) -> f64 export {"


def test_parse_sets_links_and_names() -> None:
    mod = parse_module(POLY)
    fn = mod.functions["poly"]
    assert [p.index for p in fn.params] == [0, 1]
    assert [p.name for p in fn.params] == ["x", "n"]
    assert fn.exported and not mod.functions["helper"].exported
    assert fn.return_type == F64
    assert mod.name == "poly" and mod.source_file == "poly.py"
    for b in fn.blocks:
        assert b.function is fn
        for inst in b.instructions:
            assert inst.block is b
    loop = fn.blocks[1]
    s = loop.instructions[0]
    assert isinstance(s, ops.Phi) and s.name == "s"
    # forward references resolved to the real instructions
    body = fn.blocks[2]
    assert s.incoming[1][0] is body
    assert s.incoming[1][1] is body.instructions[4]
    # numbered values carry no name hint
    assert fn.entry.instructions[0].name is None


def test_names_are_deduplicated_deterministically() -> None:
    fn = Function("f", return_type=F64)
    b = Builder(fn)
    entry = fn.add_block("entry")
    b.position_at_end(entry)
    x = Argument(type=F64, name="x", index=0)
    fn.params.append(x)
    v1 = b.add(x, x)
    v1.name = "x"
    v2 = b.add(v1, x)
    v2.name = "x"
    v3 = b.add(v2, x)
    v3.name = "x.1"  # taken by the deduplicated v2
    v4 = b.add(v3, x)  # no hint: numbered
    v5 = b.add(v4, x)
    v5.name = "bad name!"  # sanitized
    v6 = b.add(v5, x)
    v6.name = "9lives"  # cannot start with a digit: numbered
    b.ret(v6)
    text = print_function(fn)
    assert text == ir("""
        func @f(%x: f64) -> f64 {
        ^entry:
          %x.1 = add %x, %x : f64
          %x.2 = add %x.1, %x : f64
          %x.1.1 = add %x.2, %x : f64
          %0 = add %x.1.1, %x : f64
          %bad_name_ = add %0, %x : f64
          %1 = add %bad_name_, %x : f64
          ret %1
        }
    """)
    assert print_function(parse_function(text)) == text


def test_block_labels_are_deduplicated() -> None:
    fn = Function("f", return_type=UNKNOWN)
    a = Block("same", function=fn)
    c = Block("same", function=fn)
    d = Block("", function=fn)
    fn.blocks += [a, c, d]
    a.append(ops.Jump(c))
    c.append(ops.Jump(d))
    d.append(ops.Return(None))
    text = print_function(fn)
    assert "^same:\n  br ^same.1\n^same.1:\n  br ^bb\n^bb:\n  ret\n" in text
    assert print_function(parse_function(text)) == text


@pytest.mark.parametrize(
    ("value", "type_", "printed"),
    [
        (0.1, F64, "0.1"),
        (-0.0, F64, "-0.0"),
        (math.inf, F64, "inf"),
        (-math.inf, F64, "-inf"),
        (1e300, F64, "1e+300"),
        (5e-324, F64, "5e-324"),
        (2.0**-1074 * 3, F64, "1.5e-323"),
        (1, F64, "1.0"),  # the type decides: an int literal becomes a float
        (True, I1, "true"),
        (False, I1, "false"),
        (-(2**63), I64, "-9223372036854775808"),
        (2**31 - 1, I32, "2147483647"),
        (0.5, F32, "0.5"),
    ],
)
def test_const_literals_round_trip_exactly(value: object, type_: Type, printed: str) -> None:
    fn = Function("f", return_type=type_)
    entry = fn.add_block("entry")
    c = entry.append(ops.Const(value, type=type_))  # type: ignore[arg-type]
    entry.append(ops.Return(c))
    text = print_function(fn)
    assert f"%0 = const {printed} : {type_}" in text
    back = parse_function(text).entry.instructions[0]
    assert isinstance(back, ops.Const)
    assert type(back.value) is type(value) or (type_ == F64 and isinstance(back.value, float))
    if isinstance(value, float):
        assert math.copysign(1, back.value) == math.copysign(1, value)
    assert back.value == value
    assert print_function(parse_function(text)) == text


def test_nan_const_round_trips() -> None:
    fn = parse_function("func @f() -> f64 {\n^e:\n  %c = const nan : f64\n  ret %c\n}\n")
    c = fn.entry.instructions[0]
    assert isinstance(c, ops.Const) and math.isnan(c.value)


@pytest.mark.parametrize(
    ("literal", "type_", "value"),
    [("1", "f64", 1.0), ("0", "i1", False), ("1", "i1", True), ("true", "i64", True)],
)
def test_const_type_decides_how_literal_is_read(literal: str, type_: str, value: object) -> None:
    fn = parse_function(
        f"func @f() -> {type_} {{\n^e:\n  %c = const {literal} : {type_}\n  ret %c\n}}\n"
    )
    c = fn.entry.instructions[0]
    assert isinstance(c, ops.Const)
    assert c.value == value and type(c.value) is type(value)


@pytest.mark.parametrize(
    ("message", "printed"),
    [
        ("", '""'),
        ("plain", '"plain"'),
        ('say "hi"\n\ttab\\', '"say \\"hi\\"\\n\\ttab\\\\"'),
        ("caf\u00e9 \u2192 \U0001f600", '"caf\\u00e9 \\u2192 \\ud83d\\ude00"'),
    ],
)
def test_strings_are_quoted_with_escapes(message: str, printed: str) -> None:
    fn = Function("f", return_type=F64)
    fn.add_block("entry").append(ops.Raise("ValueError", message))
    text = print_function(fn)
    assert f"  raise ValueError {printed}\n" in text
    back = parse_function(text).entry.instructions[0]
    assert isinstance(back, ops.Raise) and back.message == message


def test_string_attrs_that_are_keywords_are_quoted() -> None:
    fn = Function("f", return_type=F64)
    x = Argument(type=F64, name="x", index=0)
    fn.params.append(x)
    entry = fn.add_block("entry")
    entry.append(ops.Cmp("true", x, x, type=I1))
    entry.append(ops.Cmp("has space", x, x, type=I1))
    entry.append(ops.Return(x))
    text = print_function(fn)
    assert '%0 = cmp "true" %x, %x : i1' in text
    assert '%1 = cmp "has space" %x, %x : i1' in text
    back = parse_function(text)
    assert [getattr(i, "pred", None) for i in back.entry.instructions] == [
        "true",
        "has space",
        None,
    ]


def test_symbols_that_are_not_plain_are_quoted() -> None:
    mod = Module("my mod", source_file="dir/a b.py")
    fn = mod.add(Function("f g", return_type=F64))
    x = Argument(type=F64, name="x", index=0)
    fn.params.append(x)
    entry = fn.add_block("entry")
    r = entry.append(ops.Call("f g", (x,), type=F64))
    entry.append(ops.Return(r))
    text = print_module(mod)
    assert text.startswith('module @"my mod" source "dir/a b.py"\n')
    assert 'func @"f g"(%x: f64) -> f64 {' in text
    assert '%0 = call @"f g"(%x) : f64' in text
    assert print_module(parse_module(text)) == text


def test_locs_are_optional_in_output_and_input() -> None:
    mod = parse_module(WITH_LOCS)
    fn = mod.functions["f.f64"]
    assert fn.loc == Loc("src/m.py", 3, 0)
    y, z, ret = fn.entry.instructions
    assert y.loc == Loc("src/m.py", 4, 11)
    assert z.loc is UNKNOWN_LOC
    assert ret.loc == Loc("src/m.py", 5, 4)
    plain = print_module(mod)
    assert "loc(" not in plain
    assert print_module(parse_module(plain)) == plain


def test_source_name_is_kept() -> None:
    fn = parse_module(WITH_LOCS).functions["f.f64"]
    assert fn.source_name == "f"
    text = 'func @f.f64(%x: f64) -> f64 source_name "f" {\n^e:\n  ret %x\n}\n'
    assert parse_function(text).source_name == "f"
    assert print_function(parse_function(text)) == text


def test_untyped_ir_round_trips() -> None:
    text = ir("""
        func @f(%x: ?) -> ? {
        ^entry:
          %y = add %x, %x : ?
          %t = tuple(%x, %y) : tuple[?,?]
          ret %y
        }
    """)
    assert print_function(parse_function(text)) == text


def test_comments_and_blank_lines_are_ignored() -> None:
    text = ir("""
        // a comment
        func @f(%x: f64) -> f64 {   // trailing comment

        ^entry:  // block comment
          // CHECK: something
          ret %x
        }
    """)
    assert print_function(parse_function(text)) == ir("""
        func @f(%x: f64) -> f64 {
        ^entry:
          ret %x
        }
    """)


def test_forward_references_in_non_phis_parse() -> None:
    # The parser resolves names only; the verifier reports the dominance error.
    fn = parse_function(
        "func @f(%x: f64) -> f64 {\n^e:\n  %a = add %b, %x : f64\n  %b = add %x, %x : f64\n  ret %a\n}\n"
    )
    a, b, _ = fn.entry.instructions
    assert isinstance(a, ops.Add) and a.lhs is b


def test_unwind_sets_round_trip_with_forward_references() -> None:
    # a value held on an error exit may be defined in a block printed later
    text = (
        "func @f(%n: i64) -> f64 {\n^entry:\n  br ^b\n^c:\n"
        "  %p = elemaddr %a, (%n) : ptr[f64] unwind(%a, %t)\n  %x = load %p : f64\n  ret %x\n"
        "^b:\n  %t = tapenew : tape\n  %a = newarray(%n) : array[f64,1,C] unwind(%t)\n"
        "  br ^c\n}\n"
    )
    fn = parse_function(text)
    p = fn.blocks[1].instructions[0]
    t, a = fn.blocks[2].instructions[:2]
    assert p.unwind == (a, t) and a.unwind == (t,)
    assert print_function(fn) == text


def test_print_instruction_uses_function_names() -> None:
    fn = parse_module(POLY).functions["poly"]
    inst = fn.blocks[1].instructions[2]
    assert print_instruction(inst) == "%2 = cmp lt %k, %n : i1"


def test_broken_ir_still_prints() -> None:
    fn = Function("f", return_type=F64)
    other = Function("g")
    foreign = Argument(type=F64, name="y", index=0)
    other.params.append(foreign)
    ghost = Block("ghost")
    entry = fn.add_block("entry")
    entry.append(ops.Add(foreign, foreign, type=F64))
    entry.append(ops.Jump(ghost))
    text = print_function(fn)
    assert "%0 = add %?y, %?y : f64" in text
    assert "br ^?ghost" in text


# ---------------------------------------------------------------------------------
# errors

FUNC = "func @f(%x: f64) -> f64 {\n^entry:\n"


@pytest.mark.parametrize(
    ("text", "line", "col", "message"),
    [
        (FUNC + "  ret %y\n}\n", 3, 6, "undefined value %y"),
        (FUNC + "  br ^nowhere\n}\n", 3, 5, "undefined block ^nowhere"),
        (
            FUNC + "  %y = frobnicate %x : f64\n  ret %y\n}\n",
            3,
            7,
            "unknown operation 'frobnicate'",
        ),
        (
            FUNC + "  %y = add %x, %x : f64\n  %y = add %x, %x : f64\n  ret %y\n}\n",
            4,
            2,
            "redefinition of %y (first defined on line 3)",
        ),
        (FUNC + "  br ^entry\n^entry:\n  ret %x\n}\n", 4, 0, "redefinition of block ^entry"),
        (
            FUNC + "  %n = const 2 : i64\n  %a = newarray(%n) {heap} : array[f64,1,C]\n}\n",
            4,
            21,
            "unknown flag 'heap' of 'newarray'",
        ),
        (
            FUNC + "  %y = fdiv %x, %x : f64 unwind(%x\n}\n",
            3,
            34,
            "expected ',' or ')', found end of line",
        ),
        (
            FUNC + "  %y = add %x, %x\n  ret %y\n}\n",
            3,
            17,
            "expected ':' and the result type, found end of line",
        ),
        (
            FUNC + "  %y = add %x %x : f64\n  ret %y\n}\n",
            3,
            14,
            "expected ',' before a value (%name) for 'rhs' of 'add', found '%x'",
        ),
        (FUNC + "  %y = add %x, %x : f65\n  ret %y\n}\n", 3, 20, "invalid type 'f65'"),
        (
            FUNC + "  %y = add %x, %x : tuple[f64\n  ret %y\n}\n",
            3,
            29,
            "expected ']' to close the type",
        ),
        (FUNC + '  raise ValueError "oops\n}\n', 3, 19, "unterminated string"),
        (
            FUNC + "  %c = const abc : f64\n  ret %c\n}\n",
            3,
            13,
            "expected a number, true or false for 'value' of 'const', found 'abc'",
        ),
        (
            FUNC + "  %c = extract %x, 1.5 : f64\n  ret %c\n}\n",
            3,
            19,
            "expected an integer for 'index' of 'extract', found '1.5'",
        ),
        (
            FUNC + "  %c = cmp %x, %x : i1\n  ret %c\n}\n",
            3,
            11,
            "expected a word or quoted string for 'pred' of 'cmp', found '%x'",
        ),
        (FUNC + "  ret %x ^entry\n}\n", 3, 9, "expected end of line, found '^entry'"),
        (FUNC + "  ret %x $\n}\n", 3, 9, "unexpected character '$'"),
        (FUNC + "  ret %x\n", 3, 8, "expected '}' to close function @f (opened on line 1)"),
        (
            "func @f(%x: f64) -> f64 {\n  ret %x\n}\n",
            2,
            2,
            "expected a block label (^name:) before the first instruction",
        ),
        ("ret %x\n", 1, 0, "expected 'func' or 'module', found 'ret'"),
        ("func @f(%x f64) -> f64 {\n}\n", 1, 11, "expected ':', found 'f64'"),
        ("func @f(%x: f64, %x: f64) -> f64 {\n}\n", 1, 17, "redefinition of %x"),
        ("func @f() f64 {\n}\n", 1, 10, "expected '->' and the return type, found 'f64'"),
        (FUNC + "  %p = phi [^entry %x] : f64\n  ret %x\n}\n", 3, 19, "expected ':', found '%x'"),
        (FUNC + '  ret %x  loc("a.py":x:1)\n}\n', 3, 21, "expected a line number, found 'x'"),
        (
            "func @f() -> none {\n^e:\n  ret\n}\nfunc @f() -> none {\n^e:\n  ret\n}\n",
            5,
            5,
            "redefinition of function @f",
        ),
        (
            "func @f() -> none {\n^e:\n  ret\n}\nmodule @m\n",
            5,
            0,
            "the 'module' line must come first, once",
        ),
    ],
)
def test_parse_errors(text: str, line: int, col: int, message: str) -> None:
    with pytest.raises(IRParseError) as info:
        parse_module(text)
    err = info.value
    assert message in err.message
    assert (err.line, err.col) == (line, col), str(err)
    source = text.splitlines()[line - 1]
    assert err.source_line == source
    caret_line = str(err).splitlines()[-1]
    assert caret_line == "  " + " " * col + "^"
    assert str(err).startswith(f"line {line}:{col + 1}: ")


def test_first_undefined_name_in_text_is_reported() -> None:
    text = FUNC + "  %a = add %late, %x : f64\n  br ^gone\n}\n"
    with pytest.raises(IRParseError, match="undefined value %late") as info:
        parse_module(text)
    assert info.value.line == 3


def test_parse_function_wants_exactly_one_function() -> None:
    one = "func @f() -> none {\n^e:\n  ret\n}\n"
    with pytest.raises(IRParseError, match="found a second 'func'") as info:
        parse_function(one + one.replace("@f", "@g"))
    assert info.value.line == 5
    with pytest.raises(IRParseError, match="found a 'module' line"):
        parse_function("module @m\n" + one)
    with pytest.raises(IRParseError, match="expected a function, found none"):
        parse_function("// nothing\n")
    assert parse_function(one).name == "f"


def test_module_without_header() -> None:
    mod = parse_module("func @f() -> none {\n^e:\n  ret\n}\n")
    assert mod.name == "" and list(mod.functions) == ["f"]
    assert print_module(mod).startswith('module @""\n\nfunc @f')
    assert print_module(parse_module(print_module(mod))) == print_module(mod)


def test_tuple_types_in_params() -> None:
    text = "func @f(%t: tuple[f64,tuple[i64,i1]], %y: f64) -> f64 {\n^e:\n  ret %y\n}\n"
    fn = parse_function(text)
    assert fn.params[0].type == TupleType((F64, TupleType((I64, I1))))
    assert print_function(fn) == text


def test_div_kind_is_printed_only_for_int_division() -> None:
    text = (
        "func @f(%x: f64, %y: f64) -> f64 {\n^entry:\n  %a = div %x, %y : f64\n"
        "  %b = div %a, %y, int : f64\n  ret %b\n}\n"
    )
    fn = parse_function(text)
    a, b = fn.blocks[0].instructions[:2]
    assert isinstance(a, ops.Div) and isinstance(b, ops.Div)
    assert (a.kind, b.kind) == ("float", "int")
    assert print_function(fn) == text


def test_enum_attributes_parse_to_members() -> None:
    fn = parse_function(POLY.split("\n\n")[1])
    cmp = next(i for i in fn.instructions() if isinstance(i, ops.Cmp))
    math_call = next(i for i in fn.instructions() if isinstance(i, ops.MathCall))
    assert cmp.pred is ops.CmpPred.LT
    assert math_call.fn is ops.MathName.SIN
    # an unknown word stays a plain string, for the verifier to name
    odd = parse_function(
        "func @f(%x: f64) -> i1 {\n^e:\n  %c = cmp spaceship %x, %x : i1\n  ret %c\n}"
    )
    pred = odd.entry.instructions[0].pred  # type: ignore[attr-defined]
    assert type(pred) is str and pred == "spaceship"
