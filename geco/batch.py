"""Explaining a batch: one seed per row, rows in chunks, local processes or a Dask cluster.

What ``Explainer.explain_many`` runs. The contract, whatever ``n_jobs`` or backend:

* Seeds: row ``i`` (its position in ``X``) is explained with ``row_seeds(random_state, n)[i]``,
  that is ``numpy.random.SeedSequence(random_state).spawn(n)[i]`` - the same as
  ``SeedSequence(random_state, spawn_key=(i,))``, so a row's seed depends on its position only,
  not on the batch size, the chunks or the worker that runs it. ``explain(X.iloc[[i]],
  random_state=row_seeds(random_state, len(X))[i])`` gives the same explanation.
* Order: results come back in the order of ``X``'s rows.
* Failures: a row that raises (bad values, a model error, a worker that died) yields a failed
  :class:`Explanation` - ``success`` False, ``reason`` saying what went wrong, ``stats["error"]``
  the exception - and the rest of the batch goes on.

Backends. ``"loky"`` (``n_jobs > 1``): a pool of local worker processes; the pickled Explainer
(model, data, domains, the compiled kernels' object code) is sent once per worker, when it
starts, and tasks carry only a chunk of rows and their seeds. The pool starts only when it pays:
the first rows run here and are timed, and the rest go to the workers once the time they would
save exceeds their start-up (:func:`pool_pays`; measured on the last pool started in this
process) - or at once when the pool holding this Explainer is running. ``stats["batch"]`` of
each explanation says where it ran and why. The compiled search
(:mod:`geco.search.compiled`) is loaded on the same reckoning: when ``native`` is left to its
default and the rows left, at the time the rows so far took, save more than its first use (not
in numba's cache yet, it compiles in a child process while the rows go on, and is loaded when
that is done); ``stats["compiled_search"]`` of each explanation says whether it ran. ``"dask"``: a
``dask.distributed.Client`` (the user's, or a LocalCluster of ``n_jobs`` workers made for the
call); the Explainer is scattered to every worker once. A progress bar (tqdm, on stderr) appears
when a batch runs longer than a second in an interactive terminal.
"""

from __future__ import annotations

import hashlib
import math
import os
import pickle
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from geco.answers import constraints_record
from geco.result import RESERVED_COLUMNS, Explanation, drop_partial_last_line
from geco.search.compiled import (
    buy_kernels,
    compile_in_background,
    kernels_cached,
    kernels_loaded,
    kernels_pay,
    load_kernels_if_compiled,
)
from geco.seeding import seed_sequence
from plaf_grammar import SchemaError

if TYPE_CHECKING:
    from geco.explainer import Explainer

__all__ = [
    "BACKENDS",
    "DASK_WORKER_CONFIG",
    "PARALLEL_EFFICIENCY",
    "POOL_START_SECONDS",
    "CsvWriter",
    "batch_frame",
    "busy_cores_now",
    "csv_instances",
    "explanations_frame",
    "failed_explanation",
    "free_cores",
    "iter_explain",
    "local_cluster",
    "pool_pays",
    "pool_start_estimate",
    "row_seeds",
    "shutdown_pool",
]

BACKENDS: tuple[str, ...] = ("loky", "dask")
#: rows per task at most: small enough for load balance and a lively progress bar, large enough
#: that a task's overhead (a few ms) stays below 1 % of its explanations
_CHUNK_MAX = 16


# ---------------------------------------------------------------------------- seeds and rows
def row_seeds(random_state: Any, n: int) -> list[np.random.SeedSequence]:
    """The seed of each of ``n`` rows: ``SeedSequence(random_state).spawn(n)``.

    ``random_state``: None (fresh entropy, drawn once for the whole batch), an int or a sequence
    of ints, a ``SeedSequence`` (not modified) or a ``Generator`` or ``RandomState`` (one draw of
    128 bits); see :func:`geco.seeding.seed_sequence`."""
    return seed_sequence(random_state).spawn(n)


