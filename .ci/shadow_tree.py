"""Build a symlink view of the repository laid out as the installed ``gradc`` package.

setup.cfg maps root folders into one namespace (``cli/`` -> ``gradc.cli`` ...). Static
tools that walk the file system instead of importing (mypy, import-linter's grimp) cannot
follow setuptools' editable-install finder, so ``.ci/run`` points them at this view:

    DEST/gradc/__init__.py -> ROOT/gradc/__init__.py
    DEST/gradc/cli         -> ROOT/cli
    DEST/gradc/compiler    -> ROOT/compiler   ...

Usage: ``python .ci/shadow_tree.py DEST`` (DEST is created; an existing DEST/gradc is
replaced).
"""

from __future__ import annotations

import configparser
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def package_dirs() -> dict[str, str]:
    """The ``package_dir`` mapping of setup.cfg: package name -> folder (relative)."""
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    mapping: dict[str, str] = {}
    for line in cfg["options"]["package_dir"].strip().splitlines():
        if line.strip():
            package, folder = (part.strip() for part in line.split("=", 1))
            mapping[package] = folder
    return mapping


def build(dest: Path) -> Path:
    """Create the view under ``dest`` and return ``dest / "gradc"``."""
    mapping = package_dirs()
    top = dest / "gradc"
    if top.exists() or top.is_symlink():
        shutil.rmtree(top)
    top.mkdir(parents=True)
    for entry in sorted((ROOT / mapping["gradc"]).iterdir()):
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(entry)
    for package, folder in sorted(mapping.items()):
        if package == "gradc":
            continue
        parts = package.split(".")[1:]
        link = top.joinpath(*parts)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(ROOT / folder, target_is_directory=True)
    return top


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python .ci/shadow_tree.py DEST")
    print(build(Path(sys.argv[1])))
