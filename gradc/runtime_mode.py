"""Runtime mode: ``import m`` in plain Python gives m's ``@gradc.export`` functions compiled.

The decorator returns an :class:`ExportedFunction`; nothing happens at import. The first
call of any export of a module resolves the module's artifact, once per process:

1. a *fresh* artifact next to the module (``<dir>/<stem>.gradc``, then
   ``<dir>/build/<stem>.gradc``, where ``gradc build`` writes by default from any working
   directory: :func:`default_build_dir`), else in the
   cache directory ``<cache_root>/<stem>-<sha256(absolute source path)[:16]>.gradc``;
2. else the module is compiled (``gradc.compiler.driver.build_module``, reusing objects
   of a stale artifact by key) and stored in the cache directory, atomically and under the
   store's lock (``gradc.artifacts.store.write_artifact``).

*Fresh* is decided without compiling: the manifest records ``sources`` (module-relative
file -> sha256 of its bytes, for every file the front end read), and each must hash the
same now; the artifact's gradc and LLVM versions must be this process's; an artifact in
the cache directory must also have been built with :data:`RUNTIME_OPTIONS` (one next to
the module was built by its packager, with the options the packager chose).

*Code without a file* (a function defined in ``python -c``, ``python - < script.py``,
at the interactive prompt or in a Jupyter cell) is compiled from its source text, found
where Python or the shell keeps it (``gradc.inline_source.memory_source``: ``linecache``,
where IPython registers every cell and Python 3.13's REPL every input; ``sys.orig_argv``
for ``-c``; standard input when it is a regular file; the ``readline`` history of the
interactive prompt). A cell's imports of ``gradc``, ``numpy`` and ``math`` may be in earlier cells
(``gradc.inline_source.prelude_of``). Its artifact lives in the cache directory only, at
``<cache_root>/inline-<sha256(source text)[:16]>.gradc``: keyed by content, so re-running
the same cell (in any kernel) loads it. Diagnostics name the cell (``Cell In[3]``, as
IPython's tracebacks do), ``<string>`` or ``<stdin>``, with its line.

Resolving logs to ``logging.getLogger("gradc")``: ``hit`` (INFO) with the artifact,
``miss`` (INFO) with the reason the artifact found was not fresh (as ``--explain``
says it), ``compiled`` (INFO) with the compile time, the per-export ``--explain`` lines
(DEBUG). Cold processes that miss the same module together compile it once: the compile
runs under a file lock on the cache entry (``<entry>.lock``), and a process that waited
for it loads what the first one wrote (``hit ... compiled by another process``).

Module-level ``d = gradc.grad(f, ...)`` declarations resolve the same way: calling ``d``
calls the artifact's export named ``d`` (the name the declaration is bound to).

The environment is read here, at the API boundary, and nowhere below:

- ``GRADC_CACHE_DIR``: the cache root (default ``platformdirs.user_cache_dir("gradc")``);
- ``GRADC_NO_COMPILE=1``: never compile; a module without a fresh artifact raises
  ``gradc.compiler.driver.CompileForbiddenError`` at its first call;
- ``GRADC_PLAIN_PYTHON=1``: ``@gradc.export`` returns the function unchanged (plain
  Python: oracles in tests, debugging);
- ``GRADC_LOG=info|debug``: a stderr handler on the ``gradc`` logger at that level
  (:func:`configure_logging`; unset, empty, ``0``, ``false``, ``no`` or ``off``: none);
- ``GRADC_REMOTE_CACHE=s3://bucket/prefix`` (and ``GRADC_REMOTE_CACHE_READONLY=1``):
  a compile first downloads from this shared cache what another machine compiled, and
  publishes what it compiled itself (``gradc.artifacts.remote``, docs/remote.md).

This module imports only the standard library at import time (``import gradc`` stays
cheap); the loader is imported on first call, the compiler only when compiling.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gradc import _flags
from gradc._hashing import sha256
from gradc.inline_source import memory_source, prelude_of
from gradc.runtime_options import RUNTIME_CPUS, RUNTIME_OPTIONS, options_problem

if TYPE_CHECKING:
    from gradc.artifacts.loader.cpu import Library
    from gradc.artifacts.manifest import Manifest


CACHE_DIR_ENV = "GRADC_CACHE_DIR"
NO_COMPILE_ENV = "GRADC_NO_COMPILE"
PLAIN_PYTHON_ENV = "GRADC_PLAIN_PYTHON"
REMOTE_CACHE_ENV = "GRADC_REMOTE_CACHE"
REMOTE_READONLY_ENV = "GRADC_REMOTE_CACHE_READONLY"
LOG_ENV = "GRADC_LOG"

#: Values of a variable that mean "off" (the house rule for environment flags).
FALSE_WORDS = _flags.FALSE_WORDS

#: Name of the logger that runtime mode reports hits, misses and compiles to.
LOGGER_NAME = "gradc"


def env_flag(name: str, environ: Mapping[str, str] | None = None) -> bool:
    """Environment variable ``name`` is on: set, and not blank, ``0``, ``false``, ``no`` or
    ``off`` in any case (``gradc._flags.flag_value``, the rule for every flag)."""
    return _flags.flag_value((os.environ if environ is None else environ).get(name))


def log_level(environ: Mapping[str, str] | None = None) -> int | None:
    """The ``logging`` level ``GRADC_LOG`` asks for, None when it is off.

    ``debug``, ``info`` (also ``1``, ``true``, ``yes``, ``on``), ``warning``, ``error``,
    case-insensitive; unset or one of :data:`FALSE_WORDS`: None. Another value is read as
    ``info`` with a ``RuntimeWarning`` (a typo should not silence the log).
    """
    import logging

    value = (os.environ if environ is None else environ).get(LOG_ENV, "").strip().lower()
    if value in FALSE_WORDS:
        return None
    levels = {"debug": logging.DEBUG, "warning": logging.WARNING, "error": logging.ERROR}
    if value in levels:
        return levels[value]
    if value not in ("info", "1", "true", "yes", "on"):
        warnings.warn(
            f"gradc: {LOG_ENV}={value!r} is not one of debug, info, warning, error, off; "
            "logging at info",
            RuntimeWarning,
            stacklevel=2,
        )
    return logging.INFO


_logging_configured = False


def configure_logging(environ: Mapping[str, str] | None = None) -> None:
    """Once per process: with ``GRADC_LOG`` set (:func:`log_level`), add a stderr handler
    at that level to the ``gradc`` logger (messages ``gradc: hit ...``). Without it the
    logger is left alone: applications configure ``logging`` as they like."""
    global _logging_configured
    if _logging_configured:
        return
    _logging_configured = True
    level = log_level(environ)
    if level is None:
        return
    import logging

    handler = logging.StreamHandler()  # sys.stderr at the time of each record
    handler.setFormatter(logging.Formatter("gradc: %(message)s"))
    handler.setLevel(level)
    logger = logging.getLogger(LOGGER_NAME)
    logger.addHandler(handler)
    if logger.level == logging.NOTSET or logger.level > level:
        logger.setLevel(level)


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """``$GRADC_CACHE_DIR``, else ``platformdirs.user_cache_dir("gradc")``."""
    env = os.environ if environ is None else environ
    if env.get(CACHE_DIR_ENV):
        return Path(env[CACHE_DIR_ENV])
    import platformdirs

    return Path(platformdirs.user_cache_dir("gradc"))


def cache_artifact_dir(source: Path, root: Path) -> Path:
    """``<root>/<stem>-<sha256(absolute source path)[:16]>.gradc`` for module ``source``."""
    absolute = os.path.abspath(source)
    digest = sha256(absolute.encode("utf-8", "surrogateescape")).hexdigest()
    return root / f"{Path(absolute).stem}-{digest[:16]}.gradc"


def inline_artifact_dir(text: bytes, root: Path, prelude: str = "") -> Path:
    """``<root>/inline-<sha256(text)[:16]>.gradc``: the cache entry of code without a file
    whose source is ``text`` (keyed by content, never by a name or path); with a
    ``prelude`` (:func:`prelude_of`), the hash covers it too."""
    digest = sha256(_inline_bytes(text, prelude)).hexdigest()
    return root / f"inline-{digest[:16]}.gradc"


def _inline_bytes(text: bytes, prelude: str) -> bytes:
    """What identifies code without a file: its text, then its prelude if any."""
    return text if not prelude else text + b"\0prelude\0" + prelude.encode("utf-8")


class SourceUnavailableError(OSError):
    """The source of a function defined outside any file cannot be found (e.g. code
    piped to ``python`` through standard input: Python keeps no copy of it)."""


def default_build_dir(source: Path) -> Path:
    """``<folder of source>/build/<stem>.gradc``: where ``gradc build m.py`` writes without
    ``-o``, wherever it is run from, and so where runtime mode looks (the one rule for
    both). Relative when ``source`` is (``m.py`` -> ``build/m.gradc``)."""
    source = Path(source)
    return source.parent / "build" / f"{source.stem}.gradc"


def local_artifact_dirs(source: Path) -> list[Path]:
    """The artifact directories next to module ``source``, in the order they are tried:
    ``<stem>.gradc`` beside it (a packager's choice), then :func:`default_build_dir`."""
    source = Path(os.path.abspath(source))
    return [source.with_name(f"{source.stem}.gradc"), default_build_dir(source)]


def is_fresh(
    manifest: Manifest, source: Path, *, check_options: bool, text: bytes | None = None
) -> bool:
    """``manifest`` was built from the current bytes of every source file it lists, by
    this gradc and LLVM (and, with ``check_options``, with :data:`RUNTIME_OPTIONS`);
    :func:`stale_reason` says why not."""
    return stale_reason(manifest, source, check_options=check_options, text=text) is None


def stale_reason(
    manifest: Manifest, source: Path, *, check_options: bool, text: bytes | None = None
) -> str | None:
    """Why ``manifest`` is not fresh for module ``source`` (words, as ``--explain`` says
    them), None when it is (see :func:`is_fresh`).

    With ``text`` (code without a file), the module is that text: the manifest must list
    a source with its hash; the other sources are files relative to ``source``'s folder.
    """
    from gradc._version import __version__
    from gradc.artifacts.abi import ABI_VERSION, RUNTIME_ABI
    from gradc.artifacts.loader.cpu import llvm_version

    base = Path(os.path.abspath(source)).parent
    sources = dict(manifest.sources)
    if text is not None:
        digest = sha256(text).hexdigest()
        main = [rel for rel, d in sources.items() if d == digest]
        if not main:
            return "built from another source text"
        del sources[main[0]]
    elif Path(source).name not in sources:
        return f"built from another module, not {Path(source).name}"  # or before format 1.2
    for rel, digest in sources.items():
        try:
            data = (base / rel).read_bytes()
        except OSError:
            return f"source {rel} is missing"
        if sha256(data).hexdigest() != digest:
            return f"source {rel} changed"
    if manifest.producer.gradc != __version__:
        return f"built by gradc {manifest.producer.gradc}, this is {__version__}"
    if manifest.producer.llvm != llvm_version():
        return f"built with LLVM {manifest.producer.llvm}, this is {llvm_version()}"
    if manifest.runtime is not None and manifest.runtime.abi != RUNTIME_ABI:
        return f"runtime ABI {manifest.runtime.abi}, this is {RUNTIME_ABI}"  # loader refuses
    if any(e.abi_version != ABI_VERSION for e in manifest.entries):
        return f"calling convention is not ABI {ABI_VERSION}"  # the loader would refuse it
    if check_options:  # an export's own fastmath=/boundscheck= allowed (runtime_options)
        return options_problem(manifest)
    return None


class _ModuleState:
    """One module's artifact, resolved once per process (under ``lock``).

    ``text`` is the source of code without a file (``source`` is then its display name,
    e.g. ``<stdin>``), ``prelude`` the imports it relies on (:func:`prelude_of`); ``problem`` says why such code's source could not be found.
    """

    def __init__(
        self, source: Path, text: bytes | None = None, problem: str = "", prelude: str = ""
    ) -> None:
        self.source = source
        self.text = text
        self.prelude = prelude
        self.problem = problem
        self.lock = threading.Lock()
        self.library: Library | None = None
        self.path: Path | None = None
        self.compiled = False


_modules: dict[str, _ModuleState] = {}
_modules_lock = threading.Lock()


def module_state(
    source: Path, text: bytes | None = None, problem: str = "", prelude: str = ""
) -> _ModuleState:
    """The process-wide state of the module at ``source`` (an absolute path), or of the
    code without a file whose source is ``text`` (one state per text and prelude)."""
    if text is not None:
        key = "inline:" + sha256(_inline_bytes(text, prelude)).hexdigest()
    elif problem:
        key = "missing:" + str(source)
    else:
        key = os.path.abspath(source)
    with _modules_lock:
        state = _modules.get(key)
        if state is None:
            state = _modules[key] = _ModuleState(
                Path(key) if text is None and not problem else source, text, problem, prelude
            )
        return state


def _try_load(
    candidate: Path, state: _ModuleState, check_options: bool
) -> tuple[Library | None, str]:
    """``(library, "")`` when ``candidate`` is fresh and loads, else ``(None, why not)``."""
    from gradc.artifacts.errors import ArtifactError
    from gradc.artifacts.loader.cpu import load
    from gradc.artifacts.store import read_manifest

    if not (candidate / "manifest.msgpack").is_file():
        return None, "no artifact"
    try:
        why = stale_reason(
            read_manifest(candidate),
            _base_path(state),
            check_options=check_options,
            text=state.text,
        )
        if why is not None:
            return None, why
        return load(candidate), ""
    except ArtifactError as exc:
        warnings.warn(f"gradc: not using {candidate}: {exc}", RuntimeWarning, stacklevel=5)
        return None, f"unusable: {exc}"


def _base_path(state: _ModuleState) -> Path:
    """The path whose folder the module's other sources are relative to (for code without
    a file: the working directory, where the front end resolved its imports)."""
    return state.source if state.text is None else Path(os.path.abspath(state.source))


def resolve(state: _ModuleState) -> Library:
    """The loaded artifact of ``state``'s module: a fresh one, else compiled and stored.

    Logs ``hit``, ``miss`` (with the reason) and ``compiled`` (with the time) to the
    ``gradc`` logger. The compile runs under a file lock on the cache entry; a process
    that waited for another's compile of the same module loads its artifact instead.

    Raises:
        SourceUnavailableError: code without a file whose source cannot be found.
        CompileForbiddenError: no fresh artifact and ``GRADC_NO_COMPILE=1``.
        CompileError: the module does not compile (the diagnostic names file and line).
        ArtifactError: the artifact just written cannot be loaded.
    """
    if state.library is not None:
        return state.library
    with state.lock:
        if state.library is not None:
            return state.library
        import logging

        from gradc.artifacts.loader.cpu import load

        configure_logging()
        log = logging.getLogger(LOGGER_NAME)
        if state.problem:
            raise SourceUnavailableError(state.problem)
        name = str(state.source) if state.text is not None else state.source.name
        root = cache_root()
        if state.text is not None:
            cached, local = inline_artifact_dir(state.text, root, state.prelude), []
        else:
            cached, local = (
                cache_artifact_dir(state.source, root),
                local_artifact_dirs(state.source),
            )
        reasons = []
        for candidate, check_options in [*((d, False) for d in local), (cached, True)]:
            library, why = _try_load(candidate, state, check_options)
            if library is not None:
                log.info("hit %s: %s", name, candidate)
                state.library, state.path = library, candidate
                return library
            if why != "no artifact":
                reasons.append(f"{candidate}: {why}")
        log.info("miss %s: %s", name, "; ".join(reasons) or f"no artifact (cache entry {cached})")
        allow_compile = not env_flag(NO_COMPILE_ENV)
        compile_args: dict[str, Any] = {
            "allow_compile": allow_compile,
            "remote_url": os.environ.get(REMOTE_CACHE_ENV, ""),
            "remote_readonly": env_flag(REMOTE_READONLY_ENV),
            "text": state.text,
            "prelude": state.prelude,
        }
        if not allow_compile:
            _compile(state.source, cached, **compile_args)  # raises CompileForbiddenError
        from filelock import FileLock  # ~60 ms to import: compiling processes only

        cached.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(cached.with_name(cached.name + ".lock"))):
            library, _ = _try_load(cached, state, True)
            if library is not None:  # another process compiled it while we waited
                log.info(
                    "hit %s (compiled by another process while this one waited): %s", name, cached
                )
                state.library, state.path = library, cached
                return library
            start = time.perf_counter()
            _compile(state.source, cached, **compile_args)
            log.info("compiled %s in %.3f s: %s", name, time.perf_counter() - start, cached)
            state.library, state.path, state.compiled = load(cached), cached, True
        return state.library