def batch_frame(explainer: Explainer, X: pd.DataFrame) -> pd.DataFrame:
    """``X`` as ``explain`` reads each of its rows: the columns the Explainer ignores (those of
    its data the model was not fitted on, e.g. an id) and those its data did not have are
    dropped, with one warning for the whole batch; a duplicate or missing column would fail
    every row, so it raises once here instead."""
    ignored = [c for c in X.columns if str(c) in set(getattr(explainer, "ignored_columns", ()))]
    if ignored:
        warnings.warn(
            f"ignoring column(s) {[str(c) for c in ignored]} of X: the model was not fitted on them",
            UserWarning, stacklevel=4,  # explain_many's caller
        )  # fmt: skip
        X = X.drop(columns=ignored)
    names = list(explainer.schema.names)
    dup = sorted({str(c) for c in X.columns[X.columns.duplicated()]})
    missing = [n for n in names if n not in X.columns]
    if dup or missing:
        parts = [f"duplicate column(s) {dup}"] if dup else []
        parts += [f"missing column(s) {missing}"] if missing else []
        raise SchemaError(f"X: {'; '.join(parts)}")
    unseen = [c for c in X.columns if c not in set(names)]
    if unseen:
        warnings.warn(
            f"ignoring column(s) {[str(c) for c in unseen]} of X: the Explainer's X did not have them",
            UserWarning, stacklevel=4,
        )  # fmt: skip
        X = X.drop(columns=unseen)
    return X


def failed_explanation(explainer: Explainer, x: pd.DataFrame, error: BaseException | str) -> Explanation:
    """The result for a row whose explanation failed: no counterfactuals, ``success`` False,
    ``reason`` and ``stats["error"]`` naming the error, ``x_probability`` NaN; ``stats`` also
    has ``outcome`` "error" and the program's text (``geco.answers.constraints_record``)."""
    error_text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    return Explanation.empty(
        x, f"explaining this row failed: {error_text}", explainer.desired_class,
        stats={"error": error_text, "engine": explainer.engine, "outcome": "error",
               **constraints_record(explainer.setting.program)},
        features=explainer.schema.decode(np.empty((0, len(explainer.schema)))),
    )  # fmt: skip


def _explain_rows(
    explainer: Explainer, rows: pd.DataFrame, seeds: Sequence[np.random.SeedSequence], overrides: dict
) -> list[Explanation]:
    out = []
    for j in range(len(rows)):
        x = rows.iloc[[j]]
        try:
            out.append(explainer.explain(x, random_state=seeds[j], **overrides))
        except Exception as exc:  # one bad row must not lose the batch
            out.append(failed_explanation(explainer, x, exc))
    return out


def _chunks(n: int, workers: int, chunk_size: int | None) -> list[range]:
    if chunk_size is None:
        chunk_size = max(1, min(_CHUNK_MAX, math.ceil(n / (4 * max(workers, 1)))))
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    return [range(s, min(s + chunk_size, n)) for s in range(0, n, chunk_size)]


def _n_workers(n_jobs: int | None) -> int:
    if n_jobs is None:
        return 1
    if not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a positive integer or negative (joblib's meaning), got {n_jobs!r}")
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)


# ---------------------------------------------------------------------------- the driver
def iter_explain(
    explainer: Explainer,
    X: pd.DataFrame,
    *,
    n_jobs: int | None = 1,
    backend: str = "loky",
    progress: bool = True,
    random_state: Any = None,
    client: Any = None,
    chunk_size: int | None = None,
    overrides: dict[str, Any] | None = None,
    positions: Sequence[int] | None = None,
) -> Iterator[Explanation]:
    """Explanations of ``X``'s rows, yielded in row order as soon as each is ready (a consumer
    such as ``geco explain --out`` streams them to disk). See the module docstring.
    ``overrides`` are ``explain``'s options (``Explainer.explain_many`` checks them first).
    ``positions``: explain only these rows of ``X`` (positions, ascending), each with the seed
    of its position in the whole of ``X`` - what resuming an interrupted batch needs."""
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    workers = _n_workers(n_jobs)
    overrides = dict(overrides or {})
    X = batch_frame(explainer, X)
    seeds = row_seeds(random_state, len(X))
    if positions is not None:
        positions = [int(i) for i in positions]
        X, seeds = X.iloc[positions], [seeds[i] for i in positions]
    bar = _progress_bar(len(X), progress)
    try:
        if backend == "loky":
            yield from _run_local(explainer, X, seeds, overrides, workers, client, chunk_size, bar)
        else:
            yield from _run_dask(explainer, X, seeds, overrides, workers, client, chunk_size, bar)
    finally:
        bar.close()


