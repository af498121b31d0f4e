"""Setuptools integration: compile a package's gradc modules in its build step.

A package that ships precompiled kernels names this ``build_py`` command and lists its
gradc modules in ``pyproject.toml``::

    [build-system]
    requires = ["setuptools>=64", "wheel", "gradc"]
    build-backend = "setuptools.build_meta"

    [tool.setuptools.cmdclass]
    build_py = "gradc.setuptools.build_py"
    bdist_wheel = "gradc.setuptools.bdist_wheel"

    [tool.gradc]
    modules = ["mypkg/kernels.py"]      # paths relative to the project root
    build-args = ["-O3"]                # optional: more ``gradc build`` options
    with-texts = false                  # optional: ship IR/LLVM/asm texts (gradc inspect)

Building the wheel (``pip wheel .``, ``python -m build``) then runs ``gradc build
mypkg/kernels.py -o <build_lib>/mypkg/kernels.gradc`` for every listed module, after the
ordinary ``build_py``, so the wheel carries ``mypkg/kernels.gradc/`` (manifest and
content-addressed objects; the writers' lock file and, unless ``with-texts = true``, the
IR/LLVM/assembly texts of ``gradc inspect`` are left out: ``--no-texts``) as package data. Installed,
the package loads it without compiling::

    lib = gradc.load(Path(__file__).with_name("kernels.gradc"))

The wheel carries machine code, so :class:`bdist_wheel` tags it for the platform that
built it and for CPython's stable ABI (``cp311-abi3-linux_x86_64``: the export objects
call no Python API, their fast-call wrappers only the limited API), never
``py3-none-any``, which pip would install on any machine. For PyPI, build each platform
with cibuildwheel (``auditwheel repair`` then gives the ``manylinux`` tag), as
docs/artifacts.md "Packaging" shows.

In an editable install (``pip install -e .``) the artifact is written next to the source
module instead (``mypkg/kernels.gradc``). A compile error fails the build with gradc's
diagnostic. ``examples/package_demo`` is a complete example; docs/artifacts.md
"Packaging" describes it.

This module is imported only by setuptools, never by ``import gradc``.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
import warnings
from pathlib import Path
from typing import Any

from setuptools.command.build_py import build_py as _setuptools_build_py
from setuptools.errors import ExecError, OptionError

__all__ = ["bdist_wheel", "build_py", "gradc_config"]

#: The stable-ABI tag of wheels with gradc artifacts: CPython >= 3.11, gradc's own floor.
LIMITED_API_TAG = "cp311"

try:
    from setuptools.command.bdist_wheel import bdist_wheel as _bdist_wheel
except ImportError:  # setuptools < 70.1: the command lives in ``wheel``
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # "no longer the canonical location"
        from wheel.bdist_wheel import bdist_wheel as _bdist_wheel

#: The writers' lock file of an artifact directory (gradc.artifacts.store.LOCK_NAME).
_LOCK_NAME = ".lock"


def gradc_config(project_dir: str | Path) -> tuple[list[str], list[str]]:
    """The ``[tool.gradc]`` table of ``project_dir/pyproject.toml``: (modules, build args).

    ``modules`` are paths of gradc source files relative to the project root, ``build
    args`` extra ``gradc build`` options, with ``--no-texts`` first unless the table says
    ``with-texts = true``. Both are empty when there is no such table.

    Raises:
        setuptools.errors.OptionError: the table has the wrong shape (naming the key).
    """
    path = Path(project_dir) / "pyproject.toml"
    if not path.is_file():
        return [], []
    with path.open("rb") as f:
        table = tomllib.load(f).get("tool", {}).get("gradc", {})
    modules = table.get("modules", [])
    args = table.get("build-args", [])
    for key, value in (("modules", modules), ("build-args", args)):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise OptionError(f"{path}: [tool.gradc] {key} must be a list of strings")
    with_texts = table.get("with-texts", False)
    if not isinstance(with_texts, bool):
        raise OptionError(f"{path}: [tool.gradc] with-texts must be true or false")
    return list(modules), ([] if with_texts or not modules else ["--no-texts"]) + list(args)


class build_py(_setuptools_build_py):  # lower case: the name of the setuptools command
    """setuptools' ``build_py`` that also runs ``gradc build`` for ``[tool.gradc] modules``.

    Each module ``pkg/m.py`` becomes the artifact directory ``pkg/m.gradc`` in the build
    tree (in the source tree for editable installs), through ``python -m gradc build`` in a
    child process (the same interpreter).

    Raises:
        setuptools.errors.OptionError: a listed module does not exist or is not a ``.py``.
        setuptools.errors.ExecError: ``gradc build`` failed (its diagnostic is printed).
    """

    def run(self) -> None:
        super().run()
        self._gradc_outputs: list[str] = []
        modules, args = gradc_config(Path.cwd())
        for module in modules:
            self._gradc_outputs.extend(self._build_one(Path(module), args))

    def _build_one(self, module: Path, args: list[str]) -> list[str]:
        source = Path.cwd() / module
        if module.suffix != ".py" or not source.is_file():
            raise OptionError(f"[tool.gradc] modules: {module} is not a Python source file")
        root = Path.cwd() if getattr(self, "editable_mode", False) else Path(self.build_lib)
        out = root / module.with_suffix(".gradc")
        command = [sys.executable, "-m", "gradc", "build", str(source), "-o", str(out), *args]
        self.announce(f"gradc build {module} -> {out}", level=2)
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            sys.stderr.write(done.stdout + done.stderr)
            raise ExecError(f"gradc build {module} failed (exit status {done.returncode})")
        (out / _LOCK_NAME).unlink(missing_ok=True)
        return sorted(str(p) for p in out.rglob("*") if p.is_file())

    def get_outputs(self, *args: Any, **kwargs: Any) -> list[str]:
        """The ordinary outputs and every file of the artifacts built."""
        outputs: list[str] = super().get_outputs(*args, **kwargs)
        return outputs + list(getattr(self, "_gradc_outputs", []))


class bdist_wheel(_bdist_wheel):  # type: ignore[misc,valid-type]  # setuptools' name
    """``bdist_wheel`` for a package with gradc artifacts: a platform wheel (its objects
    run on this machine's platform only) for CPython's stable ABI, e.g.
    ``package-1.0-cp311-abi3-linux_x86_64.whl``, never ``py3-none-any``; the files go to
    ``platlib`` (``Root-Is-Purelib: false``). ``--py-limited-api`` and ``--plat-name``
    still override the tag."""

    def finalize_options(self) -> None:
        # Built like a package with extension modules: build_lib is the platform build
        # folder and the files sit at the wheel's root (platlib), not under .data/purelib.
        self.distribution.has_ext_modules = lambda: True
        super().finalize_options()
        if not self.py_limited_api:
            self.py_limited_api = LIMITED_API_TAG
