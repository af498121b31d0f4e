"""``gradc build`` of a scalar module keeps off its critical path what such a build never
runs (issue 13, build latency: benchmarks/bench_build_latency.py): the ``lower-arrays``
pass and its rules, AD's rules, the process pool, ``subprocess`` and ``concurrent.futures``
(the store fsyncs with plain threads), what only errors and worker processes use,
hashlib and json."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CHILD = """\
import sys
from gradc.cli.main import main
sys.argv = ["gradc", "build", sys.argv[1], "-o", sys.argv[2]]
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
print(repr(sorted(sys.modules)))
"""

#: Imported by no scalar build without derivatives.
KEPT_OUT = (
    "subprocess",
    "concurrent.futures",
    "gradc.passes.arrays.lower",
    "gradc.passes.arrays.rules",
    "gradc.passes.ad.rules",
    # error paths and the warm pool's only (emit_pool, warm_pool, pipeline's crash site)
    "pickle",
    "signal",
    "traceback",
    # the vector exp's table only (compiler/codegen/vexp.py)
    "decimal",
    # OpenSSL's hashlib (gradc._hashing has SHA-256) and json (the printer quotes with _json)
    "hashlib",
    "_hashlib",
    "json",
)


def test_scalar_build_imports(tmp_path: Path) -> None:
    """examples/scalars.py builds without importing any module of :data:`KEPT_OUT`."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(REPO / "examples" / "scalars.py"), str(tmp_path / "s")],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "GRADC_CACHE_DIR": str(tmp_path / "cache")},
    )
    loaded = set(ast.literal_eval(done.stdout.splitlines()[-1]))
    assert "gradc.compiler.codegen.emit" in loaded  # it did compile
    assert sorted(m for m in KEPT_OUT if m in loaded) == []