def _compile(
    source: Path,
    out: Path,
    *,
    allow_compile: bool,
    remote_url: str = "",
    remote_readonly: bool = False,
    text: bytes | None = None,
    prelude: str = "",
) -> None:
    """Build ``source`` (or, with ``text``, the code without a file ``text`` named
    ``source``) into ``out`` with :data:`RUNTIME_OPTIONS`, reusing ``out``'s objects and,
    with ``remote_url``, downloading from (and publishing to) that remote cache: the
    driver's ``build_artifact``, as ``gradc build`` does."""
    import logging

    from gradc.compiler.diagnostics import CompileError
    from gradc.compiler.driver import build_artifact
    from gradc.compiler.options import CompilerOptions

    remote = _remote_cache(remote_url, remote_readonly) if allow_compile else None
    try:
        built = build_artifact(
            source,
            out,
            CompilerOptions(
                **RUNTIME_OPTIONS,  # type: ignore[arg-type]
                cpus=RUNTIME_CPUS,
                vector_variants_only=True,
            ),
            allow_compile=allow_compile,
            remote=remote,
            warn=_warn_rebuild,
            source_text=text,
            prelude=prelude,
        )
    except CompileError as err:  # the user's diagnostic, without the compiler's frames
        raise err.with_traceback(None) from None
    log = logging.getLogger(LOGGER_NAME)
    if log.isEnabledFor(logging.DEBUG):
        from gradc.cli.explain import explain

        hits = remote.stats.hits if remote is not None else ()
        for line in explain(built.previous, built.output.entries, built.output.callees, hits):
            log.debug("%s", line)


