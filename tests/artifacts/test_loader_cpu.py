"""CPU loader: linking tiny objects made with llvmlite and calling them through the ABI."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from llvmlite import ir

import gradc
from gradc.artifacts.errors import ArtifactError
from gradc.artifacts.loader.cpu import Library, llvm_version, load
from gradc.artifacts.manifest import MANIFEST_NAME
from gradc.artifacts.store import write_artifact
from gradc.artifacts.toolchain import host_producer

from .objects import ERR, F32, F64, I8, I32, I64, build, entry, set_error


def _add(b, fn, args, out, err):  # type: ignore[no-untyped-def]
    b.store(b.fadd(args[0], args[1]), out)
    b.ret(ir.Constant(I32, 0))


def _div(b, fn, args, out, err):  # type: ignore[no-untyped-def]
    is_zero = b.fcmp_ordered("==", args[1], ir.Constant(F64, 0.0))
    with b.if_then(is_zero, likely=False):
        set_error(b, fn, err, 2, 1, "float division by zero")
    b.store(b.fdiv(args[0], args[1]), out)
    b.ret(ir.Constant(I32, 0))


def _divmod(b, fn, args, out, err):  # type: ignore[no-untyped-def]
    # (x / n, n * 2): a tuple {double, i64}
    q = b.fdiv(args[0], b.sitofp(args[1], F64))
    zero = ir.Constant(I32, 0)
    b.store(q, b.gep(out, [zero, zero]))
    b.store(b.mul(args[1], ir.Constant(I64, 2)), b.gep(out, [zero, ir.Constant(I32, 1)]))
    b.ret(zero)


def _nested(b, fn, args, out, err):  # type: ignore[no-untyped-def]
    # (flag, (k, x32)) with flag: bool as uint8
    zero = ir.Constant(I32, 0)
    one = ir.Constant(I32, 1)
    b.store(args[0], b.gep(out, [zero, zero]))
    inner = b.gep(out, [zero, one])
    b.store(args[1], b.gep(inner, [zero, zero]))
    b.store(args[2], b.gep(inner, [zero, one]))
    b.ret(zero)


def _libm(b, fn, args, out, err):  # type: ignore[no-untyped-def]
    m = fn.module
    fty1 = ir.FunctionType(F64, [F64])
    fty2 = ir.FunctionType(F64, [F64, F64])
    s = b.call(ir.Function(m, fty1, "sin"), [args[0]])
    p = b.call(ir.Function(m, fty2, "pow"), [s, ir.Constant(F64, 3.0)])
    r = b.call(ir.Function(m, fty2, "fmod"), [p, ir.Constant(F64, 0.1)])
    e = b.call(ir.Function(m, fty1, "exp"), [r])
    b.store(b.fadd(e, b.call(ir.Function(m, fty2, "atan2"), [args[0], e])), out)
    b.ret(ir.Constant(I32, 0))


def _kind(kind: int):  # type: ignore[no-untyped-def]
    def body(b, fn, args, out, err):  # type: ignore[no-untyped-def]
        set_error(b, fn, err, kind, 0, f"kind {kind}")

    return body


def _noop(b, fn, args, out, err):  # type: ignore[no-untyped-def]
    b.ret(ir.Constant(I32, 0))


def _sum(b, fn, args, out, err):  # type: ignore[no-untyped-def]
    # sum of a 1-d f64 array through its descriptor {data, meminfo, shape[1], strides[1]}
    desc = args[0]
    zero = ir.Constant(I32, 0)
    data = b.load(b.gep(desc, [zero, zero]))
    n = b.load(b.gep(desc, [zero, ir.Constant(I32, 2), zero]))
    stride = b.load(b.gep(desc, [zero, ir.Constant(I32, 3), zero]))
    acc = b.alloca(F64)
    b.store(ir.Constant(F64, 0.0), acc)
    i = b.alloca(I64)
    b.store(ir.Constant(I64, 0), i)
    cond = fn.append_basic_block("cond")
    loop = fn.append_basic_block("loop")
    done = fn.append_basic_block("done")
    b.branch(cond)
    b.position_at_end(cond)
    iv = b.load(i)
    b.cbranch(b.icmp_signed("<", iv, n), loop, done)
    b.position_at_end(loop)
    addr = b.gep(data, [b.mul(iv, stride)])
    x = b.load(b.bitcast(addr, F64.as_pointer()))
    b.store(b.fadd(b.load(acc), x), acc)
    b.store(b.add(iv, ir.Constant(I64, 1)), i)
    b.branch(cond)
    b.position_at_end(done)
    b.store(b.load(acc), out)
    b.ret(zero)


def _template(b, fn, args, out, err):  # type: ignore[no-untyped-def]
    # IndexError with a template over data[0..2] (docs/abi.md "Error record")
    zero = ir.Constant(I32, 0)
    data = b.gep(err, [zero, ir.Constant(I32, 3)])
    for k, v in enumerate((args[0], ir.Constant(I64, 1), ir.Constant(I64, 3), ir.Constant(I64, 1))):
        b.store(v, b.gep(data, [zero, ir.Constant(I32, k)]))
    set_error(b, fn, err, 5, 2, "index {0} is out of bounds for axis {1} with size {2}")


def _bad_template(b, fn, args, out, err):  # type: ignore[no-untyped-def]
    zero = ir.Constant(I32, 0)
    flag = b.gep(err, [zero, ir.Constant(I32, 3), ir.Constant(I32, 3)])
    b.store(ir.Constant(I64, 1), flag)
    set_error(b, fn, err, 1, 0, "bad {7} template")


ARRAY1 = ir.LiteralStructType(
    [I8.as_pointer(), I8.as_pointer(), ir.ArrayType(I64, 1), ir.ArrayType(I64, 1)]
)
TUPLE = ir.LiteralStructType([F64, I64])
NESTED = ir.LiteralStructType([I8, ir.LiteralStructType([I64, F32])])


def _entries():  # type: ignore[no-untyped-def]
    return [
        entry("add", [("a", "f64", F64), ("b", "f64", F64)], ("f64", F64), _add),
        dataclasses.replace(
            entry("div", [("a", "f64", F64), ("b", "f64", F64)], ("f64", F64), _div),
            sites=(("tiny.py", 7, 11),),
        ),
        entry(
            "divmod2",
            [("x", "f64", F64), ("n", "i64", I64)],
            ("tuple[f64,i64]", TUPLE),
            _divmod,
        ),
        entry(
            "nested",
            [("flag", "bool", I8), ("k", "i64", I64), ("x", "f32", F32)],
            ("tuple[bool,tuple[i64,f32]]", NESTED),
            _nested,
        ),
        entry("libm", [("x", "f64", F64)], ("f64", F64), _libm),
        entry("unknown_kind", [], ("none", I8), _kind(99)),
        entry("noop", [("k", "i32", I32)], ("none", I8), _noop),
        entry("asum", [("a", "f64[:]", ARRAY1.as_pointer())], ("f64", F64), _sum),
        entry("asum_old", [("a", "array[f64,1,A]", ARRAY1.as_pointer())], ("f64", F64), _sum),
        entry("csum", [("a", "f64[::1]", ARRAY1.as_pointer())], ("f64", F64), _sum),
        dataclasses.replace(  # raise site 2: the manifest's site table gives its line
            entry("template", [("i", "i64", I64)], ("none", I8), _template),
            sites=(("tiny.py", 2, 4), ("sub/tiny_helpers.py", 3, 8)),
        ),
        entry("bad_template", [], ("none", I8), _bad_template),
        *(entry(f"raise{k}", [], ("none", I8), _kind(k)) for k in range(1, 9)),
    ]


@pytest.fixture(scope="module")
def artifact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("art") / "tiny.gradc"
    write_artifact(out, build(*_entries()))
    return out


@pytest.fixture(scope="module")
def lib(artifact: Path) -> Library:
    return load(artifact)


def test_add(lib: Library) -> None:
    assert lib.add(1.5, 2.25) == 3.75
    assert lib.add(1, 2) == 3.0  # ints convert to f64
    assert type(lib.add(1, 2)) is float
    assert lib.add(np.float32(0.5), np.int64(2)) == 2.5
    assert lib.add(b=1.0, a=2.0) == 3.0
    assert lib["add"] is lib.add


def test_argument_errors_name_the_parameter(lib: Library) -> None:
    with pytest.raises(TypeError, match=r"add\(\) argument 'b' must be f64 \(float\), got str"):
        lib.add(1.0, "2")
    with pytest.raises(TypeError, match=r"takes 2 arguments .* but 3 were given"):
        lib.add(1.0, 2.0, 3.0)
    with pytest.raises(TypeError, match=r"missing 1 required argument: 'b'"):
        lib.add(1.0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'c'"):
        lib.add(1.0, c=2.0)
    with pytest.raises(TypeError, match="multiple values for argument 'a'"):
        lib.add(1.0, a=2.0)


def test_int_parameters(lib: Library) -> None:
    assert lib.divmod2(3.0, 2) == (1.5, 4)
    assert lib.divmod2(3.0, np.int32(2)) == (1.5, 4)
    assert lib.divmod2(3.0, True) == (3.0, 2)
    with pytest.raises(TypeError, match=r"argument 'n' must be i64 \(int\), got float"):
        lib.divmod2(3.0, 2.0)
    with pytest.raises(TypeError, match="argument 'n' must be i64"):
        lib.divmod2(3.0, np.float64(2.0))
    with pytest.raises(OverflowError, match="argument 'n' int 1180591620717411303424 out of range"):
        lib.divmod2(3.0, 2**70)
    with pytest.raises(OverflowError, match="out of range for i32"):
        lib.noop(2**31)
    assert lib.noop(-(2**31)) is None


def test_tuple_and_bool_results(lib: Library) -> None:
    r = lib.divmod2(1.0, 4)
    assert r == (0.25, 8)
    assert type(r) is tuple
    assert type(r[1]) is int
    flag, (k, x) = lib.nested(True, 7, 0.5)
    assert flag is True
    assert (k, x) == (7, 0.5)
    assert lib.nested(np.bool_(False), 1, 1.0)[0] is False
    with pytest.raises(TypeError, match="argument 'flag' must be bool, got int"):
        lib.nested(1, 7, 0.5)


def test_error_status_raises_with_message(lib: Library) -> None:
    assert lib.div(1.0, 4.0) == 0.25
    with pytest.raises(ZeroDivisionError) as info:
        lib.div(1.0, 0.0)
    assert str(info.value) == "float division by zero"
    assert info.value.__notes__ == ["raised by compiled tiny.div at tiny.py:7"]


@pytest.mark.parametrize(
    ("kind", "exc"),
    [
        (1, ValueError),
        (2, ZeroDivisionError),
        (3, AssertionError),
        (4, OverflowError),
        (5, IndexError),
        (6, TypeError),
        (7, MemoryError),
        (8, RuntimeError),
    ],
)
def test_error_kind_table(lib: Library, kind: int, exc: type[Exception]) -> None:
    with pytest.raises(exc, match=f"^kind {kind}$"):
        lib[f"raise{kind}"]()


def test_unknown_error_kind(lib: Library) -> None:
    with pytest.raises(RuntimeError, match="unknown gradc error kind 99"):
        lib.unknown_kind()


def test_libm_symbols_resolve(lib: Library) -> None:
    x = 0.7
    r = math.exp(math.fmod(math.pow(math.sin(x), 3.0), 0.1))
    assert lib.libm(x) == pytest.approx(r + math.atan2(x, r), rel=1e-15)


def test_array_argument(lib: Library) -> None:
    a = np.arange(10.0)
    assert lib.asum(a) == 45.0
    assert lib.asum(a[::3]) == 0 + 3 + 6 + 9
    assert lib.asum(a[::-1]) == 45.0
    with pytest.raises(TypeError, match=r"argument 'a' must be f64\[:\] \(float64, 1-d\)"):
        lib.asum(np.arange(10))
    with pytest.raises(TypeError, match="a numpy array"):
        lib.asum([1.0, 2.0])
    # the spelling of format 1.0 manifests is still read
    assert lib.asum_old(a[::-1]) == 45.0
    with pytest.raises(TypeError, match=r"must be array\[f64,1,A\] \(float64, 1-d\)"):
        lib.asum_old(np.arange(10))
    assert lib.csum(a) == 45.0
    with pytest.raises(ValueError, match=r"argument 'a' must be C-contiguous \(f64\[::1\]\)"):
        lib.csum(a[::2])


def test_template_error_messages(lib: Library) -> None:
    with pytest.raises(IndexError) as info:
        lib.template(-7)
    assert str(info.value) == "index -7 is out of bounds for axis 1 with size 3"
    assert info.value.__notes__ == ["raised by compiled tiny.template at sub/tiny_helpers.py:3"]
    with pytest.raises(ValueError) as bad:
        lib.bad_template()
    assert str(bad.value) == "bad {7} template"  # not a valid template: shown as it is


def test_library_api(lib: Library, artifact: Path) -> None:
    names = [e.name for e in _entries()]
    assert list(lib) == names
    assert len(lib) == len(names)
    assert dir(lib) == sorted(names)
    assert "add" in lib
    assert repr(lib).startswith("<gradc.Library 'tiny' from ")
    assert "add, div" in repr(lib)
    assert lib.manifest.module == "tiny"
    assert lib.add.__name__ == "add"
    assert "add(a: f64, b: f64) -> f64" in (lib.add.__doc__ or "")
    with pytest.raises(AttributeError, match="exports no 'ad'; exports: add, div"):
        lib.ad  # noqa: B018
    with pytest.raises(KeyError, match="exports no 'ad'"):
        lib["ad"]


def test_load_twice_and_through_facade(artifact: Path) -> None:
    a = load(artifact)
    b = gradc.load(str(artifact))
    assert a.add(1.0, 2.0) == b.add(1.0, 2.0) == 3.0
    fn = a.add
    del a
    import gc

    gc.collect()
    assert fn(2.0, 2.0) == 4.0  # a function keeps its code mapped


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_corrupt_object_names_the_file(artifact: Path, tmp_path: Path) -> None:
    art = _copy(artifact, tmp_path / "c.gradc")
    obj = sorted((art / "objects").iterdir())[0]
    obj.write_bytes(obj.read_bytes()[:-16])
    with pytest.raises(ArtifactError, match=f"{obj.name} is corrupt or truncated"):
        load(art)
    obj.unlink()
    with pytest.raises(ArtifactError, match=f"{obj.name} is missing"):
        load(art)


def test_truncated_or_missing_manifest(artifact: Path, tmp_path: Path) -> None:
    art = _copy(artifact, tmp_path / "t.gradc")
    m = art / MANIFEST_NAME
    m.write_bytes(m.read_bytes()[: len(m.read_bytes()) // 2])
    with pytest.raises(ArtifactError, match=r"manifest\.msgpack is truncated or corrupt"):
        load(art)
    m.unlink()
    with pytest.raises(ArtifactError, match=r"manifest\.msgpack is missing"):
        load(art)
    with pytest.raises(ArtifactError, match="does not exist"):
        load(tmp_path / "nothing.gradc")


def test_foreign_target_is_refused(tmp_path: Path) -> None:
    one = entry("add", [("a", "f64", F64), ("b", "f64", F64)], ("f64", F64), _add)
    write_artifact(tmp_path / "arm.gradc", build(one, triple="aarch64-unknown-linux-gnu"))
    with pytest.raises(ArtifactError, match="built for aarch64-unknown-linux-gnu"):
        load(tmp_path / "arm.gradc")
    write_artifact(tmp_path / "feat.gradc", build(one, features="+no-such-feature"))
    with pytest.raises(ArtifactError, match="lacks: no-such-feature"):
        load(tmp_path / "feat.gradc")


def test_host_producer() -> None:
    p = host_producer()
    assert p.llvm == llvm_version()
    assert p.llvm.split(".")[0].isdigit()
    assert p.gradc == gradc.__version__
    assert ERR is not None
