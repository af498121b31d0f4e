"""This host's CPU features in LLVM's names, read without LLVM: from the ``flags``
(x86-64) or ``Features`` (AArch64) line of Linux's ``/proc/cpuinfo``.

The kernel lists a feature only when the CPU has it and the kernel lets programs use it
(AVX without OS support for its registers is not listed), which is what LLVM's host
detection reports too. Names differ: :data:`CPUINFO_NAMES` maps the LLVM names whose
``cpuinfo`` spelling differs; any other LLVM name is looked up as itself (``.`` and ``-``
read as ``_``). :func:`detect` says which required features it can decide: a feature of
:data:`CPUINFO_NAMES` or one the kernel lists is decided; an absent name outside the
table is not (the kernel may spell it otherwise), and the caller asks LLVM
(``gradc.artifacts.loader.variants``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

__all__ = ["CPUINFO_NAMES", "cpuinfo_flags", "detect"]

#: LLVM feature name -> the /proc/cpuinfo flag that shows it (x86-64 and AArch64); names
#: absent here that LLVM and the kernel spell alike are decided when listed.
CPUINFO_NAMES: dict[str, str] = {
    # x86-64
    "64bit": "lm",
    "avx512bf16": "avx512_bf16",
    "avx512bitalg": "avx512_bitalg",
    "avx512fp16": "avx512_fp16",
    "avx512vbmi2": "avx512_vbmi2",
    "avx512vnni": "avx512_vnni",
    "avx512vp2intersect": "avx512_vp2intersect",
    "avx512vpopcntdq": "avx512_vpopcntdq",
    "avxvnni": "avx_vnni",
    "bmi": "bmi1",
    "crc32": "sse4_2",
    "lzcnt": "abm",
    "pclmul": "pclmulqdq",
    "prfchw": "3dnowprefetch",
    "rdrnd": "rdrand",
    "sahf": "lahf_lm",
    "sha": "sha_ni",
    "sse3": "pni",
    "adx": "adx",
    "aes": "aes",
    "avx": "avx",
    "avx2": "avx2",
    "avx512bw": "avx512bw",
    "avx512cd": "avx512cd",
    "avx512dq": "avx512dq",
    "avx512f": "avx512f",
    "avx512ifma": "avx512ifma",
    "avx512vbmi": "avx512vbmi",
    "avx512vl": "avx512vl",
    "bmi2": "bmi2",
    "cmov": "cmov",
    "cx16": "cx16",
    "cx8": "cx8",
    "f16c": "f16c",
    "fma": "fma",
    "movbe": "movbe",
    "popcnt": "popcnt",
    "sse": "sse",
    "sse2": "sse2",
    "sse4.1": "sse4_1",
    "sse4.2": "sse4_2",
    "ssse3": "ssse3",
    "xsave": "xsave",
    # AArch64
    "neon": "asimd",
    "fp-armv8": "fp",
    "crypto": "aes",
    "fullfp16": "fphp",
    "dotprod": "asimddp",
    "rdm": "asimdrdm",
    "lse": "atomics",
}


@functools.cache
def cpuinfo_flags() -> frozenset[str]:
    """The feature flags of the first processor in ``/proc/cpuinfo`` (empty when the file
    cannot be read: then no feature is decided)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("flags", "Features"):
                    return frozenset(value.split())
    except OSError:
        pass
    return frozenset()


def detect(features: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    """Of the LLVM feature names ``features``: those this host has, and those
    ``/proc/cpuinfo`` cannot decide."""
    flags = cpuinfo_flags()
    has, undecided = set(), set()
    for name in features:
        flag = CPUINFO_NAMES.get(name, name.replace(".", "_").replace("-", "_"))
        if flag in flags:
            has.add(name)
        elif name not in CPUINFO_NAMES or not flags:
            undecided.add(name)
    return frozenset(has), frozenset(undecided)
