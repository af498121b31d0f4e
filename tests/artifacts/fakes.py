"""A fake ``BuildOutput`` for artifact tests, built from the driver's own dataclasses."""

from __future__ import annotations

import hashlib

from gradc.artifacts.manifest import Producer
from gradc.compiler.driver import BuildOutput, CompiledEntry, Param, Signature

PRODUCER = Producer(gradc="0.1.0", llvmlite="0.50.0", llvm="22.1.0")
TARGET = {"triple": "x86_64-unknown-linux-gnu", "cpu": "x86-64", "features": ""}


def fake_entry(name: str, code: bytes = b"", *, result: str = "f64") -> CompiledEntry:
    key = hashlib.sha256(name.encode() + code).hexdigest()
    return CompiledEntry(
        name=name,
        signature=Signature((Param("x", "f64"), Param("n", "i64")), result),
        symbol=f"gradc_{name}_{key[:16]}",
        object_code=code or (b"\x7fELF fake object of " + name.encode()),
        key=key,
        key_components={"ir": "ab" * 32, "opt_level": "2"},
        ir_text=f"func @{name}(...)\n",
        llvm_text=f"define i32 @gradc_{name}() {{ ret i32 0 }}\n",
        asm_text="",
    )


def fake_build(*names: str, module: str = "mod") -> BuildOutput:
    return BuildOutput(
        module_name=module,
        entries=tuple(fake_entry(n) for n in names),
        target=dict(TARGET),
        timings={"parse": 0.001},
    )
