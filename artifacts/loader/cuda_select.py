"""Which variant of a kernel a device runs (docs/abi.md "CUDA kernels").

In this order, explicitly (never "whatever the driver accepts"):

1. the cubin built for the device's arch (``sm_90`` on compute capability 9.0);
2. else the cubin of the same major arch with the highest lower minor (an ``sm_80`` cubin
   runs on ``sm_86``: NVIDIA's binary compatibility within a major version);
3. else the PTX, when its arch is not above the device's and the driver compiles its ISA
   (:func:`~.cuda_driver.max_ptx_isa`): the driver JIT-compiles it (the loader warns once);
4. else :class:`~gradc.artifacts.errors.ArtifactError` naming the device, the driver and
   the variants there are.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradc.artifacts.cuda_manifest import CudaKernelEntry, CudaVariantEntry
from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.loader.cuda_driver import DeviceFacts, max_ptx_isa

__all__ = ["Choice", "select_variant"]


@dataclass(frozen=True)
class Choice:
    """The chosen variant; ``jit`` when it is the PTX (compiled by the driver at load)."""

    variant: CudaVariantEntry
    jit: bool


def _cc(arch: str) -> tuple[int, int]:
    digits = arch.removeprefix("sm_")
    return int(digits[:-1]), int(digits[-1])


def _isa(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


def select_variant(kernel: CudaKernelEntry, device: DeviceFacts) -> Choice:
    """The variant of ``kernel`` that ``device`` runs (module docstring).

    Raises:
        ArtifactError: no variant fits; the message names the kernel, the device, its
            compute capability, the driver and the variants.
    """
    cubins = [v for v in kernel.variants if v.kind == "cubin"]
    for v in cubins:
        if _cc(v.arch) == device.cc:
            return Choice(v, jit=False)
    lower = [v for v in cubins if _cc(v.arch)[0] == device.cc[0] and _cc(v.arch) < device.cc]
    if lower:
        return Choice(max(lower, key=lambda v: _cc(v.arch)), jit=False)
    for v in kernel.variants:
        if (
            v.kind == "ptx"
            and _cc(v.arch) <= device.cc
            and _isa(v.isa) <= max_ptx_isa(device.driver)
        ):
            return Choice(v, jit=True)
    have = ", ".join(
        f"ptx ({v.arch}, ISA {v.isa})" if v.kind == "ptx" else f"{v.arch} cubin"
        for v in kernel.variants
    )
    isa = ".".join(map(str, max_ptx_isa(device.driver)))
    raise ArtifactError(
        f"kernel {kernel.name!r} has no variant for {device.name} (sm_{device.cc[0]}{device.cc[1]}) "
        f"with driver CUDA {device.driver_text} (PTX ISA up to {isa}); the artifact has: "
        f"{have or '(none)'}; rebuild with --target cuda --cuda-arch sm_{device.cc[0]}{device.cc[1]}"
    )
