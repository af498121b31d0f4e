"""``versions.source`` (compiler/source_digest.py): in a source checkout the compiler's own
code is a cache-key component, so an edited compiler never reuses the objects the unedited
one made; an installed gradc has none. Checked on a copy of the package directories."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gradc.compiler import keys, source_digest

ROOT = Path(source_digest.__file__).resolve().parent.parent


def _copy_checkout(tmp: Path) -> Path:
    """A fake checkout: setup.cfg and the package directories' Python files."""
    root = tmp / "checkout"
    (root / "setup.cfg").parent.mkdir(parents=True)
    (root / "setup.cfg").write_text("[metadata]\nname = gradc\n")
    for name in ("compiler", "passes", "artifacts", "gradc"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture
def digest_of(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GRADC_CACHE_DIR", str(tmp_path / "cache"))

    def digest(root: Path | None) -> str:
        source_digest.source_digest.cache_clear()
        monkeypatch.setattr(source_digest, "_checkout_root", lambda: root)
        return source_digest.source_digest()

    yield digest
    source_digest.source_digest.cache_clear()


def test_an_edit_changes_the_digest_and_a_revert_restores_it(digest_of, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = _copy_checkout(tmp_path)
    first = digest_of(root)
    assert len(first) == 64 and digest_of(root) == first
    lowering = root / "compiler" / "codegen" / "lower_arith.py"
    original = lowering.read_text()
    lowering.write_text(original + "\n# an edit\n")
    edited = digest_of(root)
    assert edited != first
    lowering.write_text(original)
    assert digest_of(root) == first  # the content decides, not the modification time


def test_the_memo_is_keyed_by_the_files_stat(digest_of, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = _copy_checkout(tmp_path)
    first = digest_of(root)
    memos = list((tmp_path / "cache" / "runtime").glob("source-*"))
    assert [m.read_text() for m in memos] == [first]
    # a stale memo under the current fingerprint would be trusted: the fingerprint must
    # change with a file's size or time, so an edit of the same size is seen too
    target = root / "passes" / "__init__.py"
    text = target.read_text()
    st = target.stat()
    target.write_text(text.replace("a", "b", 1) if "a" in text else text + "#")
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert digest_of(root) != first


def test_an_installed_gradc_has_no_source_component(digest_of) -> None:  # type: ignore[no-untyped-def]
    assert digest_of(None) == ""
    assert "source" not in keys.versions("22.1.0")


def test_this_checkout_has_one() -> None:
    if not (ROOT / "setup.cfg").is_file():
        pytest.skip("gradc is installed, not a checkout")
    source_digest.source_digest.cache_clear()
    assert len(keys.versions("22.1.0")["source"]) == 64
