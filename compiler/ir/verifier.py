"""The IR verifier: checks the invariants every pass must preserve.

Invariants (checked in this order; the first violation is raised):

Structure
  1. A function has at least one block; ``params[i].index == i``.
  2. Block labels are unique in the function; ``block.function`` is the function and
     ``inst.block`` is the block holding ``inst``.
  3. Every block is non-empty and ends in exactly one terminator; no terminator comes
     before the end of a block.
  4. Phis come only at the head of a block (before every other instruction).
  5. Operand fields hold a Value (a tuple of Values for tuple operands; ``None`` only in
     optional operands such as ``ret``'s), successor fields hold a Block of this function.
  6. Attributes are valid: a ``cmp`` predicate is in ``ops.CMP_PREDICATES``; a ``math``
     function is in ``ops.MATH_FUNCTIONS`` with its arity; a ``call`` callee exists in the
     module (when verifying a module) with the callee's arity; a ``raise`` kind is in
     ``ops.EXCEPTION_KINDS`` with a string message; an ``extract`` index is an int >= 0;
     a ``const`` value is an int, float or bool.

Operands and control flow
  7. Every operand is an Argument of this function or an instruction, with a result, in
     one of its blocks.
  8. The entry block has no predecessors and no phis.
  9. A phi's incoming blocks equal the block's predecessors as a multiset (a block that
     branches twice to the same successor gives two edges, which must carry one value).

SSA dominance (:mod:`gradc.compiler.ir.dominance`)
  10. A definition dominates each use: an operand of a non-phi instruction is an argument,
      or is defined earlier in the same block, or in a block that strictly dominates the
      use's block; the value a phi receives from predecessor ``P`` is defined in a block
      that dominates ``P`` (it is available at the end of ``P``). Uses in unreachable
      blocks (and phi edges from unreachable predecessors) are exempt from the
      cross-block rule, as in LLVM — the code never runs — but the same-block order
      still holds there.

Types and pointers (only with ``typed=True``, the default; untyped IR before inference skips them)
  11. No ``UNKNOWN`` type (``?``), nor one nested in a tuple, in parameters, return types
      or instruction results.
  12. Per operation (rules are looked up along the class's MRO, so subclasses inherit):
      binary arithmetic: both operands have the result type, a scalar type (not ``i1``
      except ``min``/``max``; ``div`` only on floats); ``neg``/``abs``: the operand has
      the result type, a non-``i1`` scalar; ``not``: operand and result ``i1``; ``cmp``:
      operands of one scalar type, result ``i1``; ``select``: condition ``i1``, both
      arms and the result of one type; ``condbr``: condition ``i1``; ``ret``: the value's
      type is the function's return type (no value exactly when it is ``none``);
      ``call``: argument types equal the callee's parameter types and the result type its
      return type; ``math``: ``f64`` arguments, result ``f64`` (``i1`` for ``isnan``,
      ``isinf``, ``isfinite``); ``extract``: a tuple operand, index in range, result the
      element type; ``tuple``: result ``tuple[...]`` of the element types; ``const``: the
      result is a scalar and the value a ``bool`` for ``i1``, an ``int`` (not bool) in the
      type's signed range for other ints, a ``float`` for floats; ``cast``: operand and
      result scalars; ``phi``: incoming values have the phi's type.
      Arrays: ``dim``: an array operand, ``0 <= axis < ndim``, result ``i64``;
      ``elemaddr``: an array, one ``i64`` index per axis, result ``ptr[dtype]``;
      ``elemoffset``: the same operands, result ``i64``; ``addr``: an array and an
      ``i64`` offset, result ``ptr[dtype]``; ``ptradd``: a pointer and an ``i64``
      offset, result the pointer's type; ``fdiv`` like ``div``, floats only; ``load``:
      a pointer operand, result the pointee type; ``store``: the value has the pointee
      type; ``newarray``: one ``i64`` per axis of a C-contiguous array result, ``fill``
      of the dtype; ``copyarray``: result the C-contiguous array of the operand's dtype
      and rank; ``incref``/``decref``: an operand holding an array (an array or a
      tuple with one). Tapes: ``tapenew`` makes a
      ``tape``; ``tapepush``/``tapepop``/``tapefree`` take a ``tape`` operand; a pushed
      value and a popped result are neither ``tape`` nor ``none``. The front-end operations
      ``getitem``, ``setitem``, ``len``, ``arrayattr`` and ``allocate`` do not occur.
  13. Pointer discipline (DESIGN.md §2): a value of pointer type (or a tuple holding
      one) is only ever made by ``elemaddr`` or ``addr`` (from an array), ``ptradd``
      (from a derived pointer), ``phi``/``select`` (merging derived pointers, until
      ``phi-decay`` rewrites them) or ``poison`` — never a parameter, return type,
      call, load, tape pop, cast or tuple — so every derived pointer's base is found by
      walking back to an array.

Unreachable blocks are allowed but are checked like the others (except rule 10's
cross-block part). Operations with no rule get only the generic checks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Module, Value
from gradc.compiler.ir.dominance import DominatorTree
from gradc.compiler.ir.printer import Names, format_instruction, has_result, operation_fields
from gradc.compiler.ir.types import (
    F64,
    I1,
    I64,
    NONE,
    TAPE,
    ArrayType,
    PointerType,
    ScalarType,
    TupleType,
    Type,
    UnknownType,
)


class VerificationError(Exception):
    """An IR invariant does not hold.

    The message reads ``in function @fn, block ^label, instruction `<text>`: <reason>``
    (block and instruction are left out when the error is not about one); the instruction
    is printed with the names :func:`gradc.compiler.ir.printer.print_function` gives.

    Attributes:
        function: the function's name.
        block: the block's label, or None.
        instruction: the printed instruction, or None.
        reason: what is wrong (the message without its location part).
    """

    def __init__(
        self, reason: str, function: str, block: str | None = None, instruction: str | None = None
    ) -> None:
        self.reason = reason
        self.function = function
        self.block = block
        self.instruction = instruction
        where = f"in function @{function}"
        if block is not None:
            where += f", block ^{block}"
        if instruction is not None:
            where += f", instruction `{instruction}`"
        super().__init__(f"{where}: {reason}")


def verify_module(mod: Module, *, typed: bool = True) -> None:
    """Verify every function of ``mod`` (see the module docstring for the invariants).

    Also checks that each function is stored under its own name.

    Raises:
        VerificationError: the first invariant found violated.
    """
    for key, fn in mod.functions.items():
        if fn.name != key:
            raise VerificationError(f"function is stored under the name {key!r}", fn.name)
        verify_function(fn, module=mod, typed=typed)


def verify_function(fn: Function, *, module: Module | None = None, typed: bool = True) -> None:
    """Verify one function (see the module docstring for the invariants).

    Args:
        fn: the function.
        module: the module holding the callees of ``call`` instructions; without it the
            callee checks are skipped.
        typed: check types (rules 11 to 13); pass False for IR before inference.

    Raises:
        VerificationError: the first invariant found violated.
    """
    _Verifier(fn, module, typed).run()


class _Verifier:
    def __init__(self, fn: Function, module: Module | None, typed: bool) -> None:
        self.fn = fn
        self.module = module
        self.typed = typed
        self._names: Names | None = None

    # -- errors ---------------------------------------------------------------------

    def fail(
        self, reason: str, block: Block | None = None, inst: Instruction | None = None
    ) -> VerificationError:
        if inst is not None and block is None:
            block = inst.block
        label = None
        if block is not None:
            label = block.label
            if block in self.fn.blocks:
                label = self.names().block(block)[1:]
        text = format_instruction(inst, self.names()) if inst is not None else None
        return VerificationError(reason, self.fn.name, label, text)

    def names(self) -> Names:
        if self._names is None:
            self._names = Names(self.fn)
        return self._names

    def show(self, v: Value | None) -> str:
        return self.names().value(v)

    # -- driver ------------------------------------------------------------------------

    def run(self) -> None:
        self.check_structure()
        self.check_attrs()
        self.check_operands_defined()
        self.check_cfg()
        self.check_dominance()
        if self.typed:
            self.check_types()

    # -- rules 1-5 -----------------------------------------------------------------------

    def check_structure(self) -> None:
        fn = self.fn
        if not fn.blocks:
            raise self.fail("function has no blocks")
        for i, p in enumerate(fn.params):
            if not isinstance(p, Argument):
                raise self.fail(f"parameter {i} is not an Argument")
            if p.index != i:
                raise self.fail(f"parameter {self.show(p)} has index {p.index}, expected {i}")
        labels: set[str] = set()
        blocks = set(fn.blocks)
        for b in fn.blocks:
            if b.label in labels:
                raise self.fail(f"duplicate block label ^{b.label}", b)
            labels.add(b.label)
            if b.function is not fn:
                raise self.fail("block.function is not this function", b)
            if not b.instructions:
                raise self.fail("block is empty (it must end in a terminator)", b)
            seen_other = False
            last = len(b.instructions) - 1
            for i, inst in enumerate(b.instructions):
                if inst.block is not b:
                    raise self.fail("inst.block is not the block holding it", b, inst)
                if inst.IS_TERMINATOR and i != last:
                    raise self.fail("terminator in the middle of a block", b, inst)
                if i == last and not inst.IS_TERMINATOR:
                    raise self.fail("block does not end in a terminator", b, inst)
                if isinstance(inst, ops.Phi):
                    if seen_other:
                        raise self.fail("phi after a non-phi instruction", b, inst)
                else:
                    seen_other = True
                self.check_fields(inst, blocks)

    def check_fields(self, inst: Instruction, blocks: set[Block]) -> None:
        if isinstance(inst, ops.Phi):
            for edge in inst.incoming:
                if not (isinstance(edge, tuple) and len(edge) == 2):
                    raise self.fail("phi edge is not a (block, value) pair", inst=inst)
                b, v = edge
                if not isinstance(b, Block):
                    raise self.fail("phi edge block is not a Block", inst=inst)
                if b not in blocks:
                    raise self.fail(
                        f"phi edge from ^{b.label}, not a block of @{self.fn.name}", inst=inst
                    )
                if not isinstance(v, Value):
                    raise self.fail("phi edge value is not a Value", inst=inst)
            return
        for spec in operation_fields(type(inst)):
            value = getattr(inst, spec.name)
            if spec.kind == "operand":
                if value is None and not spec.optional:
                    raise self.fail(f"operand {spec.name!r} is None", inst=inst)
                if value is not None and not isinstance(value, Value):
                    raise self.fail(f"operand {spec.name!r} is not a Value", inst=inst)
            elif spec.kind == "operands":
                if not isinstance(value, tuple) or not all(isinstance(v, Value) for v in value):
                    raise self.fail(f"operand {spec.name!r} is not a tuple of Values", inst=inst)
            elif spec.kind == "successor":
                if not isinstance(value, Block):
                    raise self.fail(f"successor {spec.name!r} is not a Block", inst=inst)
                if value not in blocks:
                    raise self.fail(
                        f"successor ^{value.label} is not a block of @{self.fn.name}", inst=inst
                    )

    # -- rule 7 ---------------------------------------------------------------------------

    def check_operands_defined(self) -> None:
        defined: set[Value] = set(self.fn.params)
        for inst in self.fn.instructions():
            if has_result(inst):
                defined.add(inst)
        for inst in self.fn.instructions():
            for v in inst.operands():
                if v in defined:
                    continue
                if isinstance(v, Instruction) and v.function is self.fn:
                    raise self.fail(
                        f"operand {self.show(v)} is a terminator (no result)", inst=inst
                    )
                raise self.fail(
                    f"operand {self.show(v)} is not an argument or instruction of @{self.fn.name}",
                    inst=inst,
                )

    # -- rules 8-9 --------------------------------------------------------------------------

    def check_cfg(self) -> None:
        preds = self.fn.predecessors()
        entry = self.fn.entry
        if preds[entry]:
            names = ", ".join(self.names().block(p) for p in preds[entry])
            raise self.fail(f"entry block has predecessors ({names})", entry)
        for b in self.fn.blocks:
            expected = Counter(preds[b])
            for phi in b.phis():
                assert isinstance(phi, ops.Phi)
                if b is entry:
                    raise self.fail("phi in the entry block", b, phi)
                got = Counter(blk for blk, _ in phi.incoming)
                if got != expected:
                    raise self.fail(
                        "phi incoming blocks "
                        + _multiset(got, self.names())
                        + " differ from the predecessors "
                        + _multiset(expected, self.names()),
                        b,
                        phi,
                    )
                first: dict[Block, Value] = {}
                for blk, v in phi.incoming:
                    if blk in first and first[blk] is not v:
                        raise self.fail(
                            f"phi has different values for the duplicate edge from "
                            f"{self.names().block(blk)}",
                            b,
                            phi,
                        )
                    first.setdefault(blk, v)

    # -- rule 10 ---------------------------------------------------------------------------

    def check_dominance(self) -> None:
        dt = DominatorTree(self.fn)
        position: dict[Value, tuple[Block, int]] = {}
        for b in self.fn.blocks:
            for i, inst in enumerate(b.instructions):
                position[inst] = (b, i)
        for b in self.fn.blocks:
            reachable = dt.is_reachable(b)
            for i, inst in enumerate(b.instructions):
                if isinstance(inst, ops.Phi):
                    for pred, v in inst.incoming:
                        if v not in position or not dt.is_reachable(pred):
                            continue
                        def_block = position[v][0]
                        if not dt.dominates(def_block, pred):
                            raise self.fail(
                                f"{self.show(v)} (defined in {self.names().block(def_block)}) "
                                f"does not dominate the end of predecessor "
                                f"{self.names().block(pred)}",
                                b,
                                inst,
                            )
                    continue
                for v in inst.operands():
                    if v not in position:
                        continue  # an argument
                    def_block, def_index = position[v]
                    if def_block is b:
                        if def_index >= i:
                            raise self.fail(
                                f"{self.show(v)} is used before its definition", b, inst
                            )
                    elif reachable and not dt.strictly_dominates(def_block, b):
                        raise self.fail(
                            f"{self.show(v)} (defined in {self.names().block(def_block)}) "
                            f"does not dominate this use",
                            b,
                            inst,
                        )

    # -- rule 6 ------------------------------------------------------------------------------

    def check_attrs(self) -> None:
        for inst in self.fn.instructions():
            rule = _lookup(_ATTR_RULES, inst)
            if rule is not None:
                reason = rule(self, inst)
                if reason is not None:
                    raise self.fail(reason, inst=inst)

    # -- rules 11-13 -------------------------------------------------------------------------

    def check_types(self) -> None:
        fn = self.fn
        for p in fn.params:
            if _has_unknown(p.type):
                raise self.fail(f"parameter {self.show(p)} has unknown type {p.type}")
        if _has_unknown(fn.return_type):
            raise self.fail(f"return type {fn.return_type} is unknown")
        for p in fn.params:
            if _has_pointer(p.type):
                raise self.fail(f"parameter {self.show(p)} has pointer type {p.type}")
        if _has_pointer(fn.return_type):
            raise self.fail(f"return type {fn.return_type} holds a pointer")
        for inst in fn.instructions():
            if has_result(inst) and _has_unknown(inst.type):
                raise self.fail(f"result type {inst.type} is unknown", inst=inst)
            if _has_pointer(inst.type) and not isinstance(inst, _POINTER_PRODUCERS):
                raise self.fail(
                    f"{inst.OPNAME} makes a value of pointer type {inst.type}; derived "
                    "pointers come only from elemaddr, addr, ptradd, phi, select, poison",
                    inst=inst,
                )
            rule = _lookup(_TYPE_RULES, inst)
            if rule is not None:
                reason = rule(self, inst)
                if reason is not None:
                    raise self.fail(reason, inst=inst)


# ---------------------------------------------------------------------------------
# rule tables: each returns None when the instruction is fine, else the reason

_Rule = Callable[[_Verifier, Instruction], "str | None"]


def _lookup(table: dict[type[Instruction], _Rule], inst: Instruction) -> _Rule | None:
    for klass in type(inst).__mro__:
        if klass in table:
            return table[klass]
    return None


def _has_unknown(t: Type) -> bool:
    if isinstance(t, UnknownType):
        return True
    if isinstance(t, TupleType):
        return any(_has_unknown(e) for e in t.elements)
    return False


#: The operations that may produce a derived pointer: from an array (``elemaddr``,
#: ``addr``), from another derived pointer (``ptradd``), by merging derived pointers
#: (``phi``, ``select``; ``phi-decay`` rewrites these) or ``poison``.
_POINTER_PRODUCERS = (
    ops.ElementAddr,
    ops.Addr,
    ops.PointerAdd,
    ops.Phi,
    ops.Select,
    ops.Poison,
)


def _has_array(t: Type) -> bool:
    if isinstance(t, ArrayType):
        return True
    if isinstance(t, TupleType):
        return any(_has_array(e) for e in t.elements)
    return False


def _has_pointer(t: Type) -> bool:
    if isinstance(t, PointerType):
        return True
    if isinstance(t, TupleType):
        return any(_has_pointer(e) for e in t.elements)
    return False


def _multiset(c: Counter[Block], names: Names) -> str:
    items = sorted(names.block(b) + (f"×{n}" if n > 1 else "") for b, n in c.items())
    return "{" + ", ".join(items) + "}"


def _types(v: _Verifier, values: list[Value]) -> str:
    return ", ".join(f"{v.show(x)}: {x.type}" for x in values)


# attributes (always checked)


def _attr_cmp(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Cmp)
    if inst.pred not in ops.CMP_PREDICATES:
        return (
            f"unknown cmp predicate {inst.pred!r} (expected one of {', '.join(ops.CMP_PREDICATES)})"
        )
    return None


def _attr_math(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.MathCall)
    fn = ops.MATH_FUNCTIONS.get(inst.fn)
    if fn is None:
        return f"unknown math function {inst.fn!r}"
    if len(inst.args) != fn.arity:
        return f"math.{fn.name} takes {fn.arity} argument(s), got {len(inst.args)}"
    return None


def _attr_call(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Call)
    if v.module is None:
        return None
    callee = v.module.functions.get(inst.callee)
    if callee is None:
        return f"call of @{inst.callee}, which is not in module {v.module.name!r}"
    if len(inst.args) != len(callee.params):
        return f"@{callee.name} takes {len(callee.params)} argument(s), got {len(inst.args)}"
    return None


def _attr_raise(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Raise)
    if inst.exception not in ops.EXCEPTION_KINDS:
        return f"unknown exception kind {inst.exception!r}"
    if not isinstance(inst.message, str):
        return "raise message is not a string"
    return None


def _attr_extract(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.TupleGet)
    if not isinstance(inst.index, int) or isinstance(inst.index, bool) or inst.index < 0:
        return f"extract index {inst.index!r} is not an int >= 0"
    return None


def _attr_const(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Const)
    if not isinstance(inst.value, int | float):
        return f"const value {inst.value!r} is not an int, float or bool"
    return None


_ATTR_RULES: dict[type[Instruction], _Rule] = {
    ops.Cmp: _attr_cmp,
    ops.MathCall: _attr_math,
    ops.Call: _attr_call,
    ops.Raise: _attr_raise,
    ops.TupleGet: _attr_extract,
    ops.Const: _attr_const,
}


# types (typed IR only)


def _is_scalar(t: Type) -> bool:
    return isinstance(t, ScalarType)


def _type_binary(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.BinaryOp)
    t = inst.type
    if not isinstance(t, ScalarType):
        return f"result type {t} is not a scalar"
    if inst.lhs.type != t or inst.rhs.type != t:
        return f"operand types ({_types(v, [inst.lhs, inst.rhs])}) differ from the result type {t}"
    if t.is_bool and not isinstance(inst, ops.Min | ops.Max):
        return f"{inst.OPNAME} on i1 (cast to an int first)"
    if isinstance(inst, ops.Div | ops.FDiv) and not t.is_float:
        return f"{inst.OPNAME} on {t}: true division is defined on floats only"
    return None


def _type_unary(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.UnaryOp)
    t = inst.type
    if isinstance(inst, ops.Not):
        if t != I1 or inst.operand.type != I1:
            return f"not needs an i1 operand and result, got {_types(v, [inst.operand])} -> {t}"
        return None
    if not isinstance(t, ScalarType) or t.is_bool:
        return f"result type {t} is not a non-i1 scalar"
    if inst.operand.type != t:
        return f"operand type ({_types(v, [inst.operand])}) differs from the result type {t}"
    return None


def _type_cmp(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Cmp)
    if inst.type != I1:
        return f"cmp result type is {inst.type}, expected i1"
    if not _is_scalar(inst.lhs.type) or inst.lhs.type != inst.rhs.type:
        return f"cmp operands ({_types(v, [inst.lhs, inst.rhs])}) are not one scalar type"
    return None


def _type_select(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Select)
    if inst.cond.type != I1:
        return f"select condition {v.show(inst.cond)} has type {inst.cond.type}, expected i1"
    if inst.if_true.type != inst.type or inst.if_false.type != inst.type:
        return (
            f"select arms ({_types(v, [inst.if_true, inst.if_false])}) differ from the "
            f"result type {inst.type}"
        )
    return None


def _type_branch(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Branch)
    if inst.cond.type != I1:
        return f"branch condition {v.show(inst.cond)} has type {inst.cond.type}, expected i1"
    return None


def _type_return(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Return)
    rt = v.fn.return_type
    if inst.value is None:
        if rt != NONE:
            return f"ret without a value in a function returning {rt}"
        return None
    if rt == NONE:
        return "ret with a value in a function returning none"
    if inst.value.type != rt:
        return f"ret value {v.show(inst.value)} has type {inst.value.type}, expected {rt}"
    return None


def _type_call(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Call)
    if v.module is None:
        return None
    callee = v.module.functions[inst.callee]
    for i, (arg, p) in enumerate(zip(inst.args, callee.params)):
        if arg.type != p.type:
            return f"argument {i} ({v.show(arg)}: {arg.type}) of @{callee.name} must be {p.type}"
    if inst.type != callee.return_type:
        return f"call result type {inst.type} differs from @{callee.name}'s return type {callee.return_type}"
    return None


def _type_math(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.MathCall)
    fn = ops.MATH_FUNCTIONS[inst.fn]
    for arg in inst.args:
        if arg.type != F64:
            return f"math.{fn.name} argument {v.show(arg)} has type {arg.type}, expected f64"
    expected = I1 if fn.returns_bool else F64
    if inst.type != expected:
        return f"math.{fn.name} result type is {inst.type}, expected {expected}"
    return None


def _type_extract(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.TupleGet)
    t = inst.tuple.type
    if not isinstance(t, TupleType):
        return f"extract from {v.show(inst.tuple)} of non-tuple type {t}"
    if inst.index >= len(t.elements):
        return f"extract index {inst.index} out of range for {t}"
    if inst.type != t.elements[inst.index]:
        return f"extract result type {inst.type} differs from element type {t.elements[inst.index]}"
    return None


def _type_tuple(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.MakeTuple)
    expected = TupleType(tuple(e.type for e in inst.elements))
    if inst.type != expected:
        return f"tuple result type {inst.type} differs from the element types {expected}"
    return None


def _type_const(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Const)
    t, value = inst.type, inst.value
    if not isinstance(t, ScalarType):
        return f"const of non-scalar type {t}"
    kind = type(value).__name__
    if t.is_bool:
        if not isinstance(value, bool):
            return f"const value {value!r} ({kind}) does not match type i1 (expected a bool)"
    elif t.is_int:
        if not isinstance(value, int) or isinstance(value, bool):
            return f"const value {value!r} ({kind}) does not match type {t} (expected an int)"
        lo, hi = -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
        if not lo <= value <= hi:
            return f"const value {value} out of range for {t}"
    elif not isinstance(value, float):
        return f"const value {value!r} ({kind}) does not match type {t} (expected a float)"
    return None


def _type_cast(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Cast)
    src, dst = inst.value.type, inst.type
    if isinstance(src, ArrayType) and isinstance(dst, ArrayType):
        # a layout relabel: the same array seen as "any strides" (no code)
        if (src.dtype, src.ndim) != (dst.dtype, dst.ndim) or dst.layout not in ("A", src.layout):
            return f"cast from {src} to {dst}: an array cast may only relabel C/F as A"
        return None
    if not _is_scalar(src) or not _is_scalar(dst):
        return f"cast from {src} to {dst}: both must be scalars (or arrays relabelled)"
    return None


def _array_operand(v: _Verifier, inst: Instruction, value: Value) -> ArrayType | str:
    if not isinstance(value.type, ArrayType):
        return f"{inst.OPNAME} operand {v.show(value)} has type {value.type}, expected an array"
    return value.type


def _type_dim(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.ArrayDim)
    t = _array_operand(v, inst, inst.array)
    if isinstance(t, str):
        return t
    if not 0 <= inst.axis < t.ndim:
        return f"dim axis {inst.axis} out of range for {t}"
    if inst.type != I64:
        return f"dim result type is {inst.type}, expected i64"
    return None


def _type_dataaddr(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.ArrayAddress)
    t = _array_operand(v, inst, inst.array)
    if isinstance(t, str):
        return t
    if inst.type != I64:
        return f"dataaddr result type is {inst.type}, expected i64"
    return None


def _type_elemaddr(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.ElementAddr)
    t = _array_operand(v, inst, inst.array)
    if isinstance(t, str):
        return t
    if len(inst.indices) != t.ndim:
        return f"elemaddr has {len(inst.indices)} index(es) for {t}"
    for index in inst.indices:
        if index.type != I64:
            return f"elemaddr index {v.show(index)} has type {index.type}, expected i64"
    if inst.type != PointerType(t.dtype):
        return f"elemaddr result type is {inst.type}, expected {PointerType(t.dtype)}"
    return None


def _type_elemoffset(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.ElementOffset)
    t = _array_operand(v, inst, inst.array)
    if isinstance(t, str):
        return t
    if len(inst.indices) != t.ndim:
        return f"elemoffset has {len(inst.indices)} index(es) for {t}"
    for index in inst.indices:
        if index.type != I64:
            return f"elemoffset index {v.show(index)} has type {index.type}, expected i64"
    if inst.type != I64:
        return f"elemoffset result type is {inst.type}, expected i64"
    return None


def _type_addr(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Addr)
    t = _array_operand(v, inst, inst.array)
    if isinstance(t, str):
        return t
    if inst.offset.type != I64:
        return f"addr offset {v.show(inst.offset)} has type {inst.offset.type}, expected i64"
    if inst.type != PointerType(t.dtype):
        return f"addr result type is {inst.type}, expected {PointerType(t.dtype)}"
    return None


def _type_ptradd(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.PointerAdd)
    t = inst.pointer.type
    if not isinstance(t, PointerType):
        return f"ptradd of {v.show(inst.pointer)} of non-pointer type {t}"
    if inst.offset.type != I64:
        return f"ptradd offset {v.show(inst.offset)} has type {inst.offset.type}, expected i64"
    if inst.type != t:
        return f"ptradd result type is {inst.type}, expected {t}"
    return None


def _type_load(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Load)
    t = inst.pointer.type
    if not isinstance(t, PointerType):
        return f"load from {v.show(inst.pointer)} of non-pointer type {t}"
    if inst.type != t.pointee:
        return f"load result type is {inst.type}, expected {t.pointee}"
    return None


def _type_store(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Store)
    t = inst.pointer.type
    if not isinstance(t, PointerType):
        return f"store to {v.show(inst.pointer)} of non-pointer type {t}"
    if inst.value.type != t.pointee:
        return f"store of {v.show(inst.value)}: {inst.value.type} through {t}"
    return None


def _type_newarray(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.NewArray)
    t = inst.type
    if not isinstance(t, ArrayType) or t.layout != "C":
        return f"newarray result type {t} is not a C-contiguous array"
    if len(inst.shape) != t.ndim:
        return f"newarray has {len(inst.shape)} dimension(s) for {t}"
    for d in inst.shape:
        if d.type != I64:
            return f"newarray dimension {v.show(d)} has type {d.type}, expected i64"
    if inst.fill is not None and inst.fill.type != t.dtype:
        return f"newarray fill {v.show(inst.fill)} has type {inst.fill.type}, expected {t.dtype}"
    if inst.on_stack:
        for d in inst.shape:
            if not isinstance(d, ops.Const) or not isinstance(d.value, int) or d.value < 0:
                return f"on-stack newarray dimension {v.show(d)} is not a non-negative const"
    return None


def _type_arrayacc(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.AccumulateArray)
    target = _array_operand(v, inst, inst.target)
    if isinstance(target, str):
        return target
    source = _array_operand(v, inst, inst.source)
    if isinstance(source, str):
        return source
    if (target.dtype, target.ndim) != (source.dtype, source.ndim):
        return f"arrayacc of {source} into {target}: dtype and rank must match"
    if not target.dtype.is_float:
        return f"arrayacc target {target} must hold floats"
    return None


def _type_copyarray(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.CopyArray)
    t = _array_operand(v, inst, inst.array)
    if isinstance(t, str):
        return t
    expected = ArrayType(t.dtype, t.ndim, "C")
    if inst.type != expected:
        return f"copyarray result type is {inst.type}, expected {expected}"
    return None


def _type_refcount(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.IncRef | ops.DecRef)
    if not _has_array(inst.array.type):
        return (
            f"{inst.OPNAME} operand {v.show(inst.array)} has type {inst.array.type}, "
            "which holds no array"
        )
    return None


def _tape_operand(v: _Verifier, inst: Instruction, value: Value) -> str | None:
    if value.type != TAPE:
        return f"{inst.OPNAME} operand {v.show(value)} has type {value.type}, expected tape"
    return None


def _type_tapenew(v: _Verifier, inst: Instruction) -> str | None:
    return None if inst.type == TAPE else f"tapenew result type is {inst.type}, expected tape"


def _type_tapepush(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.TapePush)
    if inst.value.type in (TAPE, NONE):
        return f"tapepush of {v.show(inst.value)}: {inst.value.type}"
    return _tape_operand(v, inst, inst.tape)


def _type_tapepop(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.TapePop)
    if inst.type in (TAPE, NONE):
        return f"tapepop result type is {inst.type}"
    return _tape_operand(v, inst, inst.tape)


def _type_tapefree(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.TapeFree)
    return _tape_operand(v, inst, inst.tape)


def _type_front_end_only(v: _Verifier, inst: Instruction) -> str | None:
    return f"{inst.OPNAME} is a front-end operation; inference must replace it"


def _type_phi(v: _Verifier, inst: Instruction) -> str | None:
    assert isinstance(inst, ops.Phi)
    for blk, val in inst.incoming:
        if val.type != inst.type:
            return (
                f"phi value {v.show(val)} from {v.names().block(blk)} has type {val.type}, "
                f"expected {inst.type}"
            )
    return None


_TYPE_RULES: dict[type[Instruction], _Rule] = {
    ops.BinaryOp: _type_binary,
    ops.UnaryOp: _type_unary,
    ops.Cmp: _type_cmp,
    ops.Select: _type_select,
    ops.Branch: _type_branch,
    ops.Return: _type_return,
    ops.Call: _type_call,
    ops.MathCall: _type_math,
    ops.TupleGet: _type_extract,
    ops.MakeTuple: _type_tuple,
    ops.Const: _type_const,
    ops.Cast: _type_cast,
    ops.Phi: _type_phi,
    ops.ArrayDim: _type_dim,
    ops.ElementAddr: _type_elemaddr,
    ops.ElementOffset: _type_elemoffset,
    ops.ArrayAddress: _type_dataaddr,
    ops.Addr: _type_addr,
    ops.PointerAdd: _type_ptradd,
    ops.Load: _type_load,
    ops.Store: _type_store,
    ops.NewArray: _type_newarray,
    ops.CopyArray: _type_copyarray,
    ops.AccumulateArray: _type_arrayacc,
    ops.IncRef: _type_refcount,
    ops.DecRef: _type_refcount,
    ops.TapeNew: _type_tapenew,
    ops.TapePush: _type_tapepush,
    ops.TapePop: _type_tapepop,
    ops.TapeFree: _type_tapefree,
    ops.GetItem: _type_front_end_only,
    ops.SetItem: _type_front_end_only,
    ops.Len: _type_front_end_only,
    ops.ArrayAttr: _type_front_end_only,
    ops.Allocate: _type_front_end_only,
}
