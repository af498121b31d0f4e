"""The host's CPU features read from /proc/cpuinfo (artifacts/loader/hostcpu.py) against
LLVM's own host detection: what it says the host has, LLVM says so too, and what it
decides the host lacks, LLVM does not report: never a variant picked that could SIGILL."""

from __future__ import annotations

import llvmlite.binding as llvm
import pytest

from gradc.artifacts.loader.hostcpu import cpuinfo_flags, detect
from gradc.artifacts.loader.variants import CPU_LEVEL_FEATURES


@pytest.mark.skipif(not cpuinfo_flags(), reason="no /proc/cpuinfo flags on this host")
def test_cpuinfo_agrees_with_llvm() -> None:
    reported = llvm.get_host_cpu_features()
    on = {n for n, v in reported.items() if v}
    names = set(reported)  # the names LLVM knows for this architecture
    has, undecided = detect(names)
    assert has <= on, sorted(has - on)
    lacking = names - has - undecided
    assert not (lacking & on), sorted(lacking & on)


def test_every_cpu_level_feature_is_decided_here() -> None:
    """The default variants (x86-64 levels) never need llvmlite to be picked."""
    every = set().union(*CPU_LEVEL_FEATURES.values())
    if cpuinfo_flags() and "lm" in cpuinfo_flags():
        assert detect(every)[1] == frozenset()