#: what starting a pool of worker processes is assumed to cost (seconds: interpreter, imports,
#: unpickling the Explainer) until one has been started in this process and measured; about what
#: a 2-core machine takes for a small tree model
POOL_START_SECONDS = 5.0
_measured_start: list[float] = []  # pool start-ups measured in this process, latest last


def pool_start_estimate() -> float:
    """Seconds a new worker pool is expected to take before its first result: the last one
    measured in this process, else :data:`POOL_START_SECONDS`."""
    return _measured_start[-1] if _measured_start else POOL_START_SECONDS


#: rows explained here before the pool is considered (the first one's warm-up timed apart)
_TIMED_ROWS = 3
#: the share of a worker's speed a pool delivers (the workers share caches and memory bandwidth,
#: and results travel back through pipes): what a pool of two on two cores measured
PARALLEL_EFFICIENCY = 0.75


def pool_pays(
    rows_left: int, seconds_per_row: float, workers: int, start_seconds: float, cores: int | None = None
) -> bool:
    """Whether ``workers`` processes would finish ``rows_left`` rows sooner than this one: the
    time they save exceeds what starting them costs. They run at most ``cores`` at a time
    (default: :func:`free_cores`), each at :data:`PARALLEL_EFFICIENCY` of this process's speed."""
    cores = cores if cores is not None else free_cores()
    speedup = min(workers, cores) * PARALLEL_EFFICIENCY
    saving = rows_left * seconds_per_row * (1.0 - 1.0 / speedup) if speedup > 1 else 0.0
    return saving > start_seconds


def free_cores() -> int:
    """The cores this batch may count on: the machine's, less those other processes keep busy;
    at least 1. Busy is the lower of the last minute's load average (this process's own share
    left out) and what the CPUs did over the last tenth of a second (:func:`busy_cores_now`),
    so that a job that has just ended, which the load average remembers for a minute, does not
    keep the workers from starting."""
    cores = os.cpu_count() or 1
    try:
        busy_elsewhere = max(0.0, os.getloadavg()[0] - 1.0)
    except (AttributeError, OSError):  # no load average (Windows)
        busy_elsewhere = 0.0
    now = busy_cores_now()
    if now is not None:
        busy_elsewhere = min(busy_elsewhere, now)
    return max(1, min(cores, round(cores - busy_elsewhere)))


