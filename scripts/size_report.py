"""List the package's modules over 600 lines and functions over 80 lines.

The house limits (issue 16): no module of the package over ``MAX_MODULE_LINES`` lines, no
function over ``MAX_FUNCTION_LINES`` lines except where a comment says why. A function is
exempt when the line just above its ``def`` (above its decorators, if any) or the ``def``
line itself carries a comment ``# long-function: <reason>`` with a non-empty reason.

A module's size is its physical line count; a function's size runs from its ``def`` line
to its last line (decorators not counted). Nested functions and methods are measured on
their own, and their lines also count towards the function around them.

Usage::

    python scripts/size_report.py                 # every source folder of the package
    python scripts/size_report.py compiler/frontend cli

Prints one line per finding (``path: module N lines`` / ``path:LINE: function NAME N
lines``) and exits 1 when there is any, 0 otherwise. ``tests/test_sizes.py`` imports
:func:`report` and checks the folders whose split has landed.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The package's source folders (setup.cfg package_dir): gradc/, cli/, compiler/, ...
SOURCE_FOLDERS = ("gradc", "cli", "compiler", "passes", "artifacts")
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80
_EXEMPT = re.compile(r"#\s*long-function:\s*\S")


@dataclass(frozen=True)
class Finding:
    """One module or function over its limit.

    ``path`` is relative to the repository root; ``line`` is 0 for a module and the
    ``def`` line for a function; ``name`` is ``""`` for a module and the qualified name
    (``Class.method``, ``outer.inner``) for a function; ``exempt`` says whether a
    ``# long-function:`` comment explains it (never true for modules).
    """

    path: str
    line: int
    name: str
    lines: int
    exempt: bool = False

    def __str__(self) -> str:
        if not self.name:
            return f"{self.path}: module {self.lines} lines"
        why = " (exempt: long-function comment)" if self.exempt else ""
        return f"{self.path}:{self.line}: function {self.name} {self.lines} lines{why}"


def _functions(
    tree: ast.AST, prefix: str = ""
) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function of ``tree`` with its qualified name, in source order."""
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = prefix + node.name
            found.append((name, node))
            found.extend(_functions(node, name + "."))
        elif isinstance(node, ast.ClassDef):
            found.extend(_functions(node, prefix + node.name + "."))
        else:
            found.extend(_functions(node, prefix))
    return found


def _is_exempt(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    candidates = [lines[node.lineno - 1]]
    if first >= 2:
        candidates.append(lines[first - 2])
    return any(_EXEMPT.search(text) for text in candidates)


def check_file(path: Path, root: Path = ROOT) -> list[Finding]:
    """The findings of one Python file (exempt functions included, marked)."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    rel = path.relative_to(root).as_posix()
    findings: list[Finding] = []
    if len(lines) > MAX_MODULE_LINES:
        findings.append(Finding(rel, 0, "", len(lines)))
    tree = ast.parse(text, filename=str(path))
    for name, node in _functions(tree):
        assert node.end_lineno is not None
        size = node.end_lineno - node.lineno + 1
        if size > MAX_FUNCTION_LINES:
            findings.append(Finding(rel, node.lineno, name, size, _is_exempt(lines, node)))
    return findings


def report(
    folders: tuple[str, ...] | list[str] = SOURCE_FOLDERS, root: Path = ROOT
) -> list[Finding]:
    """The findings of every ``*.py`` file under ``folders`` (relative to ``root``)."""
    findings: list[Finding] = []
    for folder in folders:
        base = root / folder
        paths = [base] if base.is_file() else sorted(base.rglob("*.py"))
        for path in paths:
            findings.extend(check_file(path, root))
    return findings


def main(argv: list[str]) -> int:
    findings = report(argv or SOURCE_FOLDERS)
    for finding in findings:
        print(finding)
    return 1 if any(not f.exempt for f in findings) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
