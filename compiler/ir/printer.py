"""Deterministic textual form of the IR (parsed back by :mod:`gradc.compiler.ir.parser`).

Example (``print_module(mod, locs=True)``; without ``locs`` the ``loc(...)`` suffixes are
left out; tests/ir/test_printer_parser.py round-trips and verifies this text)::

    module @poly source "poly.py"

    func @poly(%x: f64, %n: i64) -> f64 export loc("poly.py":3:0) {
    ^entry:
      %0 = const 0.0 : f64  loc("poly.py":4:8)
      %1 = const 0 : i64  loc("poly.py":5:8)
      br ^loop  loc("poly.py":6:4)
    ^loop:
      %s = phi [^entry: %0], [^body: %5] : f64  loc("poly.py":6:4)
      %k = phi [^entry: %1], [^body: %6] : i64  loc("poly.py":6:4)
      %2 = cmp lt %k, %n : i1  loc("poly.py":6:10)
      condbr %2, ^body, ^exit  loc("poly.py":6:4)
    ^body:
      %3 = cast %k : f64  loc("poly.py":7:17)
      %4 = math sin(%3) : f64  loc("poly.py":7:13)
      %t = call @helper(%x, %4) : tuple[f64,i64]  loc("poly.py":8:12)
      %e = extract %t, 0 : f64  loc("poly.py":8:12)
      %5 = add %s, %e : f64  loc("poly.py":9:8)
      %one = const 1 : i64  loc("poly.py":10:13)
      %6 = add %k, %one : i64  loc("poly.py":10:8)
      br ^loop  loc("poly.py":10:8)
    ^exit:
      ret %s  loc("poly.py":11:4)
    }

    func @helper(%a: f64, %b: f64) -> tuple[f64,i64] loc("poly.py":13:0) {
    ^entry:
      %z = const 0.0 : f64
      %c = cmp lt %a, %z : i1  loc("poly.py":14:7)
      condbr %c, ^bad, ^ok  loc("poly.py":14:4)
    ^bad:
      raise ValueError "a must be non-negative"  loc("poly.py":15:8)
    ^ok:
      %p = mul %a, %b : f64  loc("poly.py":16:11)
      %i = const 1 : i64  loc("poly.py":16:16)
      %t = tuple(%p, %i) : tuple[f64,i64]  loc("poly.py":16:11)
      ret %t  loc("poly.py":16:4)
    }

Grammar (one construct per line; ``//`` starts a comment; blank lines are ignored)::

    module      ::= ["module" SYMBOL ["source" STRING]] function*
    function    ::= "func" SYMBOL "(" [VALUE ":" TYPE {"," VALUE ":" TYPE}] ")"
                    "->" TYPE ["export"] ["source_name" STRING] [LOC] "{"
                    {LABEL ":" instruction*} "}"
    instruction ::= [VALUE "="] OPNAME items [":" TYPE] [UNWIND] [LOC]
    UNWIND      ::= "unwind(" VALUE {"," VALUE} ")"
    LOC         ::= "loc(" STRING ":" LINE ":" COL ")"      (1-based line, 0-based col)

``VALUE`` is ``%name`` or ``%N``, ``LABEL`` is ``^label``, ``SYMBOL`` is ``@name`` (or
``@"any text"``), ``TYPE`` is ``str(type)`` (:func:`gradc.compiler.ir.types.parse_type`).

Generic operation syntax. Every operation is printed from its class declarations alone:
after ``OPNAME`` come its dataclass fields in declaration order (:func:`operation_fields`),
each printed by kind:

- operand: ``%v``; an absent optional operand is ``none``, or left out when only absent
  optional operands follow it (``ret``; ``allocate zeros_like "" none, %a``);
- an attribute with a dataclass default that equals it, after an operand, is left out
  when only such attributes follow it (``div %a, %b`` is ``div %a, %b, float``);
- tuple of operands: ``(%a, %b)``;
- successor: ``^label``;
- edges (``phi``): ``[^pred: %v], [^pred2: %w]``;
- attribute: ``true``/``false``; an int; a float as ``repr`` (``0.5``, ``1e+300``,
  ``inf``, ``-inf``, ``nan``); a string bare when it is a plain word
  (``[A-Za-z_][A-Za-z0-9_]*``, not a literal keyword) and JSON-quoted otherwise, or
  ``@name`` for attributes annotated :data:`~gradc.compiler.ir.core.Symbol` (always
  quoted for those annotated :data:`~gradc.compiler.ir.core.Text`, such as messages); a
  ``StrEnum`` member as a string; a type as its text; a tuple as ``[a, b]``; ``None`` as
  ``none``;
- flag (a ``bool`` declared in ``FLAGS``): after every other field, the names of those
  that are True, as ``{name, ...}`` (``newarray(%n), %z {on_stack}``).

An attribute is followed by a space, any other field by a comma; a tuple of operands is
attached to the word before it. Hence ``%2 = cmp lt %a, %b : i1``, ``%3 = math sin(%x) :
f64``, ``%4 = call @f(%a, %b) : f64``, ``%5 = extract %t, 1 : i64``, ``condbr %c, ^a,
^b``, ``raise ValueError "x must be positive"``, ``ret``. Numeric literal attributes
(annotated ``int | float | bool``, such as ``const``'s value) are read and printed as the
result type says (:func:`coerce_literal`): ``const 1.0 : f64``, ``const true : i1``.

An instruction prints ``%name =`` and ``: TYPE`` unless it is a terminator (a terminator
whose type is neither unknown nor ``none`` prints them too) or an unused ``none``-typed
operation (``store %p, %v``, ``incref %a``); the parser gives a line without a result
name and type the type ``none`` (unknown for a terminator). An instruction whose
``unwind`` set is not empty (the owned arrays and tapes its error exit releases, recorded
by ``lifetimes``) ends in ``unwind(%a, %t)``, so that the text holds everything a later
pass or the code generator reads.

Names: a value's ``name`` hint is used when it is an identifier-like word
(``[^\\W\\d][\\w.]*``; other characters become ``_``); repeated hints get ``.1``, ``.2``,
... (the first free one); values without a usable hint are numbered ``%0, %1, ...`` in
order (parameters first, then instructions block by block). Block labels are deduplicated
the same way. Values and blocks that do not belong to the function (invalid IR, shown in
verifier messages) print as ``%?name`` and ``^?label``.
"""

