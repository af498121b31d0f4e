"""User imports in the front end: resolution, IR naming, files read, and errors.

Programs are written to a temporary directory and compiled up to typed IR; results of
compiled code are checked against CPython in tests/frontend/test_module_imports.py.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from gradc.compiler.diagnostics import CompileError
from gradc.compiler.frontend.module_scan import ModuleInfo, scan_module
from gradc.compiler.frontend.source import SourceFile
from gradc.compiler.infer import infer_module
from gradc.compiler.ir.core import Module


def write(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> source) under ``root``; return ``root/main.py``."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root / "main.py"


def scan(path: Path | str) -> ModuleInfo:
    return scan_module(SourceFile.read(path), Path(path).stem)


def compile_ir(path: Path | str) -> Module:
    return infer_module(scan(path))


def error_of(path: Path | str) -> CompileError:
    with pytest.raises(CompileError) as info:
        compile_ir(path)
    return info.value


MAIN_F = """
import gradc
from gradc import f64
import helpers

@gradc.export
def run(x: f64) -> f64:
    return helpers.f(x)
"""


# -- naming and reachability ---------------------------------------------------------


def test_only_reached_functions_are_lowered_and_named_by_module(tmp_path: Path) -> None:
    main = write(
        tmp_path,
        {
            "main.py": """
                import gradc
                from gradc import f64
                from helpers import f

                def g(x):
                    return x + 1

                @gradc.export
                def run(x: f64) -> f64:
                    return f(x) + g(x)
            """,
            "helpers.py": """
                def g(x):
                    return 2 * x

                def f(x):
                    return g(x) * 3

                def unrelated(x):
                    return x[0]  # would not even type-check with a float
            """,
        },
    )
    module = compile_ir(main)
    assert set(module.functions) == {"run", "g.f64", "helpers.f.f64", "helpers.g.f64"}


def test_files_lists_every_source_read_as_absolute_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        tmp_path,
        {
            "main.py": "import pkg.sub\nfrom helpers import K\n",
            "helpers.py": "K = 1\n",
            "pkg/__init__.py": "",
            "pkg/sub.py": "from . import other\n",
            "pkg/other.py": "import os\n",
            "unused.py": "",
        },
    )
    monkeypatch.chdir(tmp_path)
    info = scan("main.py")
    assert info.files == tuple(
        str(tmp_path / p)
        for p in ("main.py", "pkg/__init__.py", "pkg/sub.py", "pkg/other.py", "helpers.py")
    )
    assert all(os.path.isabs(f) for f in info.files)


def test_a_cycle_of_from_imports_resolves_lazily(tmp_path: Path) -> None:
    # CPython itself fails on this program (a partially initialised module); gradc reads
    # every file before resolving names, so the cycle is harmless here.
    main = write(
        tmp_path,
        {
            "main.py": """
                import gradc
                from gradc import i64
                from even import is_even

                @gradc.export
                def run(n: i64) -> bool:
                    return is_even(n)
            """,
            "even.py": """
                from odd import is_odd

                def is_even(n):
                    return True if n == 0 else is_odd(n - 1)
            """,
            "odd.py": """
                from even import is_even

                def is_odd(n):
                    return False if n == 0 else is_even(n - 1)
            """,
        },
    )
    assert set(compile_ir(main).functions) == {"run", "even.is_even.i64", "odd.is_odd.i64"}


@pytest.mark.parametrize(
    ("main_src", "expected"),
    [
        ("from helpers import f\ndef f(x):\n    return x\n", "f.f64"),
        ("def f(x):\n    return x\nfrom helpers import f\n", "helpers.f.f64"),
    ],
    ids=["def-after-import", "import-after-def"],
)
def test_a_later_binding_of_a_name_wins(tmp_path: Path, main_src: str, expected: str) -> None:
    main = write(
        tmp_path,
        {
            "main.py": main_src
            + "import gradc\n@gradc.export\ndef run(x: float) -> float:\n    return f(x)\n",
            "helpers.py": "def f(x):\n    return x + 1\n",
        },
    )
    assert set(compile_ir(main).functions) == {"run", expected}


def test_imported_constants_fold_at_module_level(tmp_path: Path) -> None:
    main = write(
        tmp_path,
        {
            "main.py": "import helpers\nfrom helpers import A\nB = A * helpers.A + 1\n",
            "helpers.py": "import math\nA = 2 * math.pi\n",
        },
    )
    info = scan(main)
    assert info.constants["B"] == pytest.approx((2 * 3.141592653589793) ** 2 + 1, rel=1e-15)


def test_an_unused_foreign_import_is_accepted(tmp_path: Path) -> None:
    main = write(
        tmp_path,
        {
            "main.py": MAIN_F,
            "helpers.py": "import os\nfrom json import dumps\n\ndef f(x):\n    return x\n",
        },
    )
    assert "helpers.f.f64" in compile_ir(main).functions


# -- errors --------------------------------------------------------------------------


def test_missing_module_names_the_importing_file_line_and_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"main.py": "import math\nimport math, nothere_xyz\n"})
    monkeypatch.chdir(tmp_path)
    err = error_of("main.py")
    assert (err.loc.file, err.loc.line, err.loc.col) == ("main.py", 2, 13)
    assert "no module named 'nothere_xyz'" in err.message
    assert str(err).startswith("main.py:2:14: error: no module named 'nothere_xyz'")


def test_missing_module_in_a_from_import(tmp_path: Path) -> None:
    main = write(tmp_path, {"main.py": "\nfrom nothere_xyz.sub import f\n"})
    err = error_of(main)
    assert (err.loc.file, err.loc.line, err.loc.col) == (str(main), 2, 0)
    assert "no module named 'nothere_xyz.sub'" in err.message


def test_missing_submodule_of_a_user_package(tmp_path: Path) -> None:
    main = write(tmp_path, {"main.py": "import pkg.nope\n", "pkg/__init__.py": ""})
    err = error_of(main)
    assert "no module named 'pkg.nope'" in err.message
    assert (err.loc.line, err.loc.col) == (1, 7)


def test_missing_name_points_at_the_imported_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        tmp_path,
        {
            "main.py": "from helpers import f, nope as n\n",
            "helpers.py": "def f(x):\n    return x\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    err = error_of("main.py")
    assert (err.loc.file, err.loc.line, err.loc.col) == ("main.py", 1, 23)
    assert "cannot import name 'nope' from 'helpers' (helpers.py)" in err.message


def test_missing_attribute_of_an_imported_module(tmp_path: Path) -> None:
    main = write(tmp_path, {"main.py": MAIN_F.replace("helpers.f(x)", "helpers.g(x)")})
    (tmp_path / "helpers.py").write_text("def f(x):\n    return x\n")
    err = error_of(main)
    assert "module 'helpers'" in err.message and "has no attribute 'g'" in err.message
    assert (err.loc.file, err.loc.line, err.loc.col) == (str(main), 8, 11)


def test_type_error_inside_an_imported_file_names_that_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        tmp_path,
        {
            "main.py": MAIN_F,
            "helpers.py": "def f(x):\n    y = x + 1\n    return y[0]\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    err = error_of("main.py")
    assert (err.loc.file, err.loc.line) == ("helpers.py", 3)
    assert "cannot unpack or subscript a value of type f64" in err.message
    assert "    return y[0]\n" in str(err)  # the caret is under the helper's own line


def test_unsupported_construct_inside_a_package_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        tmp_path,
        {
            "main.py": "import gradc\nfrom pkg.sub import f\n"
            "@gradc.export\ndef run(x: float) -> float:\n    return f(x)\n",
            "pkg/__init__.py": "",
            "pkg/sub.py": "def f(x):\n    return x @ x\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    err = error_of("main.py")
    assert (err.loc.file, err.loc.line, err.loc.col) == (os.path.join("pkg", "sub.py"), 2, 11)
    assert "'@' of a scalar (f64) is not supported" in err.message


def test_syntax_error_in_an_imported_file(tmp_path: Path) -> None:
    main = write(tmp_path, {"main.py": "import helpers\n", "helpers.py": "def f(:\n"})
    err = error_of(main)
    assert err.loc.file == str(tmp_path / "helpers.py") and err.loc.line == 1
    assert "invalid syntax" in err.message


@pytest.mark.parametrize(
    ("files", "message", "file", "line"),
    [
        (
            {"main.py": "from . import x\n"},
            "attempted relative import with no known parent package",
            "main.py",
            1,
        ),
        (
            {"main.py": "import pkg.a\n", "pkg/__init__.py": "", "pkg/a.py": "from .. import b\n"},
            "attempted relative import beyond top-level package",
            "pkg/a.py",
            1,
        ),
        (
            {"main.py": "from helpers import *\n", "helpers.py": ""},
            "'from helpers import *' is not supported",
            "main.py",
            1,
        ),
        (
            {"main.py": "import helpers.sub\n", "helpers.py": ""},
            "no module named 'helpers.sub' ('helpers' is not a package)",
            "main.py",
            1,
        ),
        (
            {
                "main.py": "from a import x\n",
                "a.py": "from b import x\n",
                "b.py": "from a import x\n",
            },
            "circular",
            "a.py",
            1,
        ),
    ],
    ids=["no-package", "beyond-top", "star", "not-a-package", "circular-names"],
)
def test_bad_imports(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    files: dict[str, str],
    message: str,
    file: str,
    line: int,
) -> None:
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    err = error_of("main.py")
    assert message in err.message
    assert (err.loc.file, err.loc.line) == (os.path.normpath(file), line)


@pytest.mark.parametrize(
    ("helpers", "body", "message"),
    [
        (
            "import json\n",
            "json.dumps(x)",
            "json.dumps (standard library) cannot be called from compiled code",
        ),
        (
            "from os.path import join\n",
            "join(x)",
            "os.path.join (standard library) cannot be called from compiled code",
        ),
        ("import os\n", "os.sep", "os.sep (standard library) cannot be used from compiled"),
        (
            "import click\n",
            "click.echo(x)",
            "click.echo (module 'click' is not a file of this program) cannot be called",
        ),
        (
            "NAMES = ['a']\n",
            "helpers.NAMES",
            "module variable 'helpers.NAMES' (helpers.py, line 1)",
        ),
        ("K = 2\n", "helpers.K(x)", "module constant 'helpers.K' is not callable"),
        ("def f(x):\n    return x\n", "helpers.f", "function 'helpers.f' can only be called"),
        ("", "helpers", "module 'helpers' can be used only to reach its functions"),
    ],
    ids=[
        "foreign-module",
        "foreign-name",
        "foreign-value",
        "foreign-third-party",
        "non-constant",
        "constant-call",
        "function-value",
        "module-value",
    ],
)
def test_bad_uses_of_imported_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helpers: str, body: str, message: str
) -> None:
    main_src = (
        f"import gradc\nimport helpers\n{helpers}"
        f"@gradc.export\ndef run(x: float):\n    return {body}\n"
    )
    write(tmp_path, {"main.py": main_src, "helpers.py": helpers})
    monkeypatch.chdir(tmp_path)
    err = error_of("main.py")
    assert message in err.message
    assert (err.loc.file, err.loc.line) == ("main.py", main_src.count("\n"))


def test_clashing_ir_names_are_an_error_not_a_silent_mixup(tmp_path: Path) -> None:
    main = write(
        tmp_path,
        {
            "main.py": """
                import gradc
                import a as mod

                def a(x, y):
                    return x * y

                @gradc.export
                def run(x: float) -> float:
                    return a(x, x) + mod.f64(x)
            """,
            # module a's function f64(f64) and main's a(f64, f64) are both 'a.f64.f64'
            "a.py": "def f64(x):\n    return x + 1\n",
        },
    )
    err = error_of(main)
    assert "same IR name 'a.f64.f64'" in err.message
