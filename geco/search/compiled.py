"""Which search runs: the compiled kernels (:mod:`geco.search.kernels`, numba) or the numpy
reference. Both give the same explanation for the same seed, so the choice is one of cost only:
the kernels save a quarter to two fifths of an explanation's time, and their first use in a
process costs about a third of a second (importing numba and loading the kernels from numba's
disk cache; compiling them the first time after an install, about twenty-six). ``SearchConfig.native``:

* ``True`` / ``False``: the kernels (where numba is installed) / the reference;
* ``None`` (the default): the kernels when they are already loaded in this process, else the
  reference. A job long enough to pay for them loads them (:func:`load_kernels`): a batch once
  its first rows' time shows it pays (:func:`kernels_pay`), ``geco serve`` at start-up, and any
  search once what they would have saved on this process's reference searches so far reaches
  what their first use costs (the rent-or-buy rule: at most twice the cost of the better choice
  in hindsight, however many explanations follow; :func:`kernels_earned`). Never inside a
  search with a time budget.

Where the kernels are not in numba's cache yet, a long job does not stop for the compile: it
starts it in a child process (:func:`compile_in_background`, :mod:`geco.search.warm_kernels`)
and goes on with the reference until the child has filled the cache, then loads them in half a
second (:func:`load_kernels_if_compiled`): ``geco serve`` at start-up, a batch once they pay,
single searches once they have earned them (a Dask worker's among them).

The environment variable ``GECO_SEARCH_NATIVE=1`` turns the kernels on for every search, ``0``
off.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import threading
import warnings
import weakref
from pathlib import Path
from types import ModuleType

from geco.search.kernel_lock import compile_running

__all__ = ["FIRST_USE_SECONDS", "KERNELS_SAVE", "BackgroundCompile", "background_compile", "buy_kernels", "clear_stale_kernels",
           "compile_in_background", "compiled_kernels", "first_use_seconds", "kernels_available", "kernels_cache_dir",
           "kernels_cached", "kernels_earned", "kernels_loaded", "kernels_pay", "kernels_source_digest", "load_kernels",
           "load_kernels_if_compiled", "note_reference_search"]

_MODULE = "geco.search.kernels"
#: the share of an explanation's time the kernels save, at least (bench_native: 1.36-1.67x,
#: i.e. 26-40 %; earlier 1.23-1.45x)
KERNELS_SAVE = 0.2
#: the kernels' first use in a process: (numba's disk cache filled, empty) in CPU seconds, what
#: they add to a fresh process's first compiled explanation as bench_native measures it on a
#: 2-core AMD EPYC (0.35-0.36 s and 25.4-27.2 s: every kernel a search runs, the one-call
#: breeding and the compiled cascade among them)
FIRST_USE_SECONDS = (0.5, 26.0)


def _switch() -> str:
    return os.environ.get("GECO_SEARCH_NATIVE", "")


#: set when importing the kernels failed (numba installed but broken): not tried again
_import_failed = [False]


def kernels_available() -> bool:
    """Whether the kernels can run here: numba is installed (and did not fail to import) and
    ``GECO_SEARCH_NATIVE`` is not "0" (checked without importing numba)."""
    return _switch() != "0" and not _import_failed[0] and importlib.util.find_spec("numba") is not None


def kernels_loaded() -> bool:
    """Whether this process has loaded the kernels already (their use then costs nothing more)."""
    return _MODULE in sys.modules


def load_kernels() -> ModuleType | None:
    """Import the kernels (numba with them); None where they cannot run. An import that fails
    (numba broken; or no writable directory for numba's cache, where numba refuses to define
    the kernels) is not tried again, and says why once (a RuntimeWarning): the numpy search
    then runs, with the same explanations."""
    if not kernels_available():
        return None
    try:
        return importlib.import_module(_MODULE)
    except Exception as exc:  # ImportError; numba's RuntimeError when it has nowhere to cache
        _import_failed[0] = True
        warnings.warn(
            f"the compiled search could not be loaded ({type(exc).__name__}: {exc}); the numpy search runs "
            "instead, with the same explanations (where numba has no writable cache directory, set NUMBA_CACHE_DIR)",
            RuntimeWarning, stacklevel=2,
        )  # fmt: skip
        return None


#: seconds the searches of this process spent in the numpy reference under the default
_reference_seconds = [0.0]


def note_reference_search(seconds: float) -> None:
    """Count a search the default ran in the numpy reference (``seconds`` long): the kernels
    would have saved ``KERNELS_SAVE`` of it (the rent the rent-or-buy rule adds up)."""
    _reference_seconds[0] += seconds


def kernels_earned() -> bool:
    """Whether the reference searches of this process have spent what the kernels would have
    saved on them as much as their first use costs (then loading them is the buy of the
    rent-or-buy rule); False where they cannot run."""
    saved = _reference_seconds[0] * KERNELS_SAVE
    return saved >= FIRST_USE_SECONDS[0] and kernels_available() and saved >= first_use_seconds()


def compiled_kernels(native: bool | None = True, may_load: bool = False) -> ModuleType | None:
    """The kernels a search with ``SearchConfig.native`` = ``native`` runs, or None for the
    numpy reference (see the module docstring); under the default, ``may_load``: load them
    here when this process has earned them (:func:`kernels_earned`), from numba's cache. Earned
    but not in the cache, they are compiled in a child process (:func:`compile_in_background`)
    while the searches go on in the reference, and loaded by the first search after it is done:
    a loop of single explanations never stops ~26 s for the compile."""
    switch = _switch()
    if switch == "0" or (native is False and switch != "1"):
        return None
    if native is None and switch != "1":
        loaded = sys.modules.get(_MODULE)
        if loaded is not None or not may_load or not kernels_earned():
            return loaded
        return buy_kernels()
    return load_kernels()


def kernels_cache_dir() -> Path | None:
    """The directory numba keeps the kernels' compiled code in, found as numba finds it, without
    importing numba: ``NUMBA_CACHE_DIR`` (then a sub-directory named after the kernels' source
    directory), else the ``__pycache__`` beside the kernels' files where it is writable, else
    numba's user cache directory (the same sub-directory); None without the kernels' files."""
    spec = importlib.util.find_spec(_MODULE)
    if spec is None or not spec.submodule_search_locations:
        return None
    source = os.path.abspath(next(iter(spec.submodule_search_locations)))
    subpath = f"{os.path.basename(source)}_{hashlib.sha1(source.encode()).hexdigest()}"
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"], subpath)
    in_tree = Path(source, "__pycache__")
    if os.access(in_tree if in_tree.exists() else source, os.W_OK):
        return in_tree
    user = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(user, "numba", subpath)


#: the file, in numba's cache directory, naming the kernels' sources its compiled code is of
SOURCES_MARK = "geco-kernels.sha1"


def kernels_source_digest() -> str | None:
    """SHA-1 of the kernels' source files (names and bytes), None without them. Why: numba
    checks a cached kernel against its own file only, so a kernel calling one of another file
    keeps that callee's old code after an edit there (numba's documented caching limit); the
    cache is trusted only for the sources it was compiled from (:func:`clear_stale_kernels`)."""
    spec = importlib.util.find_spec(_MODULE)
    if spec is None or not spec.submodule_search_locations:
        return None
    paths = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.py"))
    stamp = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in paths)
    if _digest_of[0] is not None and _digest_of[0][0] == stamp:  # read once while the files stay
        return _digest_of[0][1]
    digest = hashlib.sha1()
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    _digest_of[0] = (stamp, digest.hexdigest())
    return _digest_of[0][1]


#: the last digest computed and the files' (path, mtime, size) it was computed from
_digest_of: list[tuple[tuple, str] | None] = [None]


def _named_current(cache: Path) -> bool:
    """Whether ``cache`` names the kernels' sources as they are now (a missing, unreadable or
    garbled name names none)."""
    try:
        return (cache / SOURCES_MARK).read_text(errors="replace").strip() == kernels_source_digest()
    except OSError:
        return False


def _cache_is_current(cache: Path) -> bool:
    """Whether ``cache`` holds compiled kernels of the sources as they are now."""
    return any(cache.glob("*.nbi")) and _named_current(cache)


def clear_stale_kernels() -> None:
    """Drop numba's cached kernels when they were compiled from other sources than these (see
    :func:`kernels_source_digest`), then name these: every kernel compiles again, once, rather
    than one of them running a callee's old code. Called where the kernels are imported; a
    cache directory this process cannot write is left to numba."""
    cache = kernels_cache_dir()
    if cache is None:
        return
    if _named_current(cache):
        return
    try:
        cache.mkdir(parents=True, exist_ok=True)  # an empty cache is named too, before numba fills it
        for stale in [*cache.glob("*.nbi"), *cache.glob("*.nbc")]:
            stale.unlink(missing_ok=True)
        (cache / SOURCES_MARK).write_text(f"{kernels_source_digest()}\n")
    except OSError:
        return


def first_use_seconds(cache: Path | None = None) -> float:
    """What loading the kernels into this process is expected to cost: a load from numba's
    disk cache when ``cache`` (default: where numba keeps them, :func:`kernels_cache_dir`)
    holds them or a background compile of this process has filled it, else a compile (also
    while a background compile runs, this process's or another's, or after this process's
    failed: the cache then holds only some of them). A cache of other sources than these
    (:func:`kernels_source_digest`) holds none of them."""
    if cache is None and _background[0] is not None:
        # done: the cache is full; running: it is filling, and what it lacks would compile here;
        # failed: what it left would compile here too
        return FIRST_USE_SECONDS[0 if _background[0].state() == "done" else 1]
    if cache is not None:
        return FIRST_USE_SECONDS[0] if _cache_is_current(cache) else FIRST_USE_SECONDS[1]
    cache = kernels_cache_dir()
    if cache is None or not _cache_is_current(cache):
        return FIRST_USE_SECONDS[1]
    return FIRST_USE_SECONDS[1] if compile_running() else FIRST_USE_SECONDS[0]  # another's child filling it


def kernels_pay(rows_left: float, seconds_per_row: float) -> bool:
    """Whether a process that has not loaded the kernels would gain by loading them for
    ``rows_left`` more explanations of about ``seconds_per_row`` each: what they save exceeds
    their first use. False where they cannot run."""
    return kernels_available() and rows_left * seconds_per_row * KERNELS_SAVE > first_use_seconds()


def kernels_cached() -> bool:
    """Whether loading the kernels would be a load from the cache, not a compile."""
    return first_use_seconds() <= FIRST_USE_SECONDS[0]


class BackgroundCompile:
    """A child process filling numba's cache with the kernels (``python -m
    geco.search.warm_kernels``); its ``state()``: "running", "done" or "failed" (``reason``
    says why, from the child's last line on stderr). The child outlives nothing it needs from
    this process: if this one exits first, it finishes the cache and exits."""

    def __init__(self, command: list[str] | None = None):
        root = str(Path(__file__).resolve().parents[2])  # the directory holding the geco package
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": root + (os.pathsep + path if path else "")}
        self.command = command or [sys.executable, "-m", "geco.search.warm_kernels"]
        fd, name = tempfile.mkstemp(prefix="geco-kernels-", suffix=".err")
        self.errors: Path | None = Path(name)  # a file, not a pipe: nothing can fill and stall it
        # removed when read, or when this object or the process goes (a running child keeps
        # writing to the unlinked file, which nobody reads then)
        self._drop_errors = weakref.finalize(self, self.errors.unlink, missing_ok=True)
        with os.fdopen(fd, "wb") as err:
            self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=err, env=env, start_new_session=True)  # fmt: skip
        self.reason = ""
        self._lock = threading.Lock()  # geco serve asks from its request thread and its event loop

    def state(self) -> str:
        with self._lock:
            code = self.process.poll()
            if code is None:
                return "running"
            if self.errors is not None:  # finished: keep its last word, drop the file
                text = self.errors.read_text(errors="replace").strip() if self.errors.exists() else ""
                self._drop_errors()
                self.errors = None
                if code != 0:
                    self.reason = text.splitlines()[-1] if text else f"exit status {code}"
                    warnings.warn(f"the compiled search could not be compiled in a child process ({self.reason}); "
                                  "the numpy search runs instead, with the same explanations", RuntimeWarning,
                                  stacklevel=2)  # fmt: skip
            return "done" if code == 0 else "failed"

    def wait(self, timeout: float | None = None) -> str:
        """Wait for the child (at most ``timeout`` seconds); its state then."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout)
        return self.state()


#: this process's background compile, once started (one per process: it fills a shared cache)
_background: list[BackgroundCompile | None] = [None]


def background_compile() -> BackgroundCompile | None:
    """The background compile this process started, if any."""
    return _background[0]


def compile_in_background() -> BackgroundCompile | None:
    """Start filling numba's cache with the kernels in a child process, unless they are loaded
    here already, cannot run, are in the cache, or this process started a compile before (it
    is returned, whatever became of it); None when none runs or ran."""
    if _background[0] is not None:
        return _background[0]
    if kernels_loaded() or not kernels_available() or kernels_cached():
        return None
    try:
        _background[0] = BackgroundCompile()
    except OSError:  # no child process here: the kernels load (and compile) when a job buys them
        return None
    return _background[0]


def buy_kernels() -> ModuleType | None:
    """The kernels for a job that has found they pay: loaded now from numba's cache (also once
    this process's background compile is done); not in it, None while a child process compiles
    them (:func:`compile_in_background`, one per process; a failed one is not retried) and the
    job goes on in the reference; where no child process can start, compiled here."""
    if kernels_cached() or compile_in_background() is None:
        return load_kernels()
    return None


def load_kernels_if_compiled() -> ModuleType | None:
    """The kernels, loaded into this process once this process's background compile has filled
    the cache (a load of half a second); None while it runs, where it failed, or if none ran."""
    if kernels_loaded():
        return sys.modules[_MODULE]
    job = _background[0]
    if job is None or job.state() != "done":
        return None
    return load_kernels()