from __future__ import annotations

import dataclasses
import re
import types as pytypes
import typing
from typing import Literal

from gradc._dataclass import dataclass
from gradc.compiler.ir.core import Block, Function, Instruction, Module, Value
from gradc.compiler.ir.field_hints import field_hints
from gradc.compiler.ir.loc import UNKNOWN_LOC, Loc
from gradc.compiler.ir.types import NONE, UNKNOWN, ScalarType, Type

try:  # json.dumps of a str, without importing json (issue 13: a first build's imports)
    from _json import encode_basestring_ascii as _quote_str
except ImportError:  # an interpreter without the C accelerator
    from json.encoder import py_encode_basestring_ascii as _quote_str


def _quoted(value: object) -> str:
    """``json.dumps(value)``: a str quoted and escaped as JSON (ASCII)."""
    if type(value) is str:
        return str(_quote_str(value))
    import json

    return json.dumps(value)


#: Words that are literals in attribute position, so strings equal to them are quoted.
LITERAL_WORDS: frozenset[str] = frozenset({"true", "false", "inf", "nan", "none", "loc"})

_VALUE_NAME = re.compile(r"[^\W\d][\w.]*")
_SYMBOL = re.compile(r"[\w.$]+")
_BARE_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BAD_NAME_CHARS = re.compile(r"[^\w.]")

FieldKind = Literal["operand", "operands", "successor", "edges", "attr", "flag"]

_BASE_FIELDS = frozenset(f.name for f in dataclasses.fields(Instruction))


@dataclass(frozen=True)
class OpField:
    """One printed field of an operation class.

    Attributes:
        name: the dataclass field name.
        kind: ``"operand"`` (one Value), ``"operands"`` (a tuple of Values),
            ``"successor"`` (a Block), ``"edges"`` (``(Block, Value)`` pairs), ``"attr"``
            (plain data) or ``"flag"`` (a bool, False by default, printed as ``{name}``
            when True).
        optional: the field may hold ``None`` (its annotation includes ``None``).
        annotation: the resolved type annotation (drives attribute parsing), without
            its ``Annotated`` wrapper.
        syntax: ``"symbol"`` or ``"text"`` for a ``str`` attribute annotated
            :data:`~gradc.compiler.ir.core.Symbol` or :data:`~gradc.compiler.ir.core.Text`
            (printed ``@name``, or always quoted), else ``""``.
        default: an attribute's dataclass default, or ``dataclasses.MISSING``; a trailing
            attribute equal to it is left out of the text (``div``'s ``kind``).
    """

    name: str
    kind: FieldKind
    optional: bool
    annotation: object
    default: object = dataclasses.MISSING
    syntax: str = ""


