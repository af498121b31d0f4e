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
  6. Attributes are valid, by each operation's ``verify_attrs`` (e.g. a ``cmp``
     predicate is a ``CmpPred``; a ``math`` function is in ``ops.MATH_FUNCTIONS`` with
     its arity; a ``call`` callee exists in the module, when verifying a module, with
     the callee's arity; a ``raise`` kind is an ``ExceptionKind`` with a string message;
     an ``extract`` index is an int >= 0; a ``const`` value an int, float or bool).

Operands and control flow
  7. Every operand is an Argument of this function or an instruction, with a result, in
     one of its blocks; so is every value of an ``unwind`` set (``lifetimes``).
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
  12. Per operation: its type rule, the ``verify_`` method declared beside it in
      :mod:`gradc.compiler.ir.ops` (whose docstring states the rule; e.g. binary
      arithmetic: both operands have the result type, a scalar; ``ret``: the value has
      the function's return type; ``call``: the callee's parameter and return types;
      ``newarray``: one ``i64`` per axis of a C-contiguous array). The front-end
      operations ``getitem``, ``setitem``, ``len``, ``arrayattr`` and ``allocate`` do
      not occur.
  13. Pointer discipline (DESIGN.md §2): a value of pointer type (or a tuple holding
      one) is only ever made by ``elemaddr`` or ``addr`` (from an array), ``ptradd``
      (from a derived pointer), ``phi``/``select`` (merging derived pointers, until
      ``phi-decay`` rewrites them) or ``poison`` — never a parameter, return type,
      call, load, tape pop, cast or tuple — so every derived pointer's base is found by
      walking back to an array.

Unreachable blocks are allowed but are checked like the others (except rule 10's
cross-block part).
"""

from __future__ import annotations

from collections import Counter

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Module, Value
from gradc.compiler.ir.dominance import DominatorTree
from gradc.compiler.ir.printer import Names, format_instruction, has_result, operation_fields
from gradc.compiler.ir.types import PointerType, UnknownType


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

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle whole (``Exception``'s own pickling passes only ``args`` to
        ``__init__``, which needs more): an error raised on a Dask worker reaches the
        client with every attribute."""
        return (
            type(self),
            (self.reason, self.function, self.block, self.instruction),
            self.__dict__,
        )


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

    # -- the VerifyContext the operations' rules see -------------------------------------

    @property
    def function(self) -> Function:
        return self.fn

    def show(self, v: Value | None) -> str:
        return self.names().value(v)

    def show_block(self, b: Block) -> str:
        return self.names().block(b)

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
        for spec in operation_fields(type(inst)):
            value = getattr(inst, spec.name)
            if spec.kind == "edges":
                self.check_edges(inst, value, blocks)
            elif spec.kind == "operand":
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

    def check_edges(self, inst: Instruction, edges: list[object], blocks: set[Block]) -> None:
        for edge in edges:
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
            for v in inst.unwind:
                if v not in defined:
                    raise self.fail(
                        f"unwind value {self.show(v)} is not an argument or instruction of "
                        f"@{self.fn.name}",
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
            reason = inst.verify_attrs(self)
            if reason is not None:
                raise self.fail(reason, inst=inst)

    # -- rules 11-13 -------------------------------------------------------------------------

    def check_types(self) -> None:
        fn = self.fn
        for p in fn.params:
            if p.type.contains(UnknownType):
                raise self.fail(f"parameter {self.show(p)} has unknown type {p.type}")
        if fn.return_type.contains(UnknownType):
            raise self.fail(f"return type {fn.return_type} is unknown")
        for p in fn.params:
            if p.type.contains(PointerType):
                raise self.fail(f"parameter {self.show(p)} has pointer type {p.type}")
        if fn.return_type.contains(PointerType):
            raise self.fail(f"return type {fn.return_type} holds a pointer")
        for inst in fn.instructions():
            if has_result(inst) and inst.type.contains(UnknownType):
                raise self.fail(f"result type {inst.type} is unknown", inst=inst)
            if inst.type.contains(PointerType) and not isinstance(inst, _POINTER_PRODUCERS):
                raise self.fail(
                    f"{inst.OPNAME} makes a value of pointer type {inst.type}; derived "
                    "pointers come only from elemaddr, addr, ptradd, phi, select, poison",
                    inst=inst,
                )
            reason = inst.verify_(self)
            if reason is not None:
                raise self.fail(reason, inst=inst)


# ---------------------------------------------------------------------------------
# helpers

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


def _multiset(c: Counter[Block], names: Names) -> str:
    items = sorted(names.block(b) + (f"×{n}" if n > 1 else "") for b, n in c.items())
    return "{" + ", ".join(items) + "}"
