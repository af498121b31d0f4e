#!/usr/bin/env bash
# Run the array tests under valgrind memcheck and report the memory errors of gradc's
# compiled code and runtime (not part of the default test run; see CONTRIBUTING.md,
# "Memory checks").
#
#   scripts/memcheck.sh [--examples N] [--full] [--origins] [--out DIR] [-- PYTEST ARGS...]
#
# What runs: pytest (-m "not slow") on tests/codegen/test_arrays_*.py, tests/codegen/test_arrays.py,
# tests/passes/test_lifetimes.py and the array-using AD tests (tests/ad/test_ad_named.py,
# tests/ad/test_ad_lowlevel.py, tests/ad/test_ad_pointers.py, tests/codegen/test_tape.py, tape
# and shadows) (or the pytest arguments after --), in ONE Python
# process under valgrind, with PYTHONMALLOC=malloc so every Python object is a malloc block
# valgrind can see. A small pytest plugin (written to DIR/plugin) adapts the run:
#   - corpus modules are compiled in a child process that valgrind does not trace (LLVM's
#     optimiser is not what we check, and under valgrind it is very slow); the artifact is
#     loaded, linked and run inside the valgrinded process;
#   - hypothesis runs N examples per test (default 3, no deadline, no database) and the
#     seeded cases of tests/codegen/test_arrays_differential.py are cut to match; --full keeps the
#     suite's own numbers (hours under valgrind);
#   - it records the addresses of the gradc_rt1_* runtime functions of every runtime
#     linked in the process (the loader's and tests/codegen's), for attribution.
#
# Report (DIR/report.txt, also printed): valgrind's XML is classified by who is at fault:
# the innermost frame that is not libc/ld.so/valgrind's allocator is JIT-compiled code
# (a frame without an object file: gradc's exports and runtime are the only JIT code in the
# process), or a named library (CPython, NumPy, llvmlite, ...). Every invalid read/write,
# uninitialised use, invalid free and definitely-lost block attributed to JIT code is
# listed with its stack; a definitely-lost block allocated by posix_memalign called from
# the runtime's gradc_rt1_alloc is named as such. Everything else is counted per library
# as noise (CPython, NumPy and ld.so are not valgrind-clean).
#
# Exit status: 0 no error in JIT code, 1 errors in JIT code, 2 setup problem (no valgrind),
# 3 no error in JIT code but pytest failed under valgrind.
#
# Needs valgrind (Debian/Ubuntu: apt-cache policy valgrind; apt-get install -y valgrind).
# Time: ~30-60x the native run of the same tests.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
examples=3
full=0
origins=0
out="$repo/build/memcheck"
pytest_args=()

while [[ $# -gt 0 ]]; do
    case "$1" in
    --examples) examples="$2"; shift 2 ;;
    --full) full=1; shift ;;
    --origins) origins=1; shift ;;
    --out) out="$2"; shift 2 ;;
    -h | --help) sed -n '2,36p' "$0"; exit 0 ;;
    --) shift; pytest_args=("$@"); break ;;
    *) echo "memcheck.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

if ! command -v valgrind >/dev/null 2>&1; then
    echo "memcheck.sh: valgrind not found (apt-cache policy valgrind; apt-get install -y valgrind)" >&2
    exit 2
fi
# The real interpreter: a pyenv shim is a shell script valgrind would trace instead.
py="${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}"