_FIELDS_CACHE: dict[type[Instruction], tuple[OpField, ...]] = {}


def operation_fields(cls: type[Instruction]) -> tuple[OpField, ...]:
    """The fields of operation class ``cls`` in declaration (= printing) order.

    Raises:
        TypeError: a field of ``cls`` is not declared in ``OPERANDS``, ``SUCCESSORS``,
            ``EDGES``, ``ATTRS`` or ``FLAGS``, or a declared name is not a field.
    """
    cached = _FIELDS_CACHE.get(cls)
    if cached is None:
        cached = _FIELDS_CACHE[cls] = _compute_fields(cls)
    return cached


def _compute_fields(cls: type[Instruction]) -> tuple[OpField, ...]:
    own = [f for f in dataclasses.fields(cls) if f.name not in _BASE_FIELDS]
    names = {f.name for f in own}
    hints = field_hints(cls, names)
    for declared in (*cls.OPERANDS, *cls.SUCCESSORS, *cls.EDGES, *cls.ATTRS, *cls.FLAGS):
        if declared not in names:
            raise TypeError(f"{cls.__name__} declares {declared!r}, which is not a field")
    out: list[OpField] = []
    for f in own:
        ann, syntax = hints[f.name], ""
        if typing.get_origin(ann) is typing.Annotated:
            ann, syntax = ann.__origin__, ann.__metadata__[0]
        optional, inner = _split_optional(ann)
        kind: FieldKind
        if f.name in cls.OPERANDS:
            kind = "operands" if typing.get_origin(inner) is tuple else "operand"
        elif f.name in cls.SUCCESSORS:
            kind = "successor"
        elif f.name in cls.EDGES:
            kind = "edges"
        elif f.name in cls.ATTRS:
            kind = "attr"
        elif f.name in cls.FLAGS and ann is bool and f.default is False:
            kind = "flag"
        else:
            raise TypeError(
                f"{cls.__name__}.{f.name} is not declared in OPERANDS, SUCCESSORS, EDGES, "
                "ATTRS or FLAGS (a bool defaulting to False)"
            )
        default = f.default if kind == "attr" else dataclasses.MISSING
        out.append(OpField(f.name, kind, optional, ann, default, syntax))
    return tuple(out)


def _split_optional(ann: object) -> tuple[bool, object]:
    """``(True, X)`` for ``X | None``; ``(False, ann)`` otherwise."""
    if typing.get_origin(ann) in (typing.Union, pytypes.UnionType):
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        if len(args) < len(typing.get_args(ann)):
            if len(args) == 1:
                return True, args[0]
            return True, typing.Union[tuple(args)]  # noqa: UP007 - runtime construction
    return False, ann


def is_literal_annotation(ann: object) -> bool:
    """True for attribute annotations made only of ``int``, ``float`` and ``bool``."""
    if typing.get_origin(ann) in (typing.Union, pytypes.UnionType):
        return all(a in (int, float, bool) for a in typing.get_args(ann))
    return False


def coerce_literal(value: object, type: Type) -> object:
    """Read a numeric literal attribute as the (scalar) result ``type`` says.

    Two lossless conversions: an int becomes a float for float types (``const 1 : f64``
    is ``1.0``), ``0``/``1`` become ``False``/``True`` for ``i1``. Anything else
    (``1.5`` or ``true`` for ``i64``) is returned unchanged, for the verifier to report.
    """
    if not isinstance(type, ScalarType) or isinstance(value, bool) or not isinstance(value, int):
        return value
    if type.is_float:
        try:
            return float(value)
        except OverflowError:
            return value
    if type.is_bool and value in (0, 1):
        return bool(value)
    return value


def has_result(inst: Instruction) -> bool:
    """True when ``inst`` defines a value other instructions may use.

    Non-terminators always do (a ``none``-typed one too); terminators only when typed
    other than unknown or none. (Whether the result is *printed* is
    :meth:`Names.shows_result`.)
    """
    return not inst.IS_TERMINATOR or inst.type not in (UNKNOWN, NONE)


# ---------------------------------------------------------------------------------
# names