def busy_cores_now(window: float = 0.1) -> float | None:
    """Cores other processes kept busy over the next ``window`` seconds (this process's own
    CPU time left out), read from ``/proc/stat``; None where there is no such file."""

    def ticks() -> tuple[int, int] | None:
        try:
            with open("/proc/stat", encoding="ascii") as fh:
                fields = [int(v) for v in fh.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        if len(fields) < 4:
            return None
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        return sum(fields[:8]), idle

    first, own0, t0 = ticks(), time.process_time(), time.perf_counter()
    if first is None:
        return None
    time.sleep(window)
    second, own1, t1 = ticks(), time.process_time(), time.perf_counter()
    if second is None or second[0] <= first[0]:
        return None
    total, idle = second[0] - first[0], second[1] - first[1]
    busy = (total - idle) / total * (os.cpu_count() or 1)
    return max(0.0, busy - (own1 - own0) / max(t1 - t0, 1e-9))


class _RowTimes:
    """Seconds per row of the rows explained here, the first apart (it carries the warm-up);
    until a second row is timed, the first's."""

    def __init__(self) -> None:
        self.first, self.rest, self.count = 0.0, 0.0, 0

    def add(self, seconds: float) -> None:
        if self.count == 0:
            self.first = seconds
        else:
            self.rest += seconds
        self.count += 1

    @property
    def per_row(self) -> float:
        if self.count == 0:
            return float("nan")
        return self.rest / (self.count - 1) if self.count > 1 else self.first


def _load_kernels_if_they_pay(overrides: dict, rows_left: int, per_row: float) -> None:
    """Load the compiled search into this process when the batch leaves the choice to the
    default (``native`` None: then the next rows run it) and ``rows_left`` rows at ``per_row``
    seconds pay for its first use (:func:`geco.search.compiled.kernels_pay`). Not in numba's
    cache yet, the kernels are compiled in a child process while the rows go on in the numpy
    search, and loaded once it is done."""
    if overrides.get("native") is not None or kernels_loaded() or load_kernels_if_compiled() is not None:
        return
    if kernels_pay(rows_left, per_row):
        buy_kernels()


def _run_local(explainer, X, seeds, overrides, workers, client, chunk_size, bar):
    """``backend="loky"``: rows here, one at a time, while a pool of ``workers`` processes would
    not pay for its start-up (timed on the rows done so far); the rest on the pool once it does,
    or at once when the pool holding this Explainer is already running. ``stats["batch"]`` of
    each explanation records where it ran and why."""
    if client is not None:
        raise ValueError("client is for backend='dask'")
    n = len(X)
    if workers == 1:
        times = _RowTimes()
        for i in range(n):
            t = time.perf_counter()
            yield from _explain_rows(explainer, X.iloc[[i]], seeds[i : i + 1], overrides)
            times.add(time.perf_counter() - t)
            if (i + 1) % _TIMED_ROWS == 0:
                _load_kernels_if_they_pay(overrides, n - i - 1, times.per_row)
            bar.update(1)
        return
    warm = _pool_is_warm(workers, explainer)
    start = 0.0 if warm else pool_start_estimate()
    # the machine's cores until the pool would pay on all of them: only then is it worth the
    # tenth of a second free_cores() takes to see how many other processes leave free
    cores, measured = os.cpu_count() or 1, False
    i, times = 0, _RowTimes()
    per_row = float("nan")
    while i < n and not warm:
        if i >= _TIMED_ROWS and pool_pays(n - i, per_row, workers, start, cores):
            if not measured:
                cores, measured = free_cores(), True
            if pool_pays(n - i, per_row, workers, start, cores):
                break
        t = time.perf_counter()
        (e,) = _explain_rows(explainer, X.iloc[[i]], seeds[i : i + 1], overrides)
        times.add(time.perf_counter() - t)
        per_row = times.per_row
        if (i + 1) % _TIMED_ROWS == 0:
            _load_kernels_if_they_pay(overrides, n - i - 1, per_row)
        e.stats["batch"] = {
            "worker_pool": False,
            "why": f"here: {workers} workers on {cores} {'free ' if measured else ''}core(s) would not save their start-up "
            f"(~{start:.1f} s) on the {n - i - 1} row(s) left at ~{per_row:.3f} s per row",
        }
        yield e
        bar.update(1)
        i += 1
    if i == n:
        return
    why = (
        f"{workers} workers: their pool was already running" if warm else
        f"{workers} workers: ~{per_row:.3f} s per row (timed on {i} row(s) here) x {n - i} row(s) "
        f"left on {cores} free core(s) saves more than their start-up (~{start:.1f} s)"
    )  # fmt: skip
    if not warm and overrides.get("native") is None and kernels_pay((n - i) / min(workers, cores), per_row):
        if kernels_cached():
            overrides = {**overrides, "native": True}  # each worker loads the compiled search once
        else:  # compiled once, here in a child, not in every worker: they load it from the cache
            compile_in_background()  # once it is filled, as their own searches earn it
    for e in _run_loky(explainer, X.iloc[i:], seeds[i:], overrides, workers, chunk_size, bar, warm):
        e.stats["batch"] = {"worker_pool": True, "why": why}
        yield e


def _in_order(
    explainer: Explainer,
    X: pd.DataFrame,
    chunks: list[range],
    completed: Iterator[tuple[int, list[Explanation] | BaseException]],
    bar: Any,
) -> Iterator[Explanation]:
    """Reorder chunk results (arriving in any order) into row order; a chunk that raised gives
    failed explanations for its rows."""
    done: dict[int, list[Explanation]] = {}
    next_chunk = 0
    for c, result in completed:
        rows = chunks[c]
        if isinstance(result, BaseException):
            reason = f"the worker failed ({type(result).__name__}: {result})"
            result = [failed_explanation(explainer, X.iloc[[i]], reason) for i in rows]
        done[c] = result
        bar.update(len(rows))
        while next_chunk in done:
            yield from done.pop(next_chunk)
            next_chunk += 1
    if next_chunk != len(chunks):  # pragma: no cover - every chunk reports, or raises
        raise RuntimeError(f"{len(chunks) - next_chunk} chunk(s) of the batch never reported")


# ---------------------------------------------------------------------------- loky
_WORKER_EXPLAINERS: dict[str, Any] = {}  # in a worker: payload digest -> Explainer
_WORKER_INFO: dict[str, float] = {}


def _install(token: str, payload: bytes, cache_settings: dict) -> None:
    """Worker initializer: unpickle the Explainer once per worker process."""
    import codegen

    if cache_settings:
        codegen.configure_cache(**cache_settings)
    t0 = time.perf_counter()
    _WORKER_EXPLAINERS.clear()
    _WORKER_EXPLAINERS[token] = pickle.loads(payload)
    _WORKER_INFO.update(
        unpickle_seconds=time.perf_counter() - t0,
        payload_bytes=len(payload),
        startup_cpu_seconds=time.process_time(),  # imports and unpickling: before any row
    )


def _loky_chunk(token: str, rows: pd.DataFrame, seeds: list, overrides: dict) -> list[Explanation]:
    explainer = _WORKER_EXPLAINERS.get(token)
    if explainer is None:  # pragma: no cover - the initializer runs before any task
        raise RuntimeError("this worker has no explainer (its initializer did not run)")
    out = _explain_rows(explainer, rows, seeds, overrides)
    _tag_worker(out)
    return out


def _tag_worker(explanations: list[Explanation]) -> None:
    """``stats["worker"]``: the process and its compile/load times so far (what a batch's
    compile share is measured from)."""
    import codegen

    info = codegen.compile_statistics()
    worker = {
        "pid": os.getpid(),
        "compile_seconds": info["compile_seconds"],
        "compiles": info["compiles"],
        "load_seconds": info["load_seconds"],
        "cpu_seconds": time.process_time(),  # the whole process: imports, unpickling, threads
        **_WORKER_INFO,
    }
    for e in explanations:
        e.stats["worker"] = dict(worker)


_pool_lock = threading.Lock()
_pool: tuple[tuple, Any] | None = None
_pool_holds: list[Any] = []  # a weak reference to the Explainer the pool's workers hold


def _pool_is_warm(workers: int, explainer: Explainer) -> bool:
    """Whether the kept pool has ``workers`` live workers holding this very Explainer."""
    with _pool_lock:
        if _pool is None or not _pool_holds or _pool_holds[0]() is not explainer:
            return False
        key, executor = _pool
        return key[0] == workers and not executor._flags.broken and not executor._flags.shutdown


def _local_pool(workers: int, token: str, payload: bytes, explainer: Explainer) -> Any:
    """A loky process pool whose workers hold this Explainer; kept for the next call with the
    same Explainer and worker count (idle workers exit after 5 minutes)."""
    global _pool
    from joblib.externals.loky import ProcessPoolExecutor

    import codegen

    settings = codegen.cache_settings()
    key = (workers, token, repr(settings))
    with _pool_lock:
        if _pool is not None:
            old_key, old = _pool
            if old_key == key and not old._flags.broken and not old._flags.shutdown:
                return old
            old.shutdown(wait=True)
            _pool = None
        threads = str(max(1, (os.cpu_count() or 1) // workers))
        executor = ProcessPoolExecutor(
            max_workers=workers,
            timeout=300,
            initializer=_install,
            initargs=(token, payload, settings),
            env={v: threads for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")},
        )
        _pool = (key, executor)
        _pool_holds[:] = [weakref.ref(explainer)]
        return executor


def shutdown_pool(kill: bool = False) -> None:
    """Stop the local worker pool kept between calls (its workers also exit when idle for 5
    minutes); ``kill``: end the workers' running tasks too."""
    global _pool
    with _pool_lock:
        if _pool is not None:
            _pool[1].shutdown(wait=True, kill_workers=kill)
            _pool = None


def explainer_payload(explainer: Explainer) -> bytes:
    """The pickled Explainer sent to each worker (cloudpickle: a callable model travels too)."""
    try:
        import cloudpickle  # a dependency of joblib >= 1.5
    except ImportError:  # pragma: no cover - older joblib vendors it
        from joblib.externals import cloudpickle

    return cloudpickle.dumps(explainer, protocol=pickle.HIGHEST_PROTOCOL)


def _run_loky(explainer, X, seeds, overrides, workers, chunk_size, bar, warm):
    from concurrent.futures import FIRST_COMPLETED, wait

    t_start = time.perf_counter()  # the start-up measured: pickling, workers, unpickling
    payload = explainer_payload(explainer)
    token = hashlib.sha256(payload).hexdigest()
    chunks = _chunks(len(X), workers, chunk_size)
    executor = _local_pool(workers, token, payload, explainer)
    futures = {
        executor.submit(_loky_chunk, token, X.iloc[list(c)], seeds[c.start : c.stop], overrides): k
        for k, c in enumerate(chunks)
    }

    def completed():
        pending = set(futures)
        first = True
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                exc = f.exception()
                result = exc if exc is not None else f.result()
                if first and not warm and not isinstance(result, BaseException):
                    busy = sum(e.stats.get("seconds_total", 0.0) for e in result)
                    _measured_start.append(max(0.0, time.perf_counter() - t_start - busy))
                first = False
                yield futures[f], result

    try:
        yield from _in_order(explainer, X, chunks, completed(), bar)
    finally:
        for f in futures:
            f.cancel()  # a consumer that stops early (| head, Ctrl-C) leaves nothing queued


# ---------------------------------------------------------------------------- dask
def _dask_chunk(explainer: Any, rows: pd.DataFrame, seeds: list, overrides: dict) -> list[Explanation]:
    out = _explain_rows(explainer, rows, seeds, overrides)
    _tag_worker(out)
    return out


#: Dask settings of the workers :func:`local_cluster` starts. Dask's defaults cost an explaining
#: worker about half again the CPU of a plain process: its nanny sets ``MALLOC_TRIM_THRESHOLD_``,
#: which turns off glibc's adaptive mmap threshold, so every medium-sized numpy temporary is
#: mapped and faulted in afresh (Adult RF-500: 1M page faults and 17 % more CPU per 150
#: explanations), and its statistical profiler samples every thread's stack every 10 ms. A user's
#: own cluster gets the same relief from these settings (or ``dask.config``) at its start.
DASK_WORKER_CONFIG: dict[str, Any] = {
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    "distributed.worker.profile.enabled": False,
}


def local_cluster(n_workers: int) -> Any:
    """A ``dask.distributed.LocalCluster`` of ``n_workers`` single-threaded worker processes on
    loopback, started with :data:`DASK_WORKER_CONFIG` (needs the ``dask`` extra)."""
    import dask
    from distributed import LocalCluster

    with dask.config.set(DASK_WORKER_CONFIG):
        return LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None,
        )  # fmt: skip


def _run_dask(explainer, X, seeds, overrides, workers, client, chunk_size, bar):
    try:
        from distributed import Client, as_completed
    except ImportError as exc:
        raise ImportError(
            "backend='dask' needs dask.distributed: pip install 'geco-cf[dask]'"
        ) from exc
    own: list[Callable[[], None]] = []
    if client is None:
        cluster = local_cluster(workers)
        client = Client(cluster)
        own += [client.close, cluster.close]
    try:
        slots = sum(client.nthreads().values()) or workers
        chunks = _chunks(len(X), slots, chunk_size)
        remote = client.scatter(explainer, broadcast=True, hash=False)
        futures = {
            client.submit(
                _dask_chunk, remote, X.iloc[list(c)], seeds[c.start : c.stop], overrides, pure=False
            ): k
            for k, c in enumerate(chunks)
        }

        def completed():
            for f in as_completed(futures):
                exc = f.exception()
                yield futures[f], exc if exc is not None else f.result()

        try:
            yield from _in_order(explainer, X, chunks, completed(), bar)
        finally:
            client.cancel(list(futures))
    finally:
        for close in own:
            close()


# ---------------------------------------------------------------------------- output
def _progress_bar(total: int, progress: bool) -> Any:
    if progress:
        try:
            from tqdm.auto import tqdm
        except ImportError:  # pragma: no cover - tqdm is a dependency
            tqdm = None
        if tqdm is not None:
            # disable=None: off when stderr is not a terminal; delay: only batches that take a while
            return tqdm(total=total, unit="row", desc="explaining", file=sys.stderr, disable=None, delay=1.0)
    return _NoBar()


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def explanations_frame(explanations: Sequence[Explanation]) -> pd.DataFrame:
    """One tidy table: a row per counterfactual with ``rank`` (1 is the best: the one printed as
    #1, as ``Explanation.changes()`` and the report number them), ``instance`` (the row label in
    ``X``), ``success``, the features, ``probability``, ``distance``, ``n_changed``,
    ``counterfactual``, ``x_probability`` and ``reason``. An instance without counterfactuals
    (already desired, none found, failed) keeps one row with ``rank`` and the features empty."""
    parts = []
    for e in explanations:
        cf = e.counterfactuals.reset_index(drop=True)
        rank = pd.array(np.arange(1, len(cf) + 1) if len(cf) else [pd.NA], dtype="Int64")
        if not len(cf):
            cf = cf.reindex(range(1))  # one row of missing values, the columns' dtypes kept
        cf.insert(0, "success", e.success)
        cf.insert(0, "rank", rank)
        label = e.x.index[0] if len(e.x.index) else None
        cf.insert(0, "instance", [label] * len(cf))  # a list: a MultiIndex row's label is one tuple
        cf["x_probability"] = e.x_probability
        cf["reason"] = e.reason
        parts.append(cf)
    if not parts:
        return pd.DataFrame(columns=list(RESERVED_COLUMNS))
    frame = pd.concat(parts, ignore_index=True)
    frame["counterfactual"] = frame["counterfactual"].eq(True)
    shown = next((e for e in explanations if len(e.counterfactuals)), explanations[0])
    for c, dtype in shown.counterfactuals.dtypes.items():  # the answers' own dtypes
        if c in frame.columns and frame[c].dtype != dtype:
            frame[c] = frame[c].astype(_with_missing(dtype))
    return frame


def _with_missing(dtype: Any) -> Any:
    """A column's dtype where a failed explanation's row leaves a value missing: integers and
    bools as pandas' nullable ones (``uint8`` as ``UInt8``, not floats or objects), others as
    they are (a float holds NaN, a string or categorical dtype its own missing value)."""
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        bits = dtype.itemsize * 8
        return pd.api.types.pandas_dtype(f"UInt{bits}" if dtype.kind == "u" else f"Int{bits}")
    if isinstance(dtype, np.dtype) and dtype.kind == "b":
        return pd.BooleanDtype()
    return dtype


class CsvWriter:
    """A CSV file of :func:`explanations_frame` rows written one explanation at a time, each
    flushed as it is written (the header once, before the first). ``append``: add to the rows an
    existing file holds (an empty or missing file gets the header)."""

    def __init__(self, path: str | os.PathLike[str], *, append: bool = False) -> None:
        has_rows = append and os.path.isfile(path) and os.path.getsize(path) > 0
        self._fh = open(path, "a" if append else "w", encoding="utf-8", newline="")  # noqa: SIM115
        self._header_due = not has_rows
        self.written = 0

    def write(self, explanation: Explanation) -> None:
        text = explanations_frame([explanation]).to_csv(index=False, header=self._header_due)
        self._fh.write(text)  # one write per explanation: an interruption never splits one
        self._fh.flush()
        self._header_due = False
        self.written += 1

    def close(self) -> None:
        self._fh.close()


def csv_instances(path: str | os.PathLike[str]) -> list[Any]:
    """The instances (row labels) a CSV file of :func:`explanations_frame` rows holds, in file
    order and each once, for resuming the batch that writes it. A last line cut short is removed
    from the file. Raises ValueError when the file has no ``instance`` column."""
    drop_partial_last_line(Path(path))
    if os.path.getsize(path) == 0:
        return []
    head = pd.read_csv(path, nrows=0)
    if "instance" not in head.columns:
        raise ValueError(f"{path}: no 'instance' column (not a file geco explain --out wrote)")
    return list(dict.fromkeys(pd.read_csv(path, usecols=["instance"])["instance"].tolist()))
