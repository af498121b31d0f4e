"""``gradc inspect --relocations``: the symbols and relocations of an artifact's objects."""

from __future__ import annotations

from pathlib import Path

import click

from gradc.artifacts.manifest import Manifest
from gradc.artifacts.store import read_blob


def print_relocations(artifact: Path, manifest: Manifest) -> None:
    """Each entry's object and its fast-call wrapper's: the symbols it defines and every
    relocation it carries, with the type named as readelf names it (``R_X86_64_PC32``)."""
    for entry in manifest.entries:
        code = read_blob(artifact, entry.object)
        click.echo(f"{entry.name}: {entry.object} ({len(code)} bytes)")
        print_object_relocations(code)
        if entry.wrapper is not None:
            code = read_blob(artifact, entry.wrapper.object)
            click.echo(f"{entry.name} wrapper: {entry.wrapper.object} ({len(code)} bytes)")
            print_object_relocations(code)


def print_object_relocations(code: bytes) -> None:
    """The ``defines:`` line and one line per relocation of the ELF object ``code``."""
    import io

    from elftools.elf.descriptions import describe_reloc_type
    from elftools.elf.elffile import ELFFile

    from gradc.compiler.codegen.relocatable import defined_symbols, relocations

    elf = ELFFile(io.BytesIO(code))
    click.echo("  defines: " + ", ".join(defined_symbols(code)))
    for rel in relocations(code):
        where = "defined" if rel.defined else "external"
        click.echo(
            f"  {rel.section}+{rel.offset:#06x}  {describe_reloc_type(rel.type, elf):<16} -> "
            f"{rel.symbol or '(none)'} ({where})"
        )
