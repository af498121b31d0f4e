"""Python constructs gradc does not compile, in words, with what to write instead.

The front end reports an unsupported expression or statement with :func:`unsupported`:
what the construct is (``a list literal``, never the ``ast`` class name ``List``) and,
where there is a standard alternative, a ``help:`` line saying it::

    m.py:7:11: error: a list literal is not supported in compiled code
        return [x, y]
               ^^^^^^
    help: for an array, allocate it with np.empty(n) or np.zeros(n) and assign its
    elements; for a fixed group of values, use a tuple (x, y)
"""

from __future__ import annotations

import ast

#: ``ast`` class -> (what it is, what to write instead or ``""``).
_CONSTRUCTS: dict[type[ast.AST], tuple[str, str]] = {
    # expressions
    ast.List: (
        "a list literal",
        "for an array, allocate it with np.empty(n) or np.zeros(n) and assign its elements; "
        "for a fixed group of values, use a tuple (x, y)",
    ),
    ast.ListComp: (
        "a list comprehension",
        "allocate the result with np.empty(n) and fill it in a for loop",
    ),
    ast.SetComp: ("a set comprehension", ""),
    ast.DictComp: ("a dict comprehension", ""),
    ast.GeneratorExp: (
        "a generator expression",
        "accumulate in a for loop (s = 0.0; for i in range(n): s += ...)",
    ),
    ast.Dict: ("a dict literal", "pass the values as separate arguments, or use a tuple"),
    ast.Set: ("a set literal", "use a tuple (a, b) for a fixed group of values"),
    ast.Lambda: (
        "a lambda",
        "define a module-level function and call it by name",
    ),
    ast.Yield: ("yield (a generator)", "return an array filled in a loop"),
    ast.YieldFrom: ("yield from (a generator)", "return an array filled in a loop"),
    ast.NamedExpr: ("an assignment expression (:=)", "assign on a line of its own first"),
    ast.JoinedStr: (
        "an f-string",
        "f-strings are compiled only as the message of a raised exception",
    ),
    ast.Starred: ("a starred expression (*x)", "pass the elements one by one"),
    # statements
    ast.FunctionDef: (
        "a nested function definition",
        "define it at module level and pass what it uses as arguments",
    ),
    ast.AsyncFunctionDef: ("an async function definition", ""),
    ast.ClassDef: ("a class definition", "pass the fields as scalars or arrays"),
    ast.Try: (
        "a try statement",
        "compiled code cannot catch exceptions: test the condition with if before the "
        "operation that would raise, or catch the exception around the call in Python",
    ),
    ast.With: ("a with statement", ""),
    ast.Delete: ("a del statement", "let the variable go out of scope, or rebind it"),
    ast.Global: (
        "a global statement",
        "pass the value as an argument and return its new value",
    ),
    ast.Import: ("an import inside a function", "import at the top of the module"),
    ast.ImportFrom: ("an import inside a function", "import at the top of the module"),
    ast.Match: ("a match statement", "use if / elif / else"),
}

_CONSTRUCTS[ast.TryStar] = ("a try/except* statement", _CONSTRUCTS[ast.Try][1])


def describe(node: ast.AST) -> str:
    """What ``node`` is, in words (``"a list literal"``); for a construct without an
    entry, ``"the <kind> '<source text>'"``."""
    found = _CONSTRUCTS.get(type(node))
    if found is not None:
        return found[0]
    kind = "statement" if isinstance(node, ast.stmt) else "expression"
    text = ast.unparse(node).splitlines()[0]
    return f"the {kind} '{text[:40]}'"


def unsupported(node: ast.AST, *, as_target: bool = False) -> tuple[str, str]:
    """``(message, help)`` for an unsupported ``node``: ``"a list literal is not supported
    in compiled code"`` and the alternative (``""`` when there is none). With
    ``as_target``, the construct is the target of an assignment."""
    what = describe(node)
    if as_target:
        return f"cannot assign to {what}", "assign to a variable or an array element a[i]"
    help = _CONSTRUCTS.get(type(node), ("", ""))[1]
    return f"{what} is not supported in compiled code", help


#: Operators gradc does not compile -> what to write instead.
_OPERATOR_HELP = {
    "in": "compare with == (x == a or x == b), or loop over the elements",
    "not in": "compare with != (x != a and x != b), or loop over the elements",
    "is": "compare values with ==; compiled code has no object identity",
    "is not": "compare values with !=; compiled code has no object identity",
}

#: Builtins gradc does not compile -> what to write instead.
_BUILTIN_HELP = {
    "print": "return the value and print it in Python, or raise an exception whose "
    "f-string message shows it",
    "sum": "accumulate in a for loop (s = 0.0; for v in a: s += v), or sum(a) of an array",
    "list": "allocate an array with np.empty(n) or np.zeros(n)",
    "tuple": "write the tuple (a, b) out",
    "sorted": "sort in Python before the call, or write the loop",
    "isinstance": "compiled code has static types: each parameter's type is declared",
    "round": "use math.floor, math.ceil or math.trunc (round() rounds halves to even)",
}


def operator_help(symbol: str) -> str:
    """What to write instead of the operator ``symbol`` (``"@"``), or ``""``."""
    return _OPERATOR_HELP.get(symbol, "")


def builtin_help(name: str) -> str:
    """What to write instead of calling the builtin ``name`` (``"print"``), or ``""``."""
    return _BUILTIN_HELP.get(name, "")