def _warn_rebuild(message: str) -> None:
    """A ``RuntimeWarning`` pointing at the call that compiled (a previous artifact that
    cannot be reused, e.g. a missing blob, is rebuilt)."""
    warnings.warn(f"gradc: {message}", RuntimeWarning, stacklevel=7)


def _remote_cache(url: str, readonly: bool) -> Any:
    """A ``gradc.artifacts.remote.RemoteCache`` for ``url`` (None without one); problems
    are ``RuntimeWarning``s, never errors: the module then compiles locally."""
    if not url:
        return None
    from gradc.artifacts.remote import RemoteCache, RemoteOptions, host_toolchain, open_filesystem

    def warn(message: str) -> None:
        warnings.warn(f"gradc: {message}", RuntimeWarning, stacklevel=2)

    try:
        options = RemoteOptions(url, readonly=readonly)
        filesystem = open_filesystem(options)
    except (ImportError, ValueError) as exc:
        warn(f"remote cache {url} not used: {exc}")
        return None
    return RemoteCache(options, host_toolchain(), warn=warn, filesystem=filesystem)


class ExportedFunction:
    """What ``@gradc.export`` returns in plain Python: the compiled export, on first call.

    Calling it calls the compiled function of the module's artifact (see the module
    docstring for how it is found or built); the first call may compile. Signatures,
    conversions and errors are the loader's (``gradc.load``).

    Attributes:
        py_func: the plain Python function (Numba's name), e.g. as an oracle.
        source: absolute path of the module file that defines it; for code without a
            file, its display name (``Cell In[3]``, ``<string>``, ``<stdin>``).
    """

    __slots__ = ("__dict__", "_compiled", "_state", "py_func", "source")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.py_func = fn
        filename = fn.__code__.co_filename
        self._state: _ModuleState | None = None
        if os.path.isfile(filename):
            self.source = Path(os.path.abspath(filename))
            self._state = module_state(self.source)
        elif filename == "<stdin>" and hasattr(sys, "ps1"):
            # Typed at the interactive prompt: read the history at the first call, so that
            # derivative declarations typed after the definition are compiled with it.
            self.source = Path(filename)
        else:  # python -c, stdin, a notebook cell: compile from the source text
            self._state = self._find_state()
        self._compiled: Callable[..., Any] | None = None
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            self.__dict__[attr] = getattr(fn, attr, None)
        self.__dict__["__wrapped__"] = fn

    def _find_state(self) -> _ModuleState:
        """The state of the module of code without a file (:func:`memory_source`)."""
        fn = self.py_func
        found = memory_source(fn)
        if found is None:
            return module_state(
                Path(fn.__code__.co_filename),
                problem=f"gradc cannot find the source of {fn.__qualname__}, defined in "
                f"{fn.__code__.co_filename}: Python keeps no copy of code it read from a "
                "pipe. Put it in a file and import it, or run it with `python -c`, "
                "`python - < file.py`, IPython or Jupyter",
            )
        self.source = Path(found[0])
        prelude = prelude_of(fn, found[1])
        return module_state(self.source, found[1].encode("utf-8"), prelude=prelude)

    def module(self) -> _ModuleState:
        """The process-wide state of this export's module."""
        if self._state is None:
            self._state = self._find_state()
        return self._state

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self.compiled()
        return compiled(*args, **kwargs)

    def compiled(self) -> Callable[..., Any]:
        """The compiled function (resolving the module's artifact on first use)."""
        if self._compiled is None:
            try:
                library = resolve(self.module())
            except Exception as exc:
                diagnostics = sys.modules.get("gradc.compiler.diagnostics")
                if diagnostics is not None and isinstance(exc, diagnostics.CompileError):
                    # the user's diagnostic, raised from here: no frames of resolving
                    raise exc.with_traceback(None) from None
                raise
            self._compiled = getattr(library, self.py_func.__name__)
        return self._compiled

    @property
    def artifact(self) -> Path | None:
        """The artifact directory in use, None before the first call."""
        return self._state.path if self._state is not None else None

    def __repr__(self) -> str:
        return f"<gradc.export {self.py_func.__qualname__} of {self.source}>"


def resolve_derivative(declaration: Any, fn: ExportedFunction) -> Callable[..., Any]:
    """The compiled export of a module-level derivative ``declaration`` of ``fn``: the
    artifact's export named as the global that ``declaration`` is bound to.

    Raises:
        NameError: ``declaration`` is not bound to a global of ``fn``'s module.
    """
    names = [k for k, v in fn.py_func.__globals__.items() if v is declaration]
    if not names:
        raise NameError(
            f"{declaration!r} is not assigned to a module-level name of {fn.source.name}; "
            "declare derivatives at module level (d_f = gradc.grad(f, ...))"
        )
    compiled: Callable[..., Any] = getattr(resolve(fn.module()), names[0])
    return compiled
