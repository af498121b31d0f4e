"""Parse the textual IR written by :mod:`gradc.compiler.ir.printer` (grammar there).

The parser is generic: an operation is looked up by its ``OPNAME`` in
:data:`gradc.compiler.ir.ops.OPERATIONS` and its fields are read in the order
:func:`gradc.compiler.ir.printer.operation_fields` gives, attributes by their annotation.
Values and blocks may be used before their definition
(phis naming later values, branches to later blocks); names are resolved when the
function's closing ``}`` is read.

The parser checks syntax and names only (every value defined once, every used value and
block defined); everything else (terminators, dominance, types) is the verifier's job, so
that invalid IR can be written as text in tests.

    >>> fn = parse_function('''
    ... func @twice(%x: f64) -> f64 {
    ... ^entry:
    ...   %y = add %x, %x : f64
    ...   ret %y
    ... }''')
    >>> fn.blocks[0].instructions[0].OPNAME
    'add'
"""

from __future__ import annotations

import json
import re
import typing
from dataclasses import MISSING, dataclass, field
from enum import StrEnum
from typing import Any

from gradc.compiler.ir import ops
from gradc.compiler.ir.core import Argument, Block, Function, Instruction, Module, Value
from gradc.compiler.ir.lexer import IRParseError, Line, Tok
from gradc.compiler.ir.loc import UNKNOWN_LOC, Loc
from gradc.compiler.ir.printer import (
    OpField,
    coerce_literal,
    is_literal_annotation,
    operation_fields,
)
from gradc.compiler.ir.types import NONE, UNKNOWN, Type, parse_type

_INT = re.compile(r"[-+]?\d+")
_VALUE_NAME = re.compile(r"[^\W\d][\w.]*")


# ---------------------------------------------------------------------------------
# per-function name scope


@dataclass(eq=False, kw_only=True)
class _Forward(Value):
    """Placeholder for a value used before its definition; replaced at ``}``."""

    key: str = ""
    lineno: int = 0
    col: int = 0
    source_line: str = ""


@dataclass
class _Scope:
    fn: Function
    opened_at: int
    defs: dict[str, tuple[Value, int]] = field(default_factory=dict)
    forwards: dict[str, _Forward] = field(default_factory=dict)
    blocks: dict[str, Block] = field(default_factory=dict)
    block_defs: dict[str, int] = field(default_factory=dict)
    block_refs: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    block: Block | None = None

    def use(self, line: Line, tok: Tok) -> Value:
        key = tok.text[1:]
        if key in self.defs:
            return self.defs[key][0]
        if key not in self.forwards:
            self.forwards[key] = _Forward(
                key=key, lineno=line.lineno, col=tok.col, source_line=line.text
            )
        return self.forwards[key]

    def define(self, line: Line, tok: Tok, value: Value) -> None:
        key = tok.text[1:]
        if key in self.defs:
            first = self.defs[key][1]
            raise line.error(f"redefinition of {tok.text} (first defined on line {first})", tok)
        self.defs[key] = (value, line.lineno)

    def block_ref(self, line: Line, tok: Tok) -> Block:
        label = tok.text[1:]
        if label not in self.blocks:
            self.blocks[label] = Block(label)
        if label not in self.block_defs and label not in self.block_refs:
            self.block_refs[label] = (line.lineno, tok.col, line.text)
        return self.blocks[label]

    def close(self) -> None:
        """Resolve forward references; raise for the first undefined name in the text."""
        problems: list[tuple[int, int, str, str]] = []
        for key, fwd in self.forwards.items():
            if key not in self.defs:
                problems.append((fwd.lineno, fwd.col, f"undefined value %{key}", fwd.source_line))
        for label, (lineno, col, text) in self.block_refs.items():
            if label not in self.block_defs:
                problems.append((lineno, col, f"undefined block ^{label}", text))
        if problems:
            lineno, col, message, text = min(problems)
            raise IRParseError(message, lineno, col, text)
        if self.forwards:
            for inst in self.fn.instructions():
                for v in inst.operands():
                    if isinstance(v, _Forward):
                        inst.replace_operand(v, self.defs[v.key][0])
                if any(isinstance(v, _Forward) for v in inst.unwind):
                    inst.unwind = tuple(
                        self.defs[v.key][0] if isinstance(v, _Forward) else v for v in inst.unwind
                    )


