"""Compile errors: invalid programs must fail with a CompileError that points at the
user's source line and column, with a caret under the offending construct.

Each program in tests/frontend/errors/ is one small module with a header::

    # expect-message: unsupported operator '@'      (substring of err.message)
    # expect-col: 11                                (0-based, like ast col_offset;
                                                     "a|b" lists accepted columns)
    # expect-node: BinOp                            (self-check of the header: the ast
                                                     node class found at line:col)
    # expect-help: np.empty(n)                      (optional: substring of err.help,
                                                     the ``help:`` line's text)
    # expect-carets: 6                              (optional: number of ``^`` under
                                                     the construct)
    # expect-note: in g(x: f64), called from f at *m.py:9
                                                    (optional, repeatable: the notes in
                                                     order, each a substring; * is any text)

and the comment ``# error-here`` on the accepted line(s) of the error. Programs without
``expect-col`` are type errors: only the line and the message are checked. Every program
except the syntax errors below is valid Python (it compiles with ``compile()``); it is
invalid for gradc for exactly the reason in its header.

The syntax errors are source strings (a file that does not parse would upset the linters);
for them the expected line is the one CPython's own SyntaxError reports.

Rendering, checked for every error: ``str(err)`` is ``file:line:col: error: message``
(col printed 1-based, as ``Loc.__str__`` does), then the source line, then a caret under
``err.loc.col``, as many as the construct is wide on that line (``err.end_col``; one
without it), then ``note: ...`` for each of ``err.notes`` (the call chain of an error in a
helper) and ``help: ...`` when ``err.help`` is set.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest

ERRORS_DIR = Path(__file__).parent / "errors"
MARKER = "# error-here"


@dataclass(frozen=True)
class Expectation:
    path: Path
    message: str
    lines: frozenset[int]
    cols: tuple[int, ...] | None  # None: a type error, the column is not checked
    nodes: tuple[str, ...]
    help: str | None = None  # None: not checked
    carets: int | None = None  # None: not checked
    notes: tuple[str, ...] = ()


def parse_expectation(path: Path) -> Expectation:
    text = path.read_text()
    header: dict[str, str] = {}
    notes: list[str] = []
    for line in text.splitlines():
        m = re.match(r"^# expect-([a-z]+): (.*)$", line)
        if m and m.group(1) == "note":
            notes.append(m.group(2).strip())
        elif m:
            header[m.group(1)] = m.group(2).strip()
    lines = frozenset(i for i, line in enumerate(text.splitlines(), 1) if MARKER in line)
    assert "message" in header, f"{path.name}: no expect-message header"
    assert lines, f"{path.name}: no '{MARKER}' line"
    cols = tuple(int(c) for c in header["col"].split("|")) if "col" in header else None
    nodes = tuple(header["node"].split("|")) if "node" in header else ()
    carets = int(header["carets"]) if "carets" in header else None
    return Expectation(
        path, header["message"], lines, cols, nodes, header.get("help"), carets, tuple(notes)
    )


ERROR_FILES = sorted(ERRORS_DIR.glob("*.py"))
EXPECTATIONS = [parse_expectation(p) for p in ERROR_FILES]

#: name -> source. The expected line is the one CPython's SyntaxError reports.
SYNTAX_ERRORS = {
    "syntax_incomplete_expression": (
        "import gradc\nfrom gradc import f64\n\n\n@gradc.export\n"
        "def f(x: f64) -> f64:\n    y = x +\n    return y\n"
    ),
    "syntax_unclosed_paren": (
        "import gradc\nfrom gradc import f64\n\n\n@gradc.export\n"
        "def f(x: f64) -> f64:\n    y = (x + 1.0\n    return y\n\n\nZ = 1\n"
    ),
    "syntax_bad_indent": (
        "import gradc\nfrom gradc import f64\n\n\n@gradc.export\n"
        "def f(x: f64) -> f64:\n    y = x\n      return y\n"
    ),
    "syntax_missing_colon": (
        "import gradc\nfrom gradc import f64\n\n\n@gradc.export\n"
        "def f(x: f64) -> f64:\n    if x > 0.0\n        return x\n    return -x\n"
    ),
}


def _build(path: Path):  # type: ignore[no-untyped-def]
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    return build_module(path, CompilerOptions())


def _compile_error_type() -> type[Exception]:
    from gradc.compiler.diagnostics import CompileError

    return CompileError


def _columns(text: str) -> int:
    """Terminal columns of ``text``: two per wide East Asian character (UAX #11)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def check_rendering(err: Exception, path: Path, source: str) -> None:
    """``str(err)``: head line, the source line, a caret under ``err.loc.col``."""
    loc = err.loc  # type: ignore[attr-defined]
    rendered = str(err).splitlines()
    m = re.match(r"^(.*):(\d+):(\d+): error: (.*)$", rendered[0])
    assert m, f"bad diagnostic head: {rendered[0]!r}"
    assert m.group(1).endswith(path.name), rendered[0]
    assert int(m.group(2)) == loc.line, rendered[0]
    assert int(m.group(3)) == loc.col + 1, rendered[0]
    assert m.group(4) == err.message, rendered[0]  # type: ignore[attr-defined]

    src = source.splitlines()[loc.line - 1]
    stripped = src.strip()
    assert len(rendered) >= 3, f"no source line and caret in:\n{err}"
    shown, caret = rendered[1], rendered[2]
    assert shown.strip() == stripped, f"source line shown: {shown!r}, expected {stripped!r}"
    assert caret.strip().startswith("^"), f"no caret in {caret!r}"
    indent = len(src) - len(src.lstrip())
    start = shown.index(stripped)
    # the line is shown without its indentation: a column inside it gets the caret at 0;
    # columns count code points, carets terminal columns (a CJK character takes two)
    col = max(loc.col, indent)
    assert caret.index("^") - start == _columns(src[indent:col]) + max(col - len(src), 0), (
        f"caret not under column {loc.col}:\n{shown}\n{caret}"
    )
    end_col = getattr(err, "end_col", None)
    end = col + 1 if end_col is None else max(min(end_col, len(src.rstrip())), col + 1)
    width = _columns(src[col:end])
    assert caret.strip() == "^" * max(width, 1), f"carets not under the construct:\n{err}"
    help = getattr(err, "help", "")
    after = [f"note: {n}" for n in getattr(err, "notes", [])] + ([f"help: {help}"] if help else [])
    assert rendered[3:] == after, f"not the notes then the help line after the carets:\n{err}"


# ------------------------------------------------------------------------- self-checks


def test_enough_error_programs() -> None:
    assert len(EXPECTATIONS) + len(SYNTAX_ERRORS) >= 24


@pytest.mark.parametrize("exp", EXPECTATIONS, ids=lambda e: e.path.stem)
def test_error_program_is_valid_python(exp: Expectation) -> None:
    """The header is right: the program compiles in CPython and the node is where it says."""
    source = exp.path.read_text()
    compile(source, str(exp.path), "exec")
    tree = ast.parse(source)
    assert any(
        "gradc.export" in line or "gradc.kernel" in line or "gradc.vectorize" in line
        for line in source.splitlines()
    ), "no export"
    if exp.cols is None:
        return
    assert exp.nodes, f"{exp.path.name}: expect-col needs expect-node"
    lines = source.splitlines()
    # ast counts UTF-8 bytes, expect-col code points (as errors do)
    found = {
        (type(n).__name__, n.lineno, len(lines[n.lineno - 1].encode()[: n.col_offset].decode()))
        for n in ast.walk(tree)
        if hasattr(n, "lineno") and hasattr(n, "col_offset")
    }
    for col in exp.cols:
        assert any((node, line, col) in found for node in exp.nodes for line in exp.lines), (
            f"{exp.path.name}: no {exp.nodes} node at line {sorted(exp.lines)}, col {col}"
        )


@pytest.mark.parametrize("name", sorted(SYNTAX_ERRORS))
def test_syntax_error_program_is_invalid(name: str) -> None:
    with pytest.raises(SyntaxError):
        compile(SYNTAX_ERRORS[name], f"{name}.py", "exec")


# ------------------------------------------------------------------------- the compiler


@pytest.mark.parametrize("exp", EXPECTATIONS, ids=lambda e: e.path.stem)
def test_compile_error(exp: Expectation) -> None:
    compile_error = _compile_error_type()
    with pytest.raises(compile_error) as info:
        _build(exp.path)
    err = info.value
    assert exp.message in err.message, f"message {err.message!r} lacks {exp.message!r}"
    assert err.loc.line in exp.lines, (
        f"error at line {err.loc.line}, expected {sorted(exp.lines)}:\n{err}"
    )
    if exp.cols is not None:
        assert err.loc.col in exp.cols, f"error at col {err.loc.col}, expected {exp.cols}:\n{err}"
    if exp.help is not None:
        assert exp.help in err.help, f"help {err.help!r} lacks {exp.help!r}"
    assert len(err.notes) == len(exp.notes), f"notes {err.notes}, expected {exp.notes}"
    for note, expected in zip(err.notes, exp.notes, strict=True):
        pattern = ".*".join(re.escape(part) for part in expected.split("*"))
        assert re.search(pattern, note), f"note {note!r} lacks {expected!r}"
    if exp.carets is not None:
        assert str(err).splitlines()[2].strip() == "^" * exp.carets, str(err)
    check_rendering(err, exp.path, exp.path.read_text())


@pytest.mark.parametrize("name", sorted(SYNTAX_ERRORS))
def test_syntax_error(name: str, tmp_path: Path) -> None:
    source = SYNTAX_ERRORS[name]
    with pytest.raises(SyntaxError) as syntax_error:
        compile(source, f"{name}.py", "exec")
    expected_line = syntax_error.value.lineno
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    compile_error = _compile_error_type()
    with pytest.raises(compile_error) as info:
        _build(path)
    err = info.value
    assert err.loc.line == expected_line, f"expected line {expected_line}:\n{err}"
    # CPython's message once, after "invalid syntax" unless it is that ("expected ':'")
    message = syntax_error.value.msg
    assert err.message in (message, f"invalid syntax: {message}"), err.message
    assert err.message.startswith("invalid syntax") or message.startswith("invalid syntax")
    assert "invalid syntax: invalid syntax" not in err.message
    check_rendering(err, path, source)
