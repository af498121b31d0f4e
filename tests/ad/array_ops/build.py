"""Build a test module at -O0 and load it, with its plain-Python twin.

The derivative tests check what the IR passes build (AD rules, array lowering); LLVM's
optimiser only adds build time to modules of a hundred or more exports.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any


def build_and_load(path: Path, out: Path) -> tuple[Any, ModuleType]:
    """(the library ``gradc build -O0`` makes of ``path``, written under ``out``; the
    module run by Python and NumPy: its exports are plain functions under the tests'
    ``GRADC_PLAIN_PYTHON=1``)."""
    import gradc
    from gradc.artifacts.store import write_artifact
    from gradc.compiler.driver import build_module
    from gradc.compiler.options import CompilerOptions

    write_artifact(out, build_module(path, CompilerOptions(opt_level=0)))
    spec = importlib.util.spec_from_file_location(f"{path.stem}_plain", path)
    assert spec is not None and spec.loader is not None
    plain = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plain)
    return gradc.load(out), plain