def _hint(key: str) -> str | None:
    """The name hint of ``%key``: None for numbered values (``%3``)."""
    return key if _VALUE_NAME.fullmatch(key) else None


# ---------------------------------------------------------------------------------
# the parser


class _Parser:
    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.module_name: str | None = None
        self.module_source = ""
        self.module_line = 0
        self.functions: list[tuple[Function, int]] = []

    def run(self) -> None:
        scope: _Scope | None = None
        last: Line | None = None
        for index, text in enumerate(self.lines):
            line = Line(index + 1, text)
            if line.at_end():
                continue
            last = line
            if scope is None:
                scope = self._top_level(line)
            elif line.accept("punct", "}"):
                line.expect_end()
                scope.close()
                scope = None
            elif line.at("label") and line.at("punct", ":", k=1):
                self._block_label(line, scope)
            else:
                if scope.block is None:
                    raise line.error("expected a block label (^name:) before the first instruction")
                self._instruction(line, scope)
        if scope is not None:
            lineno = last.lineno if last is not None else 1
            text = last.text if last is not None else ""
            raise IRParseError(
                f"expected '}}' to close function @{scope.fn.name} (opened on line "
                f"{scope.opened_at})",
                lineno,
                len(text.rstrip()),
                text,
            )

    # -- module and function headers ------------------------------------------------

    def _top_level(self, line: Line) -> _Scope | None:
        if line.accept("word", "module"):
            if self.module_name is not None or self.functions:
                raise line.error("the 'module' line must come first, once", line.toks[0])
            self.module_name = self._symbol(line)
            self.module_line = line.lineno
            if line.accept("word", "source"):
                self.module_source = self._string(line)
            line.expect_end()
            return None
        if line.accept("word", "func"):
            return self._function_header(line)
        raise line.expected("'func' or 'module'")

    def _function_header(self, line: Line) -> _Scope:
        name = self._symbol(line)
        fn = Function(name, source_name=name)
        scope = _Scope(fn, line.lineno)
        line.punct("(")
        if not line.accept("punct", ")"):
            while True:
                tok = line.expect("value", what="a parameter (%name)")
                line.punct(":")
                arg = Argument(
                    type=self._type(line), name=_hint(tok.text[1:]), index=len(fn.params)
                )
                scope.define(line, tok, arg)
                fn.params.append(arg)
                if line.accept("punct", ")"):
                    break
                line.punct(",", "',' or ')'")
        line.expect("arrow", what="'->' and the return type")
        fn.return_type = self._type(line)
        if line.accept("word", "export"):
            fn.exported = True
        if line.accept("word", "source_name"):
            fn.source_name = self._string(line)
        fn.loc = self._loc(line)
        line.punct("{", "'{'")
        line.expect_end()
        self.functions.append((fn, line.lineno))
        return scope

    def _block_label(self, line: Line, scope: _Scope) -> None:
        tok = line.expect("label")
        line.punct(":")
        line.expect_end()
        label = tok.text[1:]
        if label in scope.block_defs:
            raise line.error(
                f"redefinition of block ^{label} (first defined on line {scope.block_defs[label]})",
                tok,
            )
        scope.block_defs[label] = line.lineno
        block = scope.blocks.setdefault(label, Block(label))
        block.function = scope.fn
        scope.fn.blocks.append(block)
        scope.block = block

    # -- instructions -----------------------------------------------------------------

    def _instruction(self, line: Line, scope: _Scope) -> None:
        assert scope.block is not None
        result: Tok | None = None
        if line.at("value") and line.at("punct", "=", k=1):
            result = line.expect("value")
            line.punct("=")
        op = line.expect("word", what="an operation name")
        cls = ops.OPERATIONS.get(op.text)
        if cls is None:
            raise line.error(f"unknown operation {op.text!r}", op)
        kwargs, literals = self._fields(line, scope, cls)
        if line.accept("punct", ":"):
            result_type = self._type(line)
        elif result is not None:
            raise line.expected("':' and the result type")
        else:
            result_type = UNKNOWN if cls.IS_TERMINATOR else NONE
        unwind = self._unwind(line, scope)
        loc = self._loc(line)
        line.expect_end()
        for name in literals:
            kwargs[name] = coerce_literal(kwargs[name], result_type)
        hint = _hint(result.text[1:]) if result is not None else None
        inst = cls(**kwargs, type=result_type, name=hint, loc=loc, unwind=unwind)
        scope.block.append(inst)
        if result is not None:
            scope.define(line, result, inst)

    def _unwind(self, line: Line, scope: _Scope) -> tuple[Value, ...]:
        if not (line.at("word", "unwind") and line.at("punct", "(", k=1)):
            return ()
        line.pos += 2
        values: list[Value] = []
        while True:
            values.append(scope.use(line, line.expect("value", what="a value (%name)")))
            if line.accept("punct", ")"):
                return tuple(values)
            line.punct(",", "',' or ')'")

    def _phi_edges(self, line: Line, scope: _Scope) -> list[tuple[Block, Value]]:
        edges: list[tuple[Block, Value]] = []
        if not line.at("punct", "["):
            return edges
        while True:
            line.punct("[", "'[' to start a phi edge")
            block = scope.block_ref(line, line.expect("label", what="a block label (^name)"))
            line.punct(":")
            value = scope.use(line, line.expect("value", what="a value (%name)"))
            line.punct("]")
            edges.append((block, value))
            if not line.accept("punct", ","):
                return edges

    def _fields(
        self, line: Line, scope: _Scope, cls: type[Instruction]
    ) -> tuple[dict[str, Any], list[str]]:
        kwargs: dict[str, Any] = {}
        literals: list[str] = []
        after_word = True  # after the opname or an attribute no comma is needed
        specs = operation_fields(cls)
        for index, spec in enumerate(f for f in specs if f.kind != "flag"):
            if spec.kind == "operand" and spec.optional:
                k = 0 if after_word else 1
                present = line.at("value", k=k) or line.at("word", "none", k=k)
                if present and not after_word:
                    line.punct(",")
                if not present or line.accept("word", "none"):
                    kwargs[spec.name] = None
                    after_word = False if present else after_word
                    continue
            elif (
                spec.kind == "attr"
                and spec.default is not MISSING
                and not after_word
                and not line.at("punct", ",")
            ):
                kwargs[spec.name] = spec.default  # left out at its default: ``div %a, %b``
                continue
            elif not after_word:
                line.punct(",", f"',' before {_what(spec, cls)}")
            elif index > 0:
                line.accept("punct", ",")
            if spec.kind == "operand":
                tok = line.expect("value", what=_what(spec, cls))
                kwargs[spec.name] = scope.use(line, tok)
            elif spec.kind == "operands":
                line.punct("(", _what(spec, cls))
                items: list[Value] = []
                if not line.accept("punct", ")"):
                    while True:
                        tok = line.expect("value", what="a value (%name)")
                        items.append(scope.use(line, tok))
                        if line.accept("punct", ")"):
                            break
                        line.punct(",", "',' or ')'")
                kwargs[spec.name] = tuple(items)
            elif spec.kind == "successor":
                tok = line.expect("label", what=_what(spec, cls))
                kwargs[spec.name] = scope.block_ref(line, tok)
            elif spec.kind == "edges":
                kwargs[spec.name] = self._phi_edges(line, scope)
            else:
                kwargs[spec.name] = self._attr(line, spec.annotation, _what(spec, cls))
                if is_literal_annotation(spec.annotation):
                    literals.append(spec.name)
            after_word = spec.kind == "attr"
        flags = {f.name for f in specs if f.kind == "flag"}
        if flags and line.accept("punct", "{"):
            while True:
                tok = line.expect(
                    "word", what=f"a flag of {cls.OPNAME!r} ({', '.join(sorted(flags))})"
                )
                if tok.text not in flags:
                    raise line.error(f"unknown flag {tok.text!r} of {cls.OPNAME!r}", tok)
                kwargs[tok.text] = True
                if line.accept("punct", "}"):
                    break
                line.punct(",", "',' or '}'")
        return kwargs, literals

    # -- leaves -------------------------------------------------------------------------

    def _attr(self, line: Line, ann: object, what: str) -> object:
        origin = typing.get_origin(ann)
        args = typing.get_args(ann)
        if origin is not None and type(None) in args:
            if line.accept("word", "none"):
                return None
            rest = [a for a in args if a is not type(None)]
            inner: object = rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]  # noqa: UP007
            return self._attr(line, inner, what)
        if is_literal_annotation(ann):
            tok = line.peek()
            if tok is not None and tok.kind == "word" and tok.text in ("true", "false"):
                line.pos += 1
                return tok.text == "true"
            tok = line.expect("number", what=what)
            return int(tok.text) if _INT.fullmatch(tok.text) else float(tok.text)
        if isinstance(ann, type) and issubclass(ann, StrEnum):
            text = self._attr(line, str, what)
            assert isinstance(text, str)
            try:
                return ann(text)
            except ValueError:
                return text  # not a member: the verifier names it (``unknown cmp predicate``)
        if ann is str:
            tok = line.peek()
            if tok is not None and tok.kind == "string":
                line.pos += 1
                return self._decode(line, tok)
            if tok is not None and tok.kind == "word":
                line.pos += 1
                return tok.text
            if tok is not None and tok.kind == "symbol":
                line.pos += 1
                return self._decode_symbol(line, tok)
            raise line.expected(what)
        if ann is bool:
            tok = line.peek()
            if tok is None or tok.kind != "word" or tok.text not in ("true", "false"):
                raise line.expected(what)
            line.pos += 1
            return tok.text == "true"
        if ann is int:
            tok = line.peek()
            if tok is None or tok.kind != "number" or not _INT.fullmatch(tok.text):
                raise line.expected(what)
            line.pos += 1
            return int(tok.text)
        if ann is float:
            return float(line.expect("number", what=what).text)
        if origin is tuple or origin is list:
            elem = args[0] if args else object
            line.punct("[", what)
            items: list[object] = []
            if not line.accept("punct", "]"):
                while True:
                    items.append(self._attr(line, elem, "a list element"))
                    if line.accept("punct", "]"):
                        break
                    line.punct(",", "',' or ']'")
            return tuple(items) if origin is tuple else items
        if isinstance(ann, type) and issubclass(ann, Type):
            return self._type(line)
        raise TypeError(f"the IR text format cannot read attributes annotated {ann!r}")

    def _type(self, line: Line) -> Type:
        first = line.peek()
        if first is None or not (
            first.kind == "word" or (first.kind == "punct" and first.text == "?")
        ):
            raise line.expected("a type")
        line.pos += 1
        end = first.end
        if first.kind == "word" and line.at("punct", "["):
            depth = 0
            while True:
                tok = line.peek()
                if tok is None:
                    raise line.expected("']' to close the type")
                line.pos += 1
                end = tok.end
                if tok.kind == "punct" and tok.text == "[":
                    depth += 1
                elif tok.kind == "punct" and tok.text == "]":
                    depth -= 1
                    if depth == 0:
                        break
        text = line.text[first.col : end]
        try:
            return parse_type(text)
        except ValueError as exc:
            raise line.error(f"invalid type {text!r}: {exc}", first) from None

    def _loc(self, line: Line) -> Loc:
        if not (line.at("word", "loc") and line.at("punct", "(", k=1)):
            return UNKNOWN_LOC
        line.pos += 2
        file = self._decode(line, line.expect("string", what="a quoted file name"))
        line.punct(":")
        lineno = self._nonnegative(line, "a line number")
        line.punct(":")
        col = self._nonnegative(line, "a column number")
        line.punct(")")
        loc = Loc(file, lineno, col)
        return UNKNOWN_LOC if loc == UNKNOWN_LOC else loc

    def _nonnegative(self, line: Line, what: str) -> int:
        tok = line.peek()
        if tok is None or tok.kind != "number" or not tok.text.isdigit():
            raise line.expected(what)
        line.pos += 1
        return int(tok.text)

    def _symbol(self, line: Line) -> str:
        return self._decode_symbol(line, line.expect("symbol", what="a symbol (@name)"))

    def _string(self, line: Line) -> str:
        return self._decode(line, line.expect("string", what="a quoted string"))

    def _decode_symbol(self, line: Line, tok: Tok) -> str:
        body = tok.text[1:]
        if body.startswith('"'):
            return self._decode(line, Tok("string", body, tok.col + 1))
        return body

    def _decode(self, line: Line, tok: Tok) -> str:
        try:
            value = json.loads(tok.text)
        except json.JSONDecodeError as exc:
            raise line.error(f"invalid string escape: {exc.msg}", tok) from None
        assert isinstance(value, str)
        return value


