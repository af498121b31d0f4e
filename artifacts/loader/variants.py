"""CPU variants: which of an artifact's CPU variants this host runs best
(docs/artifacts.md "CPU variants").

The host's features are read from ``/proc/cpuinfo`` (:mod:`.hostcpu`), without LLVM;
only what it cannot decide (a feature the kernel spells otherwise, the LLVM name of the
host CPU for a variant built for a named CPU model) asks ``llvmlite`` (:func:`host_cpu`),
and where llvmlite is not installed counts as missing: a variant is never picked on a
guess.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.loader.hostcpu import detect

# ``typing`` is for the type checker only (it takes any ``TYPE_CHECKING`` as true): a
# process that loads an artifact does not import it (issue 13).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gradc.artifacts.manifest_records import AnyManifest as Manifest
    from gradc.artifacts.manifest_records import AnyTarget as Target

__all__ = ["CPU_LEVEL_FEATURES", "host_cpu", "required_features", "select_variant"]

#: LLVM feature names each x86-64 micro-architecture level needs (the x86-64 psABI's
#: levels, beyond the x86-64 baseline every such host has).
_X86_64_V2 = frozenset({"cx16", "popcnt", "sahf", "sse3", "sse4.1", "sse4.2", "ssse3"})
_X86_64_V3 = _X86_64_V2 | {"avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"}
_X86_64_V4 = _X86_64_V3 | {"avx512bw", "avx512cd", "avx512dq", "avx512f", "avx512vl"}
CPU_LEVEL_FEATURES: dict[str, frozenset[str]] = {
    "generic": frozenset(),
    "x86-64": frozenset(),
    "x86-64-v2": _X86_64_V2,
    "x86-64-v3": _X86_64_V3,
    "x86-64-v4": _X86_64_V4,
}


def required_features(target: Target) -> frozenset[str] | None:
    """The CPU features code built for ``target`` may use: every ``+feature`` of its
    feature string (``native`` records the build host's) and those of its CPU level
    (:data:`CPU_LEVEL_FEATURES`). None for a named CPU model without recorded features
    (``--cpu skylake``): its feature set is unknown here, so only a host whose CPU LLVM
    names the same runs it.
    """
    explicit = frozenset(f[1:] for f in target.features.split(",") if f.startswith("+"))
    level = CPU_LEVEL_FEATURES.get(target.cpu)
    if level is None and not explicit:
        return None
    return explicit | (level or frozenset())


@functools.cache
def host_cpu() -> tuple[str, frozenset[str]]:
    """This host's CPU name and enabled features, as LLVM detects them (imports
    ``llvmlite.binding``).

    Raises:
        ImportError: llvmlite is not installed.
    """
    import llvmlite.binding as llvm

    try:
        features = frozenset(n for n, on in llvm.get_host_cpu_features().items() if on)
    except RuntimeError:  # LLVM cannot detect features on this platform
        features = frozenset()
    return llvm.get_host_cpu_name(), features


def _llvm_host() -> tuple[str, frozenset[str]] | None:
    """:func:`host_cpu`, None without llvmlite."""
    try:
        return host_cpu()
    except ImportError:
        return None


def _misfit(target: Target) -> tuple[str | None, int]:
    """Why code for ``target`` cannot run on this host (None: it can), and its score
    (the number of features it needs; all the host's for a named CPU model)."""
    required = required_features(target)
    if required is None:
        llvm = _llvm_host()
        if llvm is None:
            return (
                f"cpu {target.cpu!r} is a named CPU model: without llvmlite its fit is unknown",
                0,
            )
        if target.cpu == llvm[0]:
            return None, len(llvm[1])
        why = f"cpu {target.cpu!r} is not this host's {llvm[0]!r} (its features are not recorded)"
        return why, 0
    has, undecided = detect(required)
    if undecided:
        llvm = _llvm_host()
        if llvm is not None:
            has |= undecided & llvm[1]
    missing = sorted(required - has)
    if missing:
        why = f"cpu {target.cpu!r} needs CPU features this host lacks: {', '.join(missing)}"
        return why, 0
    return None, len(required)


#: os.uname().machine -> the architecture of an LLVM triple, where they differ.
_ARCH_NAMES = {"AMD64": "x86_64", "amd64": "x86_64", "arm64": "aarch64"}


def select_variant(path: Path, manifest: Manifest) -> int:
    """The index of the best CPU variant of ``manifest`` this host runs (docs/artifacts.md
    "CPU variants"): among the variants whose required features the host has, the one
    requiring the most (a named CPU model matching the host counts as all the host's),
    the first listed on a tie.

    Raises:
        ArtifactError: the triple's architecture is not this process's, or no variant
            fits; the message names each variant and what the host lacks.
    """
    want = manifest.target.triple
    machine = os.uname().machine
    if want and want.split("-")[0] != _ARCH_NAMES.get(machine, machine):
        raise ArtifactError(f"{path} was built for {want}; this process runs on {machine}")
    best, best_score, reasons = -1, -1, []
    targets: tuple[Target, ...] = manifest.targets()
    for i, target in enumerate(targets):
        why, score = _misfit(target)
        if why is not None:
            reasons.append(why)
            continue
        if score > best_score:
            best, best_score = i, score
    if best < 0:
        raise ArtifactError(
            f"{path}: no CPU variant of this artifact runs on this host ({machine}): "
            f"{'; '.join(reasons)}; rebuild it with --cpu x86-64 or native"
        )
    return best
