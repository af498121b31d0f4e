"""The runtime object's cache key (``backend.runtime_plan``, ``keys.runtime_key``) covers
every option that changes its bytes: two builds whose runtime keys are equal get the same
runtime object, whatever else their options say (the runtime cache,
compiler/codegen/runtime_cache.py, hands one key's object to every later build)."""

from __future__ import annotations

import dataclasses

from gradc.compiler import keys
from gradc.compiler.backend import emit_runtime, runtime_plan
from gradc.compiler.codegen.emit import llvm_version
from gradc.compiler.options import CompilerOptions

#: One variant per option value worth telling apart: every field of CompilerOptions is
#: varied here (tests below check that no field is left out).
VARIANTS = {
    "default": CompilerOptions(),
    "opt_level": CompilerOptions(opt_level=0),
    "opt_level 1": CompilerOptions(opt_level=1),
    "opt_level 3": CompilerOptions(opt_level=3),
    "cpu": CompilerOptions(cpu="x86-64-v3"),
    "cpu v4": CompilerOptions(cpu="x86-64-v4"),
    "cpu native": CompilerOptions(cpu="native"),
    "cpus": CompilerOptions(cpu="x86-64", cpus=("x86-64", "x86-64-v3")),
    "vector_variants_only": CompilerOptions(
        cpu="x86-64", cpus=("x86-64", "x86-64-v3", "x86-64-v4"), vector_variants_only=True
    ),
    "fastmath": CompilerOptions(fastmath=True),
    "boundscheck": CompilerOptions(boundscheck=False),
    "timings": CompilerOptions(timings=True),
    "verbose": CompilerOptions(verbose=True),
    "cuda_archs": CompilerOptions(cuda_archs=("sm_80",)),
    "cuda_home": CompilerOptions(cuda_home="/opt/cuda"),
    "jobs": CompilerOptions(jobs=2),
    "shuffle_threads": CompilerOptions(shuffle_threads=True),
    "tape_budget": CompilerOptions(tape_budget=1 << 20),
}


def test_every_option_is_varied() -> None:
    names = {f.name for f in dataclasses.fields(CompilerOptions)}
    assert names <= {k.split()[0] for k in VARIANTS}, "vary the new option in VARIANTS"


def test_an_equal_runtime_key_means_an_equal_runtime_object() -> None:
    versions = keys.versions(llvm_version())
    by_key: dict[str, tuple[str, bytes]] = {}
    for name, options in VARIANTS.items():
        runtime, key = runtime_plan(options, versions)
        code = emit_runtime(runtime)
        if key in by_key:
            other, other_code = by_key[key]
            assert code == other_code, f"{name} and {other}: one runtime key, other bytes"
        by_key[key] = (name, code)
    # not vacuous: the optimisation level and the CPU make other objects, under other keys
    objects = {code for _, code in by_key.values()}
    assert len(objects) >= 3


def test_variants_share_the_generic_cpu_runtime() -> None:
    versions = keys.versions(llvm_version())
    runtime, key = runtime_plan(VARIANTS["cpus"], versions)
    assert (runtime.cpu, runtime.cpus) == ("generic", ())
    assert key == runtime_plan(CompilerOptions(cpu="generic"), versions)[1]
    assert key != runtime_plan(CompilerOptions(), versions)[1]
