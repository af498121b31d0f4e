"""setup.cfg lists every package, and the folder -> package mapping is the one in DESIGN.md §1."""

from __future__ import annotations

import configparser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAPPING = {
    "gradc": "gradc",
    "gradc.cli": "cli",
    "gradc.compiler": "compiler",
    "gradc.passes": "passes",
    "gradc.artifacts": "artifacts",
}


def _setup_cfg() -> configparser.ConfigParser:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    return cfg


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.strip().splitlines() if line.strip()]


def test_package_dir_mapping() -> None:
    cfg = _setup_cfg()
    pairs = dict(
        (k.strip(), v.strip())
        for k, v in (line.split("=") for line in _lines(cfg["options"]["package_dir"]))
    )
    assert pairs == MAPPING


def test_every_package_folder_is_listed() -> None:
    found = set()
    for package, folder in MAPPING.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
                continue
            found.add(".".join((package, *rel.parts)))
    listed = set(_lines(_setup_cfg()["options"]["packages"]))
    assert found - listed == set(), "add these to setup.cfg [options] packages"
    assert listed - found == set(), "setup.cfg lists packages without an __init__.py"


def test_installed_package_maps_root_folders() -> None:
    import gradc.compiler.options as options

    assert Path(options.__file__).parts[-2:] == ("compiler", "options.py")
