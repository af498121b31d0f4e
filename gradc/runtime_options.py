"""Whether an artifact was built with runtime mode's options (``gradc.runtime_mode``).

Runtime mode reuses an artifact built with :data:`RUNTIME_OPTIONS` (the defaults of
``gradc build``). Every entry's key components hold the options it was compiled with
(``options.fastmath`` ...), but an export's own ``@gradc.export(fastmath=True,
boundscheck=False)`` (``gradc.compiler.frontend.export_options``) overrides the build's
for that export only, so an entry's value alone cannot say whether the build used other
options. The build's options are those of the runtime object, whose cache key
(``gradc.compiler.keys.runtime_key``) is made of the components every entry shares: the
artifact was built with :data:`RUNTIME_OPTIONS` when that key is the one of an entry's
shared components with the options replaced by :data:`RUNTIME_OPTIONS`. An entry's
differing ``fastmath``/``boundscheck`` is then its own override (the sources are unchanged,
so are the decorators). Without a runtime key (format 1.1) every entry must match.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradc.artifacts.manifest import Manifest

__all__ = ["OVERRIDABLE", "RUNTIME_CPUS", "RUNTIME_OPTIONS", "options_problem", "runtime_key"]

#: ``CompilerOptions`` fields of a runtime-mode build (the defaults of ``gradc build``).
RUNTIME_OPTIONS: dict[str, object] = {
    "opt_level": 2,
    "cpu": "x86-64",
    "fastmath": False,
    "boundscheck": True,
}

#: The CPU variants of a runtime-mode build, built as ``gradc build`` without ``--cpu``
#: builds them (``gradc.compiler.options.DEFAULT_CPUS`` with ``vector_variants_only``: the
#: second only for modules whose code handles arrays; a test checks both agree). Not
#: checked on reuse: an artifact of any variants runs.
RUNTIME_CPUS: tuple[str, ...] = ("x86-64", "x86-64-v3")

#: The options an export may override (``export_options.EXPORT_OPTIONS``, not imported:
#: a process that reuses an artifact imports nothing of the compiler; a test checks both).
OVERRIDABLE = ("fastmath", "boundscheck")

#: Key components of an entry that are not the build's (``gradc.compiler.keys``).
_ENTRY_OWN = ("options.tape_budget",)
_SHARED_PREFIXES = ("options.", "target.", "versions.")


def options_problem(manifest: Manifest) -> str | None:
    """Why ``manifest``'s entries were not all built with :data:`RUNTIME_OPTIONS`
    (``"f: options.fastmath True -> False"``), None when they were, per-export
    overrides allowed (module docstring)."""
    build_checked: bool | None = None
    for e in manifest.entries:
        for k, v in RUNTIME_OPTIONS.items():
            got = e.key_components.get(f"options.{k}")
            if got == v:
                continue
            if build_checked is None:
                build_checked = _built_with_runtime_options(manifest)
            if not (build_checked and k in OVERRIDABLE):
                return f"{e.name}: options.{k} {got} -> {v}"
    return None


def _built_with_runtime_options(manifest: Manifest) -> bool:
    """The runtime object's key is that of :data:`RUNTIME_OPTIONS` and the components
    the entries share (target and versions); with CPU variants, of the generic CPU
    (``gradc.compiler.backend.plan_keys`` builds one runtime for all of them)."""
    if manifest.runtime is None or not manifest.runtime.key or not manifest.entries:
        return False
    shared = {
        k: v
        for k, v in manifest.entries[0].key_components.items()
        if k.startswith(_SHARED_PREFIXES) and k not in _ENTRY_OWN
    }
    shared.update((f"options.{k}", v) for k, v in RUNTIME_OPTIONS.items())
    if manifest.variants:  # one runtime for every variant, built for the generic CPU
        shared.update({"options.cpu": "generic", "target.cpu": "generic", "target.features": ""})
    return runtime_key(shared) == manifest.runtime.key


def runtime_key(shared: Mapping[str, object]) -> str:
    """``gradc.compiler.keys.runtime_key``: the key of the runtime object built with the
    ``shared`` components, computed here without importing the compiler (a process that
    reuses an artifact imports none of it; tests/cache/test_runtime_export_options.py
    checks that both agree). Imports the ABI and key modules only when called:
    ``import gradc`` imports this module and stays free of gradc.artifacts."""
    from gradc.artifacts.abi import RUNTIME_ABI
    from gradc.artifacts.keys import sha256_key

    return sha256_key({"runtime": RUNTIME_ABI, **shared})