class Names:
    """Printed names of the values and blocks of one function (see the module docstring).

    Args:
        fn: the function; names are computed once, at construction.
    """

    def __init__(self, fn: Function) -> None:
        self._values: dict[Value, str] = {}
        self._blocks: dict[Block, str] = {}
        self._foreign_values: dict[Value, str] = {}
        self._used: set[Value] = set()
        for inst in fn.instructions():
            for v in (*inst.operands(), *inst.unwind):
                if isinstance(v, Value):
                    self._used.add(v)
        taken: set[str] = set()
        tried: dict[str, int] = {}
        counter = 0
        for v in self._defined_values(fn):
            hint = _usable_hint(v.name)
            if hint is None:
                self._values[v] = str(counter)
                counter += 1
            else:
                name = _first_free(hint, taken, tried)
                taken.add(name)
                self._values[v] = name
        labels: set[str] = set()
        tried_labels: dict[str, int] = {}
        for b in fn.blocks:
            label = _first_free(_sanitize_label(b.label), labels, tried_labels)
            labels.add(label)
            self._blocks[b] = label

    def value(self, v: Value | None) -> str:
        """``%name`` of ``v`` (``%?name`` when ``v`` is not defined in the function)."""
        if not isinstance(v, Value):
            return f"%?<{type(v).__name__}>"
        if v in self._values:
            return "%" + self._values[v]
        if v not in self._foreign_values:
            hint = _usable_hint(v.name)
            self._foreign_values[v] = hint if hint is not None else str(len(self._foreign_values))
        return "%?" + self._foreign_values[v]

    def shows_result(self, inst: Instruction) -> bool:
        """True when ``inst`` prints as ``%name = ... : TYPE``.

        Every value does, except an unused ``none``-typed one (``store %p, %v``,
        ``incref %a``, ``call @log(%x)``), which prints as a bare operation.
        """
        if not has_result(inst):
            return False
        return inst.type != NONE or inst in self._used

    def _defined_values(self, fn: Function) -> list[Value]:
        out: list[Value] = list(fn.params)
        for inst in fn.instructions():
            if self.shows_result(inst):
                out.append(inst)
        return out

    def block(self, b: Block) -> str:
        """``^label`` of ``b`` (``^?label`` when ``b`` is not a block of the function)."""
        if b in self._blocks:
            return "^" + self._blocks[b]
        label = getattr(b, "label", None)
        return "^?" + _sanitize_label(label if isinstance(label, str) else "")


def _usable_hint(name: str | None) -> str | None:
    if not name:
        return None
    clean = _BAD_NAME_CHARS.sub("_", name)
    return clean if _VALUE_NAME.fullmatch(clean) else None


def _sanitize_label(label: str) -> str:
    clean = _BAD_NAME_CHARS.sub("_", label)
    return clean if clean else "bb"


def _first_free(base: str, taken: set[str], tried: dict[str, int]) -> str:
    """``base``, or ``base.N`` with the least N not in ``taken``. ``tried`` remembers per
    base the suffix the previous search stopped at (names are only ever added to
    ``taken``), so that naming k values alike costs O(k), not O(k²)."""
    if base not in taken:
        return base
    n = tried.get(base, 1)
    while f"{base}.{n}" in taken:
        n += 1
    tried[base] = n
    return f"{base}.{n}"


# ---------------------------------------------------------------------------------
# leaves


def format_symbol(name: str) -> str:
    """``@name``, or ``@"..."`` (JSON-quoted) when ``name`` is not a plain symbol."""
    return "@" + (name if _SYMBOL.fullmatch(name) else _quoted(name))


def format_string(text: str, *, quote: bool = False) -> str:
    """A string attribute: bare when a plain word (and not ``quote``), else JSON-quoted."""
    if not quote and _BARE_WORD.fullmatch(text) and text not in LITERAL_WORDS:
        return text
    return _quoted(text)


def format_attr(value: object, *, symbol: bool = False, quote: bool = False) -> str:
    """The printed form of one attribute value (see the module docstring).

    Raises:
        TypeError: the value is of a kind the text format has no syntax for.
    """
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return format_symbol(value) if symbol else format_string(value, quote=quote)
    if isinstance(value, Type):
        return str(value)
    if isinstance(value, tuple | list):
        items = (format_attr(v, symbol=symbol, quote=quote) for v in value)
        return "[" + ", ".join(items) + "]"
    raise TypeError(f"cannot print attribute value {value!r} of type {type(value).__name__}")


def format_loc(loc: Loc) -> str:
    """``loc("file.py":LINE:COL)`` with the 1-based line and 0-based column."""
    return f"loc({_quoted(loc.file)}:{loc.line}:{loc.col})"


# ---------------------------------------------------------------------------------
# instructions, functions, modules