if [[ ${#pytest_args[@]} -eq 0 ]]; then
    cd "$repo"
    pytest_args=(-m "not slow" tests/codegen/test_arrays_*.py tests/codegen/test_arrays.py
        tests/passes/test_lifetimes.py tests/ad/test_ad_named.py tests/ad/test_ad_lowlevel.py
        tests/ad/test_ad_pointers.py tests/codegen/test_tape.py)
fi

mkdir -p "$out/plugin"
rm -f "$out/memcheck.xml" "$out/valgrind.log" "$out/addresses.json" "$out/report.txt"

# ------------------------------------------------------------------ the pytest plugin
cat >"$out/plugin/gradc_memcheck.py" <<'PLUGIN'
"""pytest plugin for scripts/memcheck.sh (generated; edit the script, not this file)."""

import json
import os
import subprocess
import sys

EXAMPLES = int(os.environ.get("GRADC_MEMCHECK_EXAMPLES", "3"))
FULL = os.environ.get("GRADC_MEMCHECK_FULL") == "1"
ADDRS = os.environ.get("GRADC_MEMCHECK_ADDRS")
_runtimes = []  # {symbol: address} per linked runtime
_exports = []  # [name, address] of every compiled function made callable

_BUILD = (
    "import sys; from pathlib import Path;"
    "from gradc.artifacts.store import write_artifact;"
    "from gradc.compiler.driver import build_module;"
    "from gradc.compiler.options import CompilerOptions;"
    "write_artifact(sys.argv[2], build_module(Path(sys.argv[1]), CompilerOptions()))"
)


def _build_outside_valgrind(path, tmp_path_factory):
    import gradc

    out_dir = tmp_path_factory.mktemp(f"{path.stem}.gradc")
    env = dict(os.environ)
    env.pop("PYTHONMALLOC", None)
    proc = subprocess.run(
        [sys.executable, "-c", _BUILD, str(path), str(out_dir)],
        capture_output=True, text=True, env=env,
    )
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or ["?"]
        raise RuntimeError(f"gradc cannot build {path.name}: {lines[-1]}")
    return gradc.load(out_dir)


def pytest_configure(config):
    from hypothesis import settings

    if not FULL:
        settings.register_profile(
            "gradc-memcheck", max_examples=EXAMPLES, deadline=None, database=None
        )
    else:
        settings.register_profile("gradc-memcheck", deadline=None, database=None)
    settings.load_profile("gradc-memcheck")


def pytest_collection_modifyitems(session, config, items):
    from hypothesis import settings

    mods = sys.modules
    conftest = mods.get("tests.conftest")
    if conftest is not None and hasattr(conftest, "_build_and_load"):
        conftest._build_and_load = _build_outside_valgrind
    diff = mods.get("tests.codegen.test_arrays_differential")
    if diff is not None and not FULL:
        diff.SETTINGS = settings(diff.SETTINGS, max_examples=EXAMPLES, deadline=None)
        diff.LAYOUT_CASES = min(diff.LAYOUT_CASES, 1)
        diff.ORACLE_CASES = min(diff.ORACLE_CASES, 2)
    cg = mods.get("tests.codegen.conftest")
    if cg is not None and hasattr(cg, "Runtime"):
        init = cg.Runtime.__init__

        def recording_init(self, jit):
            init(self, jit)
            _runtimes.append({n: int(self.tracker[n]) for n in cg.RUNTIME_SYMBOLS})

        cg.Runtime.__init__ = recording_init
    if cg is not None and hasattr(cg, "Compiled"):
        cinit = cg.Compiled.__init__

        def recording_cinit(self, func, address):
            cinit(self, func, address)
            _exports.append([f"codegen:{func.name}", int(address)])

        cg.Compiled.__init__ = recording_cinit
    import gradc.artifacts.loader.cpu as loader

    make = loader._make_export

    def recording_make(entry, module, address, keepalive):
        _exports.append([f"{module}.{entry.name}", int(address)])
        return make(entry, module, address, keepalive)

    loader._make_export = recording_make
    if hasattr(loader, "_make_fast"):  # the CPython fast-call wrapper of an export
        make_fast = loader._make_fast

        def recording_fast(entry, module, address, *rest):
            _exports.append([f"{module}.{entry.name}[wrapper]", int(address)])
            return make_fast(entry, module, address, *rest)

        loader._make_fast = recording_fast


_live = {"last": 0, "growth": []}


def pytest_runtest_teardown(item, nextitem):
    """Note each test after which the loader's runtime holds more blocks than before."""
    loader = sys.modules.get("gradc.artifacts.loader.cpu")
    rt = getattr(loader, "_runtime", None) if loader else None
    if rt is None:
        return
    import gc

    gc.collect()
    now = int(rt.live.value)
    if now > _live["last"]:
        _live["growth"].append([item.nodeid, now - _live["last"], now])
    _live["last"] = now


def pytest_sessionfinish(session, exitstatus):
    loader = sys.modules.get("gradc.artifacts.loader.cpu")
    rt = getattr(loader, "_runtime", None) if loader else None
    if rt is not None:
        _runtimes.append({n: int(rt.tracker[n]) for n in loader._RT_SYMBOLS})
    if ADDRS:
        with open(ADDRS, "w") as f:
            json.dump(
                {
                    "runtimes": _runtimes,
                    "exports": _exports,
                    "live_growth": _live["growth"],
                    "pytest_exit": int(exitstatus),
                },
                f,
            )
PLUGIN

# ------------------------------------------------------------------ the report
cat >"$out/plugin/gradc_memcheck_report.py" <<'REPORT'
"""Classify valgrind memcheck XML (generated by scripts/memcheck.sh)."""

import json
import os
import sys
import xml.etree.ElementTree as ET
from collections import Counter

xml_path, addr_path, report_path = sys.argv[1:4]
ALLOCATORS = {
    "malloc", "calloc", "realloc", "free", "posix_memalign", "memalign", "aligned_alloc",
    "operator new(unsigned long)", "operator new[](unsigned long)",
    "operator delete(void*)", "operator delete(void*, unsigned long)",
}
RT_SPAN = 512  # bytes of gradc_rt1_alloc's code that may hold its call of posix_memalign


def is_system(obj):
    base = os.path.basename(obj or "")
    return base.startswith(("vgpreload_", "libc.so", "libc-", "libm.so", "libpthread"))


def frames(stack):
    return [
        {k: (f.findtext(k) or "") for k in ("ip", "obj", "fn", "file", "line")}
        for f in (stack.findall("frame") if stack is not None else [])
    ]


def owner(fs, skip_allocators=False):
    """(owner, index of its frame): 'JIT' or the basename of an object file."""
    for i, f in enumerate(fs):
        if skip_allocators and f["fn"] in ALLOCATORS:
            continue
        if not f["obj"] and not f["fn"]:
            return "JIT", i
        if is_system(f["obj"]):
            continue
        return os.path.basename(f["obj"]) or f["fn"], i
    return (os.path.basename(fs[0]["obj"]) if fs else "?"), 0


def jit_name(ip):
    """``symbol+0xoff`` of the nearest recorded JIT symbol at or below ``ip`` (64 KiB)."""
    try:
        a = int(ip, 16)
    except ValueError:
        return "???"
    best = None
    for name, start in symbols:
        if start <= a < start + 65536 and (best is None or start > best[1]):
            best = (name, start)
    return f"{best[0]}+{a - best[1]:#x}" if best else "???"


def fmt(fs, n=12):
    out = []
    for f in fs[:n]:
        jit_frame = not f["obj"] and not f["fn"]
        where = f["fn"] or (jit_name(f["ip"]) if jit_frame else "???")
        src = f" ({f['file']}:{f['line']})" if f["file"] else ""
        obj = f" in {os.path.basename(f['obj'])}" if f["obj"] else " [JIT code]"
        out.append(f"      {f['ip']}: {where}{src}{obj}")
    return "\n".join(out)


runtimes = []
pytest_exit = None
try:
    data = json.load(open(addr_path))
    runtimes = data.get("runtimes", [])
    pytest_exit = data.get("pytest_exit")
except (OSError, ValueError):
    pass
alloc_starts = [r["gradc_rt1_alloc"] for r in runtimes if "gradc_rt1_alloc" in r]
symbols = [(n, a) for r in runtimes for n, a in r.items() if not n.endswith("_live")]
try:
    symbols += [tuple(e) for e in data.get("exports", [])]
except NameError:
    pass


def in_rt_alloc(ip):
    try:
        a = int(ip, 16)
    except ValueError:
        return False
    return any(s <= a < s + RT_SPAN for s in alloc_starts)


root = ET.parse(xml_path).getroot()
noise = Counter()
noise_bytes = Counter()
jit = []
for err in root.findall("error"):
    kind = err.findtext("kind") or "?"
    what = err.findtext("what") or err.findtext("xwhat/text") or ""
    count = int(err.findtext("xwhat/leakedblocks") or 1)
    nbytes = int(err.findtext("xwhat/leakedbytes") or 0)
    stacks = err.findall("stack")
    fs = frames(stacks[0] if stacks else None)
    leak = kind.startswith("Leak_")
    who, i = owner(fs, skip_allocators=leak)
    # A library (CPython's C API in a fast-call wrapper ...) called by JIT code: the JIT
    # frame is its caller or close to it.
    if who != "JIT" and any(not f["obj"] and not f["fn"] for f in fs[i + 1 : i + 3]):
        who = f"JIT (calling {who})"
    origin = None
    if not leak and len(stacks) > 1:  # --track-origins: where the undefined bytes came from
        ofs = frames(stacks[1])
        o_who, _ = owner(ofs, skip_allocators=True)
        origin = (err.findtext("auxwhat") or "origin", ofs, o_who)
        if o_who == "JIT" and who != "JIT":
            who = "JIT (origin)"
    if who.startswith("JIT"):
        label = ""
        if leak and i > 0 and fs[i - 1]["fn"] == "posix_memalign":
            label = (
                " -- allocated by gradc_rt1_alloc"
                if in_rt_alloc(fs[i]["ip"]) or not alloc_starts
                else " -- posix_memalign from JIT code outside gradc_rt1_alloc"
            )
        jit.append((kind, what + label, fs, origin))
    else:
        noise[(who, kind)] += count if leak else 1
        noise_bytes[(who, kind)] += nbytes

lines = ["gradc memcheck report", "=" * 21]
status = [s.findtext("state") for s in root.findall("status")][-1:] or ["?"]
lines.append(f"valgrind status: {status[0]}; pytest exit status: {pytest_exit}")
lines.append(f"gradc runtimes seen (gradc_rt1_alloc addresses): {[hex(a) for a in alloc_starts]}")
growth = data.get("live_growth", []) if "data" in globals() else []
if growth:
    lines.append(
        f"gradc_rt1_live grew after {len(growth)} test(s) (blocks still held after the test"
        " and gc.collect(); a test may keep results alive on purpose):"
    )
    for nodeid, added, now in growth[:40]:
        lines.append(f"  +{added:<6d} (live {now}) {nodeid}")
    if len(growth) > 40:
        lines.append(f"  ... {len(growth) - 40} more")
lines.append("")
if jit:
    lines.append(f"ERRORS IN JIT-COMPILED CODE (gradc exports / runtime): {len(jit)}")
    for kind, what, fs, origin in jit:
        lines.append(f"  [{kind}] {what}")
        lines.append(fmt(fs))
        if origin is not None:
            lines.append(f"    {origin[0]}:")
            lines.append(fmt(origin[1], 8))
else:
    lines.append("JIT-compiled code (gradc exports and runtime): no invalid reads/writes, no")
    lines.append("uninitialised uses, no invalid frees, no definitely-lost blocks.")
lines.append("")
lines.append("Not attributed to gradc (library, kind: errors or leaked blocks, bytes):")
for (who, kind), n in sorted(noise.items(), key=lambda kv: (-kv[1], kv[0])):
    b = noise_bytes[(who, kind)]
    lines.append(f"  {who:40s} {kind:28s} {n:7d}" + (f" {b:10d} B" if b else ""))
text = "\n".join(lines) + "\n"
open(report_path, "w").write(text)
print(text)
sys.exit(1 if jit else 0)
REPORT

# ------------------------------------------------------------------ run
vg=(valgrind --tool=memcheck --xml=yes --xml-file="$out/memcheck.xml"
    --log-file="$out/valgrind.log" --leak-check=full --show-leak-kinds=definite
    --errors-for-leak-kinds=definite --num-callers=40 --error-limit=no
    --child-silent-after-fork=yes)
[[ $origins -eq 1 ]] && vg+=(--track-origins=yes)

echo "memcheck: valgrind $(valgrind --version | sed 's/valgrind-//'), python $py"
echo "memcheck: pytest ${pytest_args[*]} (hypothesis examples: $([[ $full -eq 1 ]] && echo suite || echo "$examples"))"
echo "memcheck: logs in $out"
set +e
PYTHONMALLOC=malloc \
PYTHONPATH="$out/plugin${PYTHONPATH:+:$PYTHONPATH}" \
GRADC_MEMCHECK_EXAMPLES="$examples" GRADC_MEMCHECK_FULL="$full" \
GRADC_MEMCHECK_ADDRS="$out/addresses.json" \
    "${vg[@]}" "$py" -m pytest -p gradc_memcheck -p no:cacheprovider -q -rfE \
    "${pytest_args[@]}" 2>&1 | tee "$out/pytest.log" | tail -n 25
pytest_rc=${PIPESTATUS[0]}
set -e
echo "memcheck: pytest under valgrind exited $pytest_rc"

report_rc=0
"$py" "$out/plugin/gradc_memcheck_report.py" "$out/memcheck.xml" "$out/addresses.json" \
    "$out/report.txt" || report_rc=$?
if [[ $report_rc -ne 0 ]]; then
    exit 1
fi
if [[ $pytest_rc -ne 0 ]]; then
    exit 3
fi
exit 0
