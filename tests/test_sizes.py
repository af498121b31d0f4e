"""Module and function sizes (issue 16): no module over 600 lines, no function over 80
lines unless a ``# long-function: <reason>`` comment above its ``def`` says why.

The whole package is held to the limits (``size_report.SOURCE_FOLDERS``).
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def _size_report() -> ModuleType:
    """``scripts/size_report.py`` (not a package module), imported once."""
    spec = importlib.util.spec_from_file_location(
        "size_report", ROOT / "scripts" / "size_report.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["size_report"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_package_within_limits() -> None:
    sizes = _size_report()
    findings = sizes.report(sizes.SOURCE_FOLDERS)
    assert [str(f) for f in findings if not f.exempt] == []


def test_report_finds_long_module_and_function(tmp_path: Path) -> None:
    sizes = _size_report()
    body = "\n".join(f"    x{i} = {i}" for i in range(sizes.MAX_FUNCTION_LINES))
    long_fn = f"def long():\n{body}\n"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(
        "class C:\n    "
        + long_fn.replace("\n", "\n    ")
        + "\n"
        + "x = 1\n" * sizes.MAX_MODULE_LINES,
        encoding="utf-8",
    )
    (tmp_path / "pkg" / "b.py").write_text(
        "# long-function: one table, read top to bottom\n" + long_fn, encoding="utf-8"
    )
    (tmp_path / "pkg" / "c.py").write_text("def short():\n    return 1\n", encoding="utf-8")
    found = sizes.report(["pkg"], root=tmp_path)
    assert [(f.path, f.name, f.exempt) for f in found] == [
        ("pkg/a.py", "", False),
        ("pkg/a.py", "C.long", False),
        ("pkg/b.py", "long", True),
    ]
    assert found[1].lines == sizes.MAX_FUNCTION_LINES + 1


def test_exempt_comment_needs_a_reason(tmp_path: Path) -> None:
    sizes = _size_report()
    body = "\n".join(f"    x{i} = {i}" for i in range(sizes.MAX_FUNCTION_LINES))
    path = tmp_path / "m.py"
    path.write_text(f"# long-function:\n@staticmethod\ndef f():\n{body}\n", encoding="utf-8")
    assert [f.exempt for f in sizes.check_file(path, tmp_path)] == [False]
    path.write_text(
        f"# long-function: a dispatch table\n@staticmethod\ndef f():\n{body}\n",
        encoding="utf-8",
    )
    assert [f.exempt for f in sizes.check_file(path, tmp_path)] == [True]