def format_instruction(inst: Instruction, names: Names, *, locs: bool = False) -> str:
    """One instruction line (without indentation), names taken from ``names``."""
    body = _format_generic(inst, names)
    text = body
    if names.shows_result(inst):
        text = f"{names.value(inst)} = {body} : {inst.type}"
    if inst.unwind:
        text += " unwind(" + ", ".join(names.value(v) for v in inst.unwind) + ")"
    if locs and inst.loc != UNKNOWN_LOC:
        text += "  " + format_loc(inst.loc)
    return text


def _format_generic(inst: Instruction, names: Names) -> str:
    parts = [inst.OPNAME]
    after_word = True  # the opname or an attribute: followed by a space, not a comma
    fields = tuple(f for f in operation_fields(type(inst)) if f.kind != "flag")
    for index, spec in enumerate(fields):
        value = getattr(inst, spec.name)
        if spec.kind == "operand":
            if value is None:
                if all(
                    f.kind == "operand" and getattr(inst, f.name) is None for f in fields[index:]
                ):
                    break  # trailing absent operands are left out: ``ret``
                text = "none"
            else:
                text = names.value(value)
        elif spec.kind == "operands":
            items = value if isinstance(value, tuple | list) else (value,)
            text = "(" + ", ".join(names.value(v) for v in items) + ")"
        elif spec.kind == "successor":
            text = names.block(value)
        elif spec.kind == "edges":
            if not value:
                continue  # a phi without edges: ``phi``
            text = ", ".join(f"[{names.block(b)}: {names.value(v)}]" for b, v in value)
        elif not after_word and all(
            f.kind == "attr" and getattr(inst, f.name) == f.default for f in fields[index:]
        ):
            break  # trailing attributes at their defaults are left out: ``div %a, %b``
        else:
            if is_literal_annotation(spec.annotation):
                value = coerce_literal(value, inst.type)
            text = format_attr(value, symbol=spec.syntax == "symbol", quote=spec.syntax == "text")
        if spec.kind == "operands" and after_word:
            sep = ""
        else:
            sep = " " if after_word else ", "
        parts.append(sep + text)
        after_word = spec.kind == "attr"
    flags = [
        f.name for f in operation_fields(type(inst)) if f.kind == "flag" and getattr(inst, f.name)
    ]
    if flags:
        parts.append(" {" + ", ".join(flags) + "}")
    return "".join(parts)


def print_instruction(inst: Instruction, *, locs: bool = False) -> str:
    """One instruction, named as in its function's printout (for diagnostics)."""
    fn = inst.function
    names = Names(fn if fn is not None else Function("?"))
    return format_instruction(inst, names, locs=locs)


def print_function(fn: Function, *, locs: bool = False) -> str:
    """The text of one function, ending in a newline.

    Args:
        fn: the function (need not be valid: broken IR prints as far as possible).
        locs: end each instruction line (and the ``func`` line) with its location,
            ``loc("file.py":12:4)``, unless the location is unknown.
    """
    names = Names(fn)
    params = ", ".join(f"{names.value(p)}: {p.type}" for p in fn.params)
    head = f"func {format_symbol(fn.name)}({params}) -> {fn.return_type}"
    if fn.exported:
        head += " export"
    if fn.source_name and fn.source_name != fn.name:
        head += f" source_name {_quoted(fn.source_name)}"
    if locs and fn.loc != UNKNOWN_LOC:
        head += " " + format_loc(fn.loc)
    lines = [head + " {"]
    for b in fn.blocks:
        lines.append(names.block(b) + ":")
        for inst in b.instructions:
            lines.append("  " + format_instruction(inst, names, locs=locs))
    lines.append("}")
    return "\n".join(lines) + "\n"


def print_module(mod: Module, *, locs: bool = False) -> str:
    """The text of a module: a ``module`` line, then each function after a blank line.

    Args:
        mod: the module.
        locs: print instruction locations (see :func:`print_function`).
    """
    head = f"module {format_symbol(mod.name)}"
    if mod.source_file:
        head += f" source {_quoted(mod.source_file)}"
    chunks = [head + "\n"]
    chunks.extend(print_function(fn, locs=locs) for fn in mod.functions.values())
    return "\n".join(chunks)


__all__ = [
    "LITERAL_WORDS",
    "Names",
    "OpField",
    "coerce_literal",
    "format_attr",
    "format_instruction",
    "format_loc",
    "format_string",
    "format_symbol",
    "has_result",
    "is_literal_annotation",
    "operation_fields",
    "print_function",
    "print_instruction",
    "print_module",
]