def _what(spec: OpField, cls: type[Instruction]) -> str:
    kind = {
        "operand": "a value (%name)",
        "operands": "'(' to open a list of values",
        "successor": "a block label (^name)",
        "edges": "'[' to start a phi edge",
        "attr": "an attribute",
    }[spec.kind]
    if spec.kind == "attr":
        ann = spec.annotation
        if ann is str or (isinstance(ann, type) and issubclass(ann, StrEnum)):
            kind = "a word or quoted string"
        elif ann is int:
            kind = "an integer"
        elif ann is float:
            kind = "a number"
        elif ann is bool:
            kind = "true or false"
        elif is_literal_annotation(ann):
            kind = "a number, true or false"
    return f"{kind} for {spec.name!r} of {cls.OPNAME!r}"


def parse_module(text: str) -> Module:
    """Parse a module: an optional ``module @name [source "file"]`` line, then functions.

    Returns:
        The module (name ``""`` when the ``module`` line is absent), with ``block.function``,
        ``inst.block``, ``Argument.index`` and value name hints (``%x`` → ``"x"``; numbered
        values such as ``%3`` get no name) set from the text.

    Raises:
        IRParseError: a syntax error, an unknown operation, a value or block defined twice
            or used without a definition, or two functions with one name; the error gives
            the line, the column and what was expected.
    """
    parser = _Parser(text)
    parser.run()
    mod = Module(parser.module_name or "", source_file=parser.module_source)
    for fn, lineno in parser.functions:
        if fn.name in mod.functions:
            source = parser.lines[lineno - 1]
            raise IRParseError(
                f"redefinition of function @{fn.name}", lineno, source.find("@"), source
            )
        mod.add(fn)
    return mod


def parse_function(text: str) -> Function:
    """Parse the text of exactly one function (no ``module`` line).

    Raises:
        IRParseError: as :func:`parse_module`, or the text holds a ``module`` line or
            not exactly one function.
    """
    parser = _Parser(text)
    parser.run()
    if parser.module_name is not None:
        source = parser.lines[parser.module_line - 1]
        raise IRParseError(
            "expected a single function, found a 'module' line", parser.module_line, 0, source
        )
    if len(parser.functions) != 1:
        if not parser.functions:
            raise IRParseError("expected a function, found none", 1, 0, "")
        lineno = parser.functions[1][1]
        source = parser.lines[lineno - 1]
        raise IRParseError(
            "expected a single function, found a second 'func'",
            lineno,
            source.find("func"),
            source,
        )
    return parser.functions[0][0]


__all__ = ["IRParseError", "parse_function", "parse_module"]
