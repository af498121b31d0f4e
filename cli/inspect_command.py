"""``gradc inspect ARTIFACT``: what an artifact holds (exports, variants, keys, sizes) and,
per export, its IR, LLVM IR, assembly, relocations or cache key."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.manifest import Entry, Manifest
from gradc.artifacts.store import find_damage, read_manifest, read_text
from gradc.cli.console import wide_console


@click.command()
@click.argument(
    "artifact", type=click.Path(exists=True, file_okay=False, path_type=Path), metavar="ARTIFACT"
)
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON.")
@click.option("--ir", "ir_name", metavar="NAME", help="Print the typed gradc IR of export NAME.")
@click.option("--llvm", "llvm_name", metavar="NAME", help="Print the LLVM IR of export NAME.")
@click.option("--asm", "asm_name", metavar="NAME", help="Print the assembly of export NAME.")
@click.option("--relocations", is_flag=True, help="List each object's symbols and relocations.")
@click.option(
    "--key", "key_name", metavar="NAME", help="List the cache key components of export NAME."
)
def inspect(
    artifact: Path,
    as_json: bool,
    ir_name: str | None,
    llvm_name: str | None,
    asm_name: str | None,
    relocations: bool,
    key_name: str | None,
) -> None:
    """Show what an artifact directory (build/NAME.gradc) contains.

    The listing (table or --json) also checks every blob (sha256): a missing or corrupt
    file is reported on stderr after the listing, naming the file, with exit status 1.
    """
    try:
        manifest = read_manifest(artifact)
        if key_name is not None:
            _print_key(manifest.entry(key_name), as_json)
            return
        if relocations:
            from gradc.cli.relocations import print_relocations

            print_relocations(artifact, manifest)
            return
        texts = [(k, n) for k, n in (("ir", ir_name), ("llvm", llvm_name), ("asm", asm_name)) if n]
        if texts:
            for kind, name in texts:
                entry = manifest.entry(name)
                if kind == "asm" and "asm" not in entry.texts:
                    text = _assembly(artifact, manifest, entry)
                else:  # artifacts of format <= 1.2 store the assembly (texts/<sha>.s)
                    text = read_text(artifact, entry, kind)
                click.echo(text, nl=False)
            return
    except (ArtifactError, KeyError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        click.echo(f"gradc: error: {message}", err=True)
        sys.exit(1)
    if as_json:
        click.echo(json.dumps(_json_manifest(artifact, manifest), indent=2, sort_keys=True))
    else:
        _print_manifest(artifact, manifest)
    # the listing stays readable for a damaged artifact; the damage is reported after it
    damage = find_damage(artifact)
    for problem in damage:
        click.echo(f"gradc: error: damaged artifact: {problem}", err=True)
    if damage:
        sys.exit(1)


def _assembly(artifact: Path, manifest: Manifest, entry: Entry) -> str:
    """The assembly of ``entry``'s object, generated from its stored optimised LLVM IR.

    Builds store no assembly (format 1.3): code generation is rerun here on the entry's
    ``.ll`` text with the target the object was built for (``target.*`` and
    ``options.opt_level`` of its key components, else the manifest's ``target`` and
    ``-O2``), which gives the code of the stored object.

    Raises:
        KeyError: the artifact stores no LLVM IR for the entry either.
        ArtifactError: the LLVM IR text is missing or corrupt, or LLVM rejects it.
    """
    from gradc.compiler.codegen.emit import assembly_from_llvm

    if "llvm" not in entry.texts:
        raise KeyError(f"the artifact stores no asm or llvm text for {entry.name!r}")
    llvm_text = read_text(artifact, entry, "llvm")
    c = entry.key_components
    target = manifest.target
    opt_level = c.get("options.opt_level", 2)
    try:
        return assembly_from_llvm(
            llvm_text,
            str(c.get("target.triple", target.triple)),
            str(c.get("target.cpu", target.cpu)),
            str(c.get("target.features", target.features)),
            opt_level if isinstance(opt_level, int) else 2,
        )
    except RuntimeError as exc:
        raise ArtifactError(
            f"{artifact}: cannot generate the assembly of {entry.name!r} from its LLVM IR "
            f"({entry.texts['llvm']}): {exc}"
        ) from None


def _print_key(entry: Entry, as_json: bool) -> None:
    """The entry's key, then one line per component: name, value, hash; then the
    Merkle hash of every IR function the entry reaches.

    A component's hash is ``sha256_key(value)``; the key is ``sha256_key`` of the map of
    all component values (``gradc.artifacts.keys``), so the listing can be checked.
    """
    from gradc.artifacts.keys import sha256_key

    if as_json:
        data = {
            "name": entry.name,
            "key": entry.key,
            "components": {
                k: {"value": v, "sha256": sha256_key(v)} for k, v in entry.key_components.items()
            },
            "dependencies": dict(entry.dependencies),
        }
        click.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    click.echo(f"{entry.name}  key {entry.key}")
    width = max((len(k) for k in entry.key_components), default=0)
    for k in sorted(entry.key_components):
        value = entry.key_components[k]
        shown = value if isinstance(value, str) and len(value) == 64 else repr(value)
        click.echo(f"  {k:<{width}}  {sha256_key(value)}  {shown}")
    if entry.dependencies:
        click.echo("  dependencies (Merkle hash of each IR function reached):")
        for name in sorted(entry.dependencies):
            click.echo(f"    {name}  {entry.dependencies[name]}")


def _object_size(artifact: Path, relpath: str) -> int | None:
    """Size in bytes of a stored blob, None when it is missing."""
    try:
        return (artifact / relpath).stat().st_size
    except OSError:
        return None


def _json_manifest(artifact: Path, manifest: Manifest) -> dict[str, Any]:
    data = manifest.to_dict()
    for raw, e in zip(data["entries"], manifest.entries, strict=True):
        raw["object_size"] = _object_size(artifact, e.object)
        raw["signature_text"] = f"{e.name}{e.signature}"
    return data


def _print_manifest(artifact: Path, manifest: Manifest) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = wide_console(Console)
    fv = ".".join(str(v) for v in manifest.format_version)
    p, t = manifest.producer, manifest.target
    console.print(
        f"[bold]{artifact}[/bold]: module [bold]{manifest.module}[/bold], format {fv}, "
        f"gradc {p.gradc}, llvmlite {p.llvmlite}, LLVM {p.llvm}",
        highlight=False,
    )
    console.print(
        f"target {t.triple}, cpu {t.cpu}, features {t.features or '(none)'}", highlight=False
    )
    if manifest.variants:
        console.print(
            f"cpu variants (entries show the first): {', '.join(v.cpu for v in manifest.variants)}",
            highlight=False,
        )
    if manifest.runtime is not None:
        size = _object_size(artifact, manifest.runtime.object)
        console.print(
            f"runtime {manifest.runtime.abi}: {'missing' if size is None else f'{size} bytes'}",
            highlight=False,
        )
    table = Table()
    table.add_column("name", style="bold")
    table.add_column("signature")
    table.add_column("symbol", overflow="fold")
    table.add_column("object (bytes)", justify="right")
    table.add_column("call")
    table.add_column("key")
    for e in manifest.entries:
        size = _object_size(artifact, e.object)
        writes = f"\nwrites {', '.join(e.signature.writes)}" if e.signature.writes else ""
        table.add_row(
            e.name,
            Text(f"{e.signature}{writes}"),  # plain text: "tuple[f64,i64]" is not markup
            e.symbol,
            "missing" if size is None else str(size),
            "fast" if e.wrapper is not None else "ctypes",
            e.key[:12],
        )
    console.print(table)
    dispatched: dict[str, list[str]] = {}
    for e in manifest.entries:
        if e.dispatch:
            dispatched.setdefault(e.dispatch, []).append(e.name)
    for name, names in dispatched.items():
        console.print(
            f"{name}: {len(names)} signature{'s' * (len(names) != 1)}, one call dispatching among "
            f"{', '.join(names)}",
            highlight=False,
        )
    if manifest.cuda is not None:
        from gradc.cli.cuda import print_cuda

        print_cuda(console, artifact, manifest.cuda)
