"""Where the source of code without a file is found (runtime mode, ``gradc.runtime_mode``).

A function defined in ``python -c``, ``python - < script.py``, at the interactive prompt
or in a Jupyter cell has no module file to compile. :func:`memory_source` finds its text
where Python or the shell keeps it; :func:`prelude_of` gives the imports of earlier cells
it relies on. This module imports only the standard library (``import gradc`` stays
cheap).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any


def memory_source(fn: Callable[..., Any]) -> tuple[str, str] | None:
    """``(display name, source text)`` of a function defined outside any file, else None.

    The text is looked up, in order, in ``linecache`` (IPython registers each cell there,
    Python 3.13's REPL each input; it also asks the module's ``__loader__``), in ``sys.orig_argv`` (the ``-c`` command, for
    ``<string>``), in standard input when it is a regular file (``python - < m.py``,
    for ``<stdin>``) and in the ``readline`` history of Python's interactive prompt (for
    ``<stdin>``: :func:`_history_text`). A text counts only if it defines ``fn``'s name at ``fn``'s first
    line (so ``exec`` of another string is never mistaken for the ``-c`` command). The
    display name is ``Cell In[N]`` for an IPython cell (as its tracebacks say), else the
    code's file name (``<string>``, ``<stdin>``).
    """
    import linecache

    filename = fn.__code__.co_filename
    # getlines also asks the module's loader (a module in a zip file, for one).
    texts = ["".join(linecache.getlines(filename, fn.__globals__))]
    if filename == "<string>":
        texts.append(_dash_c_command() or "")
    if filename == "<stdin>":
        texts.append(_stdin_file_text() or "")
        texts.append(_history_text(fn) or "")
    for text in texts:
        if text and _defines(text, fn):
            return _display_name(filename), text
    return None


def prelude_of(fn: Callable[..., Any], text: str) -> str:
    """Import statements for the names ``text`` uses but does not import, bound in
    ``fn``'s globals to ``gradc``, ``numpy`` or ``math`` or to a name of theirs (the
    imports of earlier notebook cells or REPL inputs), one per line, sorted; ``""`` when
    there are none. Only what the front end reads from imports is reproduced."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ""
    imported: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            imported.update((a.asname or a.name).split(".")[0] for a in node.names)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - imported
    modules = {m: sys.modules.get(m) for m in ("gradc", "numpy", "math")}
    lines = []
    for name in sorted(used):
        value = fn.__globals__.get(name)
        if value is None:
            continue
        for module_name, module in modules.items():
            if module is None:
                continue
            if value is module:
                lines.append(f"import {module_name} as {name}")
                break
            attr = getattr(value, "__name__", None)
            if isinstance(attr, str) and getattr(module, attr, None) is value:
                lines.append(f"from {module_name} import {attr} as {name}")
                break
            if module_name == "gradc" and not isinstance(value, int | float | str | bytes):
                match = [k for k, v in vars(module).items() if v is value and not k.startswith("_")]
                if match:
                    lines.append(f"from gradc import {match[0]} as {name}")
                    break
    return "\n".join(lines)


def _dash_c_command() -> str | None:
    """The command of ``python -c CMD`` (``sys.orig_argv``), None for another launch."""
    argv = list(getattr(sys, "orig_argv", ()))
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--" or not arg.startswith("-") or arg.startswith("--") or arg == "-":
            return None  # a script, a long option (none takes -c after it), or stdin
        for j, flag in enumerate(arg[1:], 1):
            if flag == "c":
                rest = arg[j + 1 :]
                return rest or (argv[i + 1] if i + 1 < len(argv) else None)
            if flag == "m":
                return None
            if flag in "WX":  # the option's value is the rest or the next argument
                if j == len(arg) - 1:
                    i += 1
                break
        i += 1
    return None


def _history_text(fn: Callable[..., Any]) -> str | None:
    """``fn``'s definition as last typed at Python's interactive prompt (from the
    ``readline`` history: the prompt compiles each input on its own, so the definition
    starts at line 1, as ``fn``'s code says), followed by the one-line derivative
    declarations of ``fn`` typed so far (``d_f = gradc.grad(f, ...)``); None without an
    interactive prompt with ``readline``, or when no typed definition matches."""
    import ast

    readline = sys.modules.get("readline")
    if readline is None or not hasattr(sys, "ps1"):
        return None
    try:
        count = readline.get_current_history_length()
        lines = [readline.get_history_item(i) or "" for i in range(1, count + 1)]
    except (AttributeError, ValueError):
        return None
    name = fn.__name__
    declarations: dict[str, str] = {}  # the last declaration of each name
    for line in lines:
        if line.startswith(" ") or name not in line:
            continue
        try:
            node = ast.parse(line).body[0]
        except (SyntaxError, ValueError, IndexError):
            continue
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and node.value.args
            and isinstance(node.value.args[0], ast.Name)
            and node.value.args[0].id == name
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            declarations.pop(node.targets[0].id, None)
            declarations[node.targets[0].id] = line
    for start in range(len(lines) - 1, -1, -1):
        if not lines[start].startswith(f"def {name}("):
            continue
        while start > 0 and lines[start - 1].startswith("@"):
            start -= 1
        end = start
        while lines[end].startswith("@"):  # the decorators, then the def line
            end += 1
        end += 1
        while end < len(lines) and lines[end][:1].isspace():  # the body
            end += 1
        text = "\n".join([*lines[start:end], *declarations.values()]) + "\n"
        if _defines(text, fn):
            return text
    return None


def _stdin_file_text() -> str | None:
    """The whole of standard input when it is a regular file (read without moving it)."""
    import stat

    try:
        info = os.fstat(0)
        if not stat.S_ISREG(info.st_mode):
            return None
        return os.pread(0, info.st_size, 0).decode("utf-8")
    except (OSError, UnicodeDecodeError, AttributeError):
        return None


def _defines(text: str, fn: Callable[..., Any]) -> bool:
    """``text`` defines a top-level function named like ``fn`` starting at its first line."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    first = fn.__code__.co_firstlineno
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == fn.__name__:
            if min([node.lineno, *(d.lineno for d in node.decorator_list)]) == first:
                return True
    return False


def _display_name(filename: str) -> str:
    """``Cell In[N]`` for the file name IPython gave cell N, else ``filename``."""
    ipython = sys.modules.get("IPython")
    get_shell = getattr(ipython, "get_ipython", None)
    shell = get_shell() if get_shell is not None else None
    numbers = getattr(getattr(shell, "compile", None), "_filename_map", None)
    number = numbers.get(filename) if isinstance(numbers, dict) else None
    return f"Cell In[{number}]" if isinstance(number, int) else filename
