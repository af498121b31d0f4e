"""The manifest's ``sources`` covers every file the front end read (user imports too), so
runtime mode sees an edit of an imported helper as stale without compiling."""

from __future__ import annotations

import textwrap
from pathlib import Path

from gradc.artifacts.store import read_manifest, write_artifact
from gradc.compiler.driver import build_module
from gradc.compiler.options import CompilerOptions
from gradc.runtime_mode import is_fresh


def test_imported_helper_edit_makes_the_artifact_stale(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "util.py").write_text("def twice(x):\n    return 2.0 * x\n")
    main = tmp_path / "main.py"
    main.write_text(
        textwrap.dedent(
            """\
            import gradc
            from pkg.util import twice


            @gradc.export
            def f(x: float) -> float:
                return twice(x) + 1.0
            """
        )
    )
    out = tmp_path / "main.gradc"
    write_artifact(out, build_module(main, CompilerOptions()))
    manifest = read_manifest(out)
    assert set(manifest.sources) == {"main.py", "pkg/__init__.py", "pkg/util.py"}
    assert is_fresh(manifest, main, check_options=False)
    (tmp_path / "pkg" / "util.py").write_text("def twice(x):\n    return 3.0 * x\n")
    assert not is_fresh(manifest, main, check_options=False)
    (tmp_path / "pkg" / "util.py").unlink()
    assert not is_fresh(manifest, main, check_options=False)
