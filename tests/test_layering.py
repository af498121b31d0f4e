"""Layering rules that import-linter cannot express (see pyproject.toml [tool.importlinter]).

- Only ``gradc.compiler.codegen`` imports ``llvmlite.ir`` (import-linter cannot name
  subpackages of external packages). The loader uses ``llvmlite.binding`` only.
- ``import gradc`` is cheap: no numpy, llvmlite, click or compiler (DESIGN.md §1).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE_FOLDERS = ("gradc", "cli", "compiler", "passes", "artifacts")


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
    return found


def test_only_codegen_imports_llvmlite_ir() -> None:
    codegen = ROOT / "compiler" / "codegen"
    offenders = []
    for folder in SOURCE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if codegen in path.parents:
                continue
            for line, name in _imports(path):
                if name == "llvmlite.ir" or name.startswith("llvmlite.ir."):
                    offenders.append(f"{path.relative_to(ROOT)}:{line}: imports {name}")
    assert offenders == []


def test_import_gradc_is_cheap() -> None:
    code = (
        "import sys, gradc\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('numpy', 'llvmlite', 'click', 'rich', 'msgpack') or m.startswith('gradc.compiler')"
        " or m.startswith('gradc.cli'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""


def test_load_imports_what_the_readme_says(tmp_path: Path) -> None:
    """README: ``gradc.load`` imports the loader and msgpack; numpy only for array
    signatures; never llvmlite (gradc's own linker), click or the compiler."""
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    out = tmp_path / "scalars.gradc"
    write_artifact(out, build_module(ROOT / "examples" / "scalars.py", CompilerOptions()))
    code = (
        "import sys, gradc\n"
        f"gradc.load({str(out)!r})\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('numpy', 'llvmlite', 'click', 'msgpack', 'fsspec', 's3fs', 'botocore', "
        "'aiobotocore', 'boto3') or m.startswith('gradc.compiler') "
        "or m.startswith('gradc.cli') or m == 'gradc.artifacts.remote')))\n"
    )
    loaded = set(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        .stdout.strip()
        .split(",")
    )
    assert "msgpack" in loaded
    assert not {m for m in loaded if m.split(".")[0] in ("numpy", "click", "llvmlite")}
    # the remote cache (gradc[remote]) is never on the load path
    remote = ("fsspec", "s3fs", "botocore", "aiobotocore", "boto3", "gradc.artifacts.remote")
    assert not {m for m in loaded if m.split(".")[0] in remote or m in remote}
    assert not {m for m in loaded if m.startswith(("gradc.compiler", "gradc.cli"))}
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "`gradc.load` imports the loader (`gradc.artifacts`) and msgpack" in readme
    assert "never llvmlite, click or the compiler" in readme
