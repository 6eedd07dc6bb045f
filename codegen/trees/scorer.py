"""Tree-model scorers for the search: a tier per Δ, chosen by a cost model fed with measured times.

Tiers, all bit-identical to ``predict_proba`` (same compares, same ordered sums, sklearn's own
link function), so the search takes the same path whichever tier scored a block:

* full kernel: the whole folded forest on materialised rows, for blocks where every feature is
  free: the branch-free walker (``@walk_rows``: 32 rows per tree in lockstep, vector gathers, no
  branch per node) or the branchy walk (:mod:`codegen.trees.kernel`), whichever has measured
  cheaper per row for the forest on this machine
  (:meth:`codegen.trees.native_partial.NativePartial.full_rows`), the branchy walks for calls of
  a few rows;
* x-walk: the whole forest walked with x's bound steps, no setup per Δ; all cold blocks of a
  generation in one call - their full rows by the kernel measured cheapest for rows made from x
  (:meth:`codegen.trees.native_partial.NativePartial.near_rows`: the two above or the x-walk on
  folded masks, ``@xwalk_folded_rows``), or (a few rows) one walk over the union of their Δ
  (:class:`codegen.trees.plan.XWalk`);
* plan: native partial evaluation per (x, Δ) into a :class:`codegen.trees.plan.Plan` (constant
  trees, QuickScorer trees, residual walks), built once per Δ;
* jit: the residual emitted as IR and compiled (:mod:`codegen.trees.jit`);
* numpy: partial evaluation and the walk in numpy (:mod:`codegen.trees.partial`), no LLVM.

``engine="auto"`` per (x, Δ), every constant measured online: a cold Δ (while its rows times the
x-walk-vs-plan cost gap stay below the measured cost of building a plan of its size) is x-walked;
every other Δ gets its plan once; x-walk and plan blocks of a generation each go to one native
call. A hot Δ (its plan has spent twice the predicted compile time) is compiled on a background thread and switches to
the compiled function once ready. ``engine="jit"`` is the same policy - compile where it pays, so
never slower than "auto" (compiling every (x, Δ) costs 100x more than it saves within an
explanation); ``engine="numpy"`` never touches LLVM. Why this design: the measurements in
``benchmarks/README.md`` (section "bench_trees.py").

A generation's full rows grouped by Δ (:meth:`BoundTreeScorer.score_delta_rows`) go either
through the tiers, block by block, or to the whole forest walked from x's binding in one call,
whichever has measured cheaper per row for this forest (an exact forest's numbers are the same
either way): the tiers win on random forests, where a Δ's plan skips most of the trees, and lose
on boosted ones and on wide tables, where the per-Δ routing costs more than the walk it saves.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future
from itertools import chain
from typing import Any

import numpy as np

from codegen.compiled import CompiledScorer
from codegen.errors import UnsupportedModel
from codegen.llvm import binding
from codegen.pipeline import ModelInput
from codegen.protocol import (
    COMPILED_ENGINES,
    Allowed,
    Block,
    DeltaMasks,
    checked_delta,
    checked_deltas,
    checked_engine,
    checked_instance,
)
from codegen.trees.bound import upper_bound as forest_upper_bound
from codegen.trees.emit import emit_residual
from codegen.trees.fold import Forest, fold
from codegen.trees.jit import CompiledResidual, compile_residual, jit_opt_level
from codegen.trees.kernel import (
    KernelArrays,
    kernel_arrays_forest,
    run_kernel,
    tree_functions,
    trees_module,
)
from codegen.trees.kernel_choice import KernelChoice, clipped
from codegen.trees.native_bound import NativeLeafRanges
from codegen.trees.native_partial import (
    EXACT_MASK_WIDTH,
    MAX_COLUMNS,
    WALK_MIN_ROWS,
    BoundX,
    NativePartial,
)
from codegen.trees.partial import Residual, bind_x, partial_evaluate
from codegen.trees.plan import BlockRunner, Plan, positions_within
from codegen.trees.reader import read_trees
from codegen.trees.threads import LazyThread

__all__ = ["BoundTreeScorer", "TreeScorer", "tree_scorer"]

#: plan costs are tracked per |Δ| up to this size (larger Δ share the last estimate)
_SIZES = 8


#: a plan serves the rows of a Δ this many features narrower at most (its rows cost more a row
#: than the narrower Δ's own plan would; building that plan costs more than the difference)
SERVE_WIDER = 1


def _mask(delta: tuple[int, ...]) -> int:
    """Δ as a bit mask (feature j: bit j)."""
    m = 0
    for j in delta:
        m |= 1 << j
    return m


def _wider(by_size: dict[int, list[tuple[int, Any]]], delta: tuple[int, ...]) -> Any:
    """The first value of ``by_size`` (Δ size -> (Δ as a bit mask, value)) whose Δ holds
    ``delta`` and at most :data:`SERVE_WIDER` more features (the fewest first), else None."""
    want = _mask(delta)
    for extra in range(1, SERVE_WIDER + 1):
        for mask, value in by_size.get(len(delta) + extra, ()):
            if mask & want == want:
                return value
    return None


def _size_slot(k: int) -> int:
    """The slot of the plan cost estimates (``TreeScorer.c_plan``) for a Δ of ``k`` features."""
    return min(max(k, 1), _SIZES) - 1


#: LLVM compiles of hot Δ
_COMPILER = LazyThread("geco-llvm")


class _Rate:
    """Seconds per unit (row, plan, split), estimated from measured calls: exponentially decayed
    sums of seconds and of units, seeded with a prior worth ``prior_units``. Weighting by units
    keeps a small call's fixed overhead from swinging it, and a call counts at most
    :data:`codegen.trees.kernel_choice.OUTLIER` times the running value (a pause inside it)."""

    def __init__(self, per_unit: float, prior_units: float, decay: float = 0.95):
        self.seconds = per_unit * prior_units
        self.units = prior_units
        self.decay = decay

    @property
    def value(self) -> float:
        return self.seconds / self.units

    def add(self, seconds: float, units: float) -> None:
        seconds = clipped(seconds, units, self.value)
        self.seconds = self.decay * self.seconds + seconds
        self.units = self.decay * self.units + units


class TreeScorer(CompiledScorer):
    """A :class:`codegen.ModelScorer` for a folded tree model (bare or in a pipeline).

    ``stats`` (a dict, cumulative over every bound instance) reports blocks and rows per tier
    (``whole``: calls and rows of :meth:`BoundTreeScorer.score_delta_rows` given to the whole forest),
    plans built and seconds spent building them (partial evaluation), seconds in the plan and
    full kernels, compiles and cache hits/misses."""

    #: every tier is bit-identical to predict_proba (or predict), so the Explainer may report its
    #: numbers; all but a forest's P of a set of classes (``Forest.tolerance``)
    exact = True

    def __init__(self, forest: Forest, engine: str = "auto", *, max_residuals: int = 256):
        checked_engine(engine, COMPILED_ENGINES)
        if engine != "numpy" and len(forest.schema) > MAX_COLUMNS:
            raise UnsupportedModel(f"{len(forest.schema)} columns: the compiled tree kernels read at most {MAX_COLUMNS} "
                                   "(engine='numpy' reads any)")  # fmt: skip
        self.forest = forest
        self.exact = forest.tolerance == 0.0
        self.engine = engine
        self.name = f"trees-{engine}"
        self.max_residuals = max_residuals
        self.stats: dict[str, Any] = {
            "blocks_full_kernel": 0, "rows_full_kernel": 0, "blocks_xwalk": 0, "rows_xwalk": 0,
            "blocks_plan": 0, "rows_plan": 0, "blocks_jit": 0, "rows_jit": 0, "blocks_numpy": 0, "rows_numpy": 0,
            "blocks_whole": 0, "rows_whole": 0,
            "plans": 0, "plan_seconds": 0.0, "plan_kernel_seconds": 0.0, "xwalk_seconds": 0.0,
            "full_kernel_seconds": 0.0, "bind_seconds": 0.0,
            "partial_evaluations": 0, "pe_seconds": 0.0,
            "compiles": 0, "compile_seconds": 0.0, "cache_hits": 0, "cache_misses": 0,
            "background_compiles": 0,
        }  # fmt: skip
        self._lock = threading.Lock()
        self._pack()
        if engine != "numpy":
            # compile the once-per-process kernels now, so their compile time never enters
            # the measured costs below (it would make a plan look 1000x dearer)
            tree_functions()
        # cost model (seconds); priors from benchmarks/README.md, then measured
        T = forest.n_trees
        self.c_xwalk = _Rate(4e-8 * T, 500)  # per row, ~20 µs at 500 trees
        self.c_row = _Rate(4e-9 * T, 500)  # per row of a plan, ~2 µs
        self.c_plan = [_Rate(2e-7 * T * k, 2) for k in range(1, _SIZES + 1)]  # per plan, by |Δ|
        self.c_compile_base = 0.05
        self.c_compile_split = _Rate(3e-4, 100)  # per live split
        # full rows grouped by Δ: through the tiers, or the whole forest from x's binding, chosen
        # per bound instance and explored or rechecked for all of an instance's calls (a plan
        # built in one generation pays in the next: a call alone would misprice the tiers; and an
        # instance's first call, its initial population of ~110 rows on Adult, costs the whole
        # forest 3 us a row against 1.6 over the instance: priced on first calls, it lost to the
        # tiers it beats by 5-15 % an explanation on RF-100, XGBoost 120x4 and LightGBM 200 at
        # k = 5), each route on three instances (a route's first instance also pays for the
        # choice of its kernels); inexact forests: the tiers only, so that a seed's answer never
        # depends on a timing (settled at 2x, not the kernels' 1.25x: the tiers' first calls carry
        # the plans that later calls reuse, so their early cost a row overstates theirs - Credit
        # RF-100 settled them at 2.9 us a row against the 1.2 us they cost over an explanation)
        self.delta_rows_route = KernelChoice(("tiers", "whole") if self.exact else ("tiers",), settle_ratio=2.0,
                                             explore_picks=3)  # fmt: skip

    def upper_bound(self, x: np.ndarray, allowed: Allowed) -> float:
        """The largest reachable leaves summed through the link (:mod:`codegen.trees.bound`),
        the leaves found by the compiled walk (:mod:`codegen.trees.native_bound`) unless the
        engine is "numpy"."""
        if self.full is None:
            return forest_upper_bound(self.forest, x, allowed)
        return forest_upper_bound(self.forest, x, allowed, self._leaf_ranges)

    def bind(self, x: np.ndarray) -> BoundTreeScorer:
        self.load_kernels()
        return BoundTreeScorer(self, checked_instance(x, len(self.forest.schema)))

    def error_bound(self, rows: np.ndarray) -> np.ndarray:
        """``Forest.tolerance`` per row: 0 where every tier is bit-exact."""
        return np.full(len(rows), self.forest.tolerance)

    def load_kernels(self) -> None:
        """The once-per-process kernels, compiled (or loaded) now: after unpickling this runs at
        the first ``bind``, outside any measured cost."""
        if self.engine != "numpy":
            tree_functions()

    def __getstate__(self) -> dict[str, Any]:
        """The forest and the measured costs; the kernel arrays and the native evaluator's
        scratch are rebuilt where it is unpickled, the kernels loaded there at the first ``bind``
        (from the object code carried along, when this process holds it)."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("_lock", "full", "native", "_leaf_ranges")}
        state["_objects"] = binding.object_codes([trees_module()]) if self.engine != "numpy" else {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        binding.preload_objects(state.pop("_objects", {}))
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._pack()

    def _pack(self) -> None:
        """The forest packed for the compiled kernels (none for the "numpy" engine), its bound
        x-walks and its leaf ranges, whose subtree extents (8 ms at 500 deep trees) every found
        answer's bound reads, and the leaves' magnitudes a rising margin's bound reads: built
        with the scorer and where it is unpickled, never in an explanation."""
        if self.forest.rises_with_margin:
            _ = self.forest.leaf_magnitudes  # cached on the forest
        self.full: KernelArrays | None = None
        self.native: NativePartial | None = None
        self._leaf_ranges: NativeLeafRanges | None = None
        if self.engine != "numpy":
            self.full = kernel_arrays_forest(self.forest)
            self.native = NativePartial(self.forest, self.full)
            self._leaf_ranges = NativeLeafRanges(self.forest, self.full)

    def ir(self, x: np.ndarray, delta: tuple[int, ...], optimized: bool = False) -> str:
        """The specialised module for (x, Δ) that the jit tier compiles; ``optimized=True``: after
        LLVM's pipeline at the level the JIT would use."""
        x = np.asarray(x, dtype=np.float64).reshape(-1)
        res = partial_evaluate(self.forest, bind_x(self.forest, x), tuple(delta))
        ir = emit_residual(res, x=x)
        if optimized:
            return binding.optimize_ir(ir, max(1, jit_opt_level(res.n_splits)))
        return ir

    def plan_cost(self, k: int) -> _Rate:
        """The running cost estimate of building a plan for a Δ of ``k`` features."""
        return self.c_plan[_size_slot(k)]

    def _count(self, tier: str, n: int) -> None:
        self.stats[f"blocks_{tier}"] += 1
        self.stats[f"rows_{tier}"] += n

    def compile(self, res: Residual) -> CompiledResidual:
        """Emit and compile the specialised module for ``res`` (thread-safe)."""
        compiled, cached, dt = compile_residual(res)
        with self._lock:
            self.stats["compiles"] += 1
            self.stats["cache_hits" if cached else "cache_misses"] += 1
            if not cached:
                self.stats["compile_seconds"] += dt
                if jit_opt_level(res.n_splits) == 1 and res.n_splits > 0:
                    self.c_compile_split.add(max(dt - self.c_compile_base, 0.0), res.n_splits)
        return compiled


class _Routes:
    """One generation's blocks by tier: (block, Δ, columns) to walk from x, to score with the
    whole forest, (block, state, columns) to score by plan, and the Δ whose plans are still to
    build."""

    __slots__ = ("full", "new", "planned", "walked")

    def __init__(self) -> None:
        self.full: list[tuple[int, tuple[int, ...], np.ndarray]] = []
        self.walked: list[tuple[int, tuple[int, ...], np.ndarray]] = []
        self.planned: list[tuple[int, _DeltaState, np.ndarray]] = []
        self.new: dict[tuple[int, ...], _DeltaState] = {}


class _DeltaState:
    """What one Δ of a bound instance has: rows seen, its residual, its own plan, or the plan of
    a Δ one feature wider that scores its rows (``serving``: the same leaves, the rows holding x
    on the extra feature), its compiled residual."""

    __slots__ = ("compiled", "future", "plan", "residual", "rows", "serving")

    def __init__(self) -> None:
        self.rows = 0
        self.residual: Residual | None = None
        self.plan: Plan | None = None
        self.serving: Plan | None = None
        self.compiled: CompiledResidual | None = None
        self.future: Future | None = None

    @property
    def scoring(self) -> Plan | None:
        """The plan that scores this Δ's rows: its own, else the one serving it."""
        return self.plan if self.plan is not None else self.serving


class BoundTreeScorer:
    """Scores Δ blocks for one instance ``x`` (see :class:`TreeScorer` for the tiers)."""

    def __init__(self, parent: TreeScorer, x: np.ndarray):
        self.parent = parent
        self.forest = parent.forest
        self.x = x
        self._xchild: np.ndarray | None = None
        self._bx: BoundX | None = None
        self._runner = BlockRunner(parent.full) if parent.full is not None else None
        self._states: OrderedDict[tuple[int, ...], _DeltaState] = OrderedDict()
        self._checked: set[tuple[int, ...]] = set()  # every Δ seen, validated once
        self._delta_rows_route: str | None = None  # picked at the first score_delta_rows
        #: the plans built, by their Δ's size: (Δ as a bit mask, plan), for the Δ one feature
        #: narrower that they can serve
        self._built: dict[int, list[tuple[int, Plan]]] = {}

    # -------------------------------------------------------------- helpers
    def residual(self, delta: tuple[int, ...]) -> Residual:
        """The numpy residual (engine "numpy"; the source of a specialised module)."""
        st = self._state(delta)
        if st.residual is None:
            t0 = time.perf_counter()
            if self._xchild is None:
                self._xchild = bind_x(self.forest, self.x)
            st.residual = partial_evaluate(self.forest, self._xchild, delta)
            if self.parent.engine == "numpy":
                self.parent.stats["partial_evaluations"] += 1
                self.parent.stats["pe_seconds"] += time.perf_counter() - t0
        return st.residual

    def bound_x(self) -> BoundX:
        """The native binding of ``x``, made at the first call (its entries fill as kernels read
        them: :class:`codegen.trees.native_partial.BoundX`)."""
        if self._bx is None:
            p = self.parent
            assert p.native is not None
            t0 = time.perf_counter()
            self._bx = p.native.bind(self.x)
            p.stats["bind_seconds"] += time.perf_counter() - t0
        return self._bx

    def plan(self, delta: tuple[int, ...]) -> Plan:
        """The plan of (x, Δ), built natively once per Δ."""
        st = self._state(delta)
        if st.plan is None:
            self._build_plans([(delta, st)])
        assert st.plan is not None
        return st.plan

    def _build_plans(self, todo: Sequence[tuple[tuple[int, ...], _DeltaState]]) -> None:
        """Build the plans of every Δ in one native pass over the trees."""
        p = self.parent
        assert p.native is not None
        bx = self.bound_x()
        deltas = [d for d, _ in todo]
        t0 = time.perf_counter()
        plans = p.native.plans(bx, deltas)
        dt = time.perf_counter() - t0
        for (delta, st), plan in zip(todo, plans):
            st.plan = plan
            self._built.setdefault(len(delta), []).append((_mask(delta), plan))
            p.plan_cost(len(delta)).add(dt / len(deltas), 1)
        s = p.stats
        s["plans"] += len(deltas)
        s["plan_seconds"] += dt
        s["partial_evaluations"] += len(deltas)
        s["pe_seconds"] += dt

    def _state(self, delta: tuple[int, ...]) -> _DeltaState:
        st = self._states.get(delta)
        if st is None:
            st = self._states[delta] = _DeltaState()
            if len(self._states) > self.parent.max_residuals:
                self._states.popitem(last=False)
        else:
            self._states.move_to_end(delta)
        return st

    def _full_rows(self, delta: tuple[int, ...], cols: np.ndarray) -> np.ndarray:
        if len(delta) == len(self.x) and delta == tuple(range(len(self.x))):
            return cols  # every feature free: the columns are the rows
        rows = np.empty((len(cols), len(self.x)))
        rows[:] = self.x
        if delta:
            rows[:, list(delta)] = cols
        return rows

    # -------------------------------------------------------------- scoring
    def score_block(self, delta: tuple[int, ...], columns: np.ndarray) -> np.ndarray:
        return self.score_blocks([(delta, columns)])[0]

    def score_blocks(self, blocks: Sequence[Block]) -> list[np.ndarray]:
        """All blocks of a generation (the search makes one such call per generation).

        x-walk blocks go to one native call, plan blocks to another, blocks with every feature
        free (and blocks a plan refused: invalid category codes) to one call of the full-forest kernel."""
        p = self.parent
        out: list[np.ndarray | None] = [None] * len(blocks)
        routes = _Routes()
        for b, (delta, columns) in enumerate(blocks):
            delta = tuple(int(d) for d in delta)
            if delta not in self._checked:
                self._checked.add(checked_delta(delta, len(self.x)))
            cols = np.ascontiguousarray(columns, dtype=np.float64).reshape(len(columns), len(delta))
            n = len(cols)
            if n == 0:
                out[b] = np.empty(0)
            elif p.engine == "numpy":
                p._count("numpy", n)
                out[b] = self.residual(delta).predict(cols)
            else:
                self._route(b, delta, cols, self._tier(delta, n), routes, out)
        self._run_routes(routes, out)
        return out  # type: ignore[return-value]

    def score_rows_near_x(self, rows: np.ndarray, columns: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """P(desired) of full rows that come in runs of ``sizes[b]`` rows, each run differing
        from x at most in the columns ``columns[b]`` marks (a generation's small Δ, merged): the
        numbers :meth:`score_blocks` gives them as one block of every feature, from one call of
        the whole forest that walks each row from x's binding over its run's columns
        (:meth:`codegen.trees.native_partial.BoundX.score_rows`) rather than comparing each of
        its cells with x."""
        rows = np.asarray(rows, dtype=np.float64)
        if rows.ndim != 2 or rows.shape[1] != len(self.x):
            raise ValueError(f"rows must have {len(self.x)} columns, got shape {rows.shape}")
        if self.parent.engine == "numpy" or len(rows) == 0:
            return self.score_blocks([(tuple(range(len(self.x))), rows)])[0]
        acc = self._whole_forest(np.ascontiguousarray(rows), (np.asarray(columns, dtype=bool), sizes))
        self.parent._count("full_kernel", len(rows))
        return self._probabilities(acc)

    def score_delta_rows(self, rows: np.ndarray, starts: np.ndarray, deltas: Sequence[tuple[int, ...]]) -> np.ndarray:
        """P(desired) of full rows held in Δ order (the rows from ``starts[i]`` on are ``x``
        outside ``deltas[i]``): the numbers :meth:`score_blocks` gives each Δ's columns. The
        rows go through the tiers (:meth:`score_delta_rows_by_tiers`) or, in one call, to the
        whole forest walked from x's binding (:meth:`codegen.trees.native_partial.BoundX.score_rows`),
        whichever has measured cheaper per row (``TreeScorer.delta_rows_route``, picked for the
        bound instance at its first call and kept for its every call, whichever route is picked,
        so that each route is priced over the same mix of calls)."""
        p = self.parent
        rows = np.asarray(rows, dtype=np.float64)
        if len(deltas) != len(starts):
            raise ValueError(f"{len(deltas)} deltas for {len(starts)} blocks")
        deltas = self._checked_deltas(deltas)  # refused before anything is scored, on any route
        if p.engine == "numpy" or p.native is None or len(rows) == 0:
            return self.score_delta_rows_by_tiers(rows, starts, list(deltas))
        if self._delta_rows_route is None:
            self._delta_rows_route = p.delta_rows_route.pick()
        route = self._delta_rows_route
        if route == "whole" and not p.native.near_prepared:  # built once, outside the route's time
            p.native.prepare_near(self.bound_x())
        t0 = time.perf_counter()
        if route == "whole":
            prob = self._probabilities(self.bound_x().score_rows(rows, from_x=True))
            dt = time.perf_counter() - t0
            p.stats["full_kernel_seconds"] += dt
            p.stats["blocks_whole"] += 1
            p.stats["rows_whole"] += len(rows)
        else:
            prob = self.score_delta_rows_by_tiers(rows, starts, list(deltas))
            dt = time.perf_counter() - t0
        p.delta_rows_route.record(route, dt, len(rows))
        return prob

    def _checked_deltas(self, deltas: Sequence[Sequence[int]]) -> Sequence[tuple[int, ...]]:
        """``deltas`` checked: Δ masks as wide as the instance (valid Δ by construction; their
        tuples are made only where the tiers read them), or a list of tuples, each checked
        (:func:`codegen.protocol.checked_deltas`) the first time this bound instance meets it."""
        if isinstance(deltas, DeltaMasks):
            if deltas.masks.shape[1] != len(self.x):
                raise ValueError(f"Δ masks of {deltas.masks.shape[1]} features, the instance has {len(self.x)}")
            return deltas
        out = [delta if type(delta) is tuple else tuple(delta) for delta in deltas]
        new = [delta for delta in out if delta not in self._checked]
        if new:
            self._checked.update(checked_deltas(new, len(self.x)))
        return out

    def score_delta_rows_by_tiers(self, rows: np.ndarray, starts: np.ndarray, deltas: Sequence[tuple[int, ...]]) -> np.ndarray:
        """:meth:`score_delta_rows` through the tiers, Δ by Δ, except that the rows of every Δ
        the x-walk serves go to the full kernel (walker or branchy walk, as measured) as one
        selection of ``rows``, and the plan blocks' cells are gathered from ``rows`` in one
        indexing pass (:meth:`_run_planned`): no per-block copies or counts (a generation holds
        hundreds of small Δ). ``deltas`` must have been checked."""
        p = self.parent
        rows = np.asarray(rows, dtype=np.float64)
        n = len(rows)
        starts = np.asarray(starts, dtype=np.intp)
        sizes = np.diff(np.append(starts, n))
        if p.engine == "numpy" or p.native is None or p.native.walker is None:
            parts = self.score_blocks([(d, rows[a : a + k][:, list(d)]) for d, a, k in zip(deltas, starts, sizes)])
            return np.concatenate([np.empty(0), *parts])
        out: list[np.ndarray | None] = [None] * len(deltas)
        routes = _Routes()
        walked = np.zeros(len(deltas), dtype=bool)
        planned: list[int] = []
        plans: list[_DeltaState] = []
        costs = self._tier_costs()
        for i, (delta, k) in enumerate(zip(deltas, sizes.tolist())):
            if k == 0:
                continue
            tier = self._tier(delta, k, costs)
            if tier == "xwalk":
                walked[i] = True
            elif tier == "plan" or tier == "new":
                st = self._states[delta]
                planned.append(i)
                plans.append(st)
                if tier == "new":
                    routes.new[delta] = st
            else:
                a = int(starts[i])
                self._route(i, delta, rows[a : a + k][:, list(delta)], tier, routes, out)
        prob = np.empty(n)
        mask = np.repeat(walked, sizes)
        m = int(mask.sum())
        # fewer rows than the walkers take: the x-walk on each row's own changed columns or the
        # branchy walk where x's binding holds those exactly, else the x-walk over the union of
        # the Δ (Credit RF-500: 2 % less CPU an explanation than the union's x-walk)
        if m >= WALK_MIN_ROWS or (m and p.full.width <= EXACT_MASK_WIDTH):
            t0 = time.perf_counter()
            bx, cold = self.bound_x(), rows[mask]
            acc = p.native.near_rows(bx, cold) if m >= WALK_MIN_ROWS else p.native.near_rows_few(bx, cold)
            dt = time.perf_counter() - t0
            p.stats["xwalk_seconds"] += dt
            p.stats["blocks_xwalk"] += int(walked.sum())
            p.stats["rows_xwalk"] += m
            p.c_xwalk.add(dt, m)
            prob[mask] = self._probabilities(acc)
        elif m:  # the x-walk over their union, as score_blocks does
            for i in np.flatnonzero(walked).tolist():
                a, k = int(starts[i]), int(sizes[i])
                routes.walked.append((i, deltas[i], rows[a : a + k][:, list(deltas[i])]))
        served = self._serve_narrower(routes.new)
        self._build_new_plans(routes)
        for delta, wide in served.items():
            self._states[delta].serving = self._states[wide].plan
        if planned:
            for i in self._run_planned(rows, starts, sizes, deltas, planned, plans, prob).tolist():
                a, k = int(starts[i]), int(sizes[i])
                routes.full.append((i, deltas[i], rows[a : a + k][:, list(deltas[i])]))
        self._run_routes(routes, out)
        for i, o in enumerate(out):
            if o is not None and len(o):
                prob[starts[i] : starts[i] + len(o)] = o
        return prob

    def _serve_narrower(self, new: dict[tuple[int, ...], _DeltaState]) -> dict[tuple[int, ...], tuple[int, ...]]:
        """Take out of ``new`` (the Δ whose plans a generation is about to build; none of them
        has a built wider plan: :meth:`_tier` looked) every Δ that the plan of a wider one of
        them will serve; returns Δ -> that wider Δ. Widest first, so a Δ serving another is
        built."""
        served: dict[tuple[int, ...], tuple[int, ...]] = {}
        if len(new) < 2:
            return served
        kept: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
        for delta in sorted(new, key=len, reverse=True):
            wide = _wider(kept, delta)
            if wide is not None:
                served[delta] = wide
                del new[delta]
            else:
                kept.setdefault(len(delta), []).append((_mask(delta), delta))
        return served

    def _run_planned(self, rows: np.ndarray, starts: np.ndarray, sizes: np.ndarray, deltas: Sequence[tuple[int, ...]],
                     planned: list[int], plans: list[_DeltaState], prob: np.ndarray) -> np.ndarray:  # fmt: skip
        """Score the Δ ``planned`` (their plans built) in one native call, their cells gathered
        from the full ``rows`` by one fancy index (each block row-major over its Δ's columns, as
        :meth:`codegen.trees.plan.BlockRunner.run` lays them out), and write their P into
        ``prob``. Returns the Δ (indices into ``deltas``) whose blocks a plan refused (invalid
        category codes): their rows are left for the full kernel."""
        p = self.parent
        assert self._runner is not None
        t0 = time.perf_counter()
        idx = np.asarray(planned, dtype=np.intp)
        first, k = starts[idx], sizes[idx]
        scoring = [st.scoring for st in plans]  # a serving plan reads its own, wider, columns
        width = np.fromiter((len(plan.delta) for plan in scoring), dtype=np.intp, count=len(planned))
        columns = np.fromiter(chain.from_iterable(plan.delta for plan in scoring), dtype=np.intp, count=int(width.sum()))
        cells = k * width
        block = np.repeat(np.arange(len(idx)), cells)
        row_in, col_in = np.divmod(positions_within(cells), width[block])
        flat = rows[first[block] + row_in, columns[(np.cumsum(width) - width)[block] + col_in]]
        jobs = np.stack([plan.job for plan in scoring])
        acc, _, bad = self._runner.run_packed(jobs, k, flat)
        dt = time.perf_counter() - t0
        p.stats["plan_kernel_seconds"] += dt
        at = np.repeat(first, k) + positions_within(k)  # each planned row's place in ``rows``
        if bad.any():  # refused blocks left their rows unset: keep the link function away from them
            good = ~np.repeat(bad, k)
            acc, at = acc[good], at[good]
        prob[at] = self._probabilities(acc)
        p.stats["blocks_plan"] += int(len(idx) - bad.sum())
        p.stats["rows_plan"] += len(at)
        if len(at):
            p.c_row.add(dt, len(at))
        return idx[bad]

    def _route(self, b: int, delta: tuple[int, ...], cols: np.ndarray, tier: Any, routes: _Routes, out: list) -> None:
        """Send block ``b`` to its tier's list in ``routes`` (a compiled residual scores it now)."""
        if tier == "full":
            routes.full.append((b, delta, cols))
        elif tier == "xwalk":
            routes.walked.append((b, delta, cols))
        elif tier == "plan" or tier == "new":
            st = self._states[delta]
            if tier == "plan" and st.plan is None:  # served by a wider plan: x on its other columns
                wide = st.serving.delta
                full = np.empty((len(cols), len(wide)))
                full[:] = self.x[list(wide)]
                full[:, [wide.index(j) for j in delta]] = cols
                cols = full
            routes.planned.append((b, st, cols))
            if tier == "new":
                routes.new[delta] = st
        else:
            self.parent._count("jit", len(cols))
            out[b] = tier(cols)

    def _build_new_plans(self, routes: _Routes) -> None:
        """Build the plans of the Δ ``routes`` holds as new (and compile the hot ones), then
        forget them as new."""
        if routes.new:
            self._build_plans(list(routes.new.items()))
            for delta, st in routes.new.items():
                self._maybe_compile(delta, st)
            routes.new.clear()

    def _run_routes(self, routes: _Routes, out: list) -> None:
        """Build the new plans, then score every routed block, tier by tier."""
        self._build_new_plans(routes)
        full = routes.full
        if routes.walked:
            full += self._run_xwalk(routes.walked, out)
        if routes.planned:
            full += self._run_jobs("plan", routes.planned, out)
        if full:
            self._run_full(full, out)

    def _tier_costs(self) -> tuple[float, float, list[float]]:
        """What :meth:`_tier` weighs, read once per call (a generation routes hundreds of Δ):
        seconds a row saves on a plan instead of the x-walk, below which a Δ's plan rows cannot
        have earned a compile, and a plan's cost by |Δ| (:meth:`TreeScorer.plan_cost`'s)."""
        p = self.parent
        # a plan's row never costs more than an x-walk's (it walks a subset of the same trees)
        gain = p.c_xwalk.value - min(p.c_row.value, 0.5 * p.c_xwalk.value)
        compile_rows = 2 * p.c_compile_base / p.c_row.value * (1 - 1e-9)  # margin: a rounding never skips one
        return gain, compile_rows, [c.value for c in p.c_plan]

    def _tier(self, delta: tuple[int, ...], n: int, costs: tuple[float, float, list[float]] | None = None):
        """"full", "xwalk", "plan", "new" (a plan to build) or a compiled function for the next
        ``n`` rows of Δ; ``costs``: :meth:`_tier_costs`, when the caller has them."""
        if len(delta) >= len(self.x):  # every feature free: nothing to specialise
            return "full"
        gain, compile_rows, plan_costs = self._tier_costs() if costs is None else costs
        st = self._state(delta)
        st.rows += n
        if st.future is not None and st.future.done():
            st.compiled, st.future = st.future.result(), None
        if st.compiled is not None:
            return st.compiled
        if st.scoring is None:
            if st.rows * gain < plan_costs[_size_slot(len(delta))]:
                return "xwalk"
            st.serving = _wider(self._built, delta)  # a built plan one feature wider
            if st.serving is None:
                return "new"
        if st.future is None and st.rows > compile_rows:  # fewer rows never pay a compile's base cost
            self._maybe_compile(delta, st)
        return "plan"

    def _maybe_compile(self, delta: tuple[int, ...], st: _DeltaState) -> None:
        """Compile (x, Δ) in the background once its plan has spent twice the predicted compile
        time (never within one explanation on Adult or Credit: ``benchmarks/README.md``)."""
        p = self.parent
        splits = st.scoring.n_splits if st.scoring is not None else 0
        compile_cost = p.c_compile_base + p.c_compile_split.value * splits
        if splits > 0 and st.rows * p.c_row.value > 2 * compile_cost:
            p.stats["background_compiles"] += 1
            f = self.forest
            xchild = self.bound_x().xchild
            st.future = _COMPILER.get().submit(lambda: p.compile(partial_evaluate(f, xchild, delta)))

    def _run_xwalk(self, blocks, out: list) -> list[tuple[int, tuple[int, ...], np.ndarray]]:
        """Score every cold block in one x-walk over the union of their Δ: each block's rows are
        ``x`` outside its own Δ, so the union's columns route them exactly, and the forest is read
        once per generation instead of once per block. Returns the blocks refused (invalid category
        codes)."""
        p = self.parent
        assert self._runner is not None and p.native is not None
        n = sum(len(c) for _, _, c in blocks)
        if p.native.walker is not None and n >= WALK_MIN_ROWS:
            return self._run_walker(blocks, n, out)
        deltas = [st_delta for _, st_delta, _ in blocks]
        union = tuple(sorted(set().union(*deltas)))
        pos = {c: k for k, c in enumerate(union)}
        cols = np.empty((n, len(union)))
        cols[:] = self.x[list(union)]
        start = 0
        for _, delta, c in blocks:
            cols[start : start + len(c), [pos[d] for d in delta]] = c
            start += len(c)
        t0 = time.perf_counter()
        acc, _, bad = self._runner.run([(p.native.xwalk(self.bound_x(), union), cols)])
        dt = time.perf_counter() - t0
        p.stats["xwalk_seconds"] += dt
        if bad[0]:
            return [(b, delta, c) for b, delta, c in blocks]
        self._scatter("xwalk", blocks, self._probabilities(acc), out)
        p.c_xwalk.add(dt, n)
        return []

    def _run_walker(self, blocks, n: int, out: list) -> list[tuple[int, tuple[int, ...], np.ndarray]]:
        """The x-walk tier by the full kernel: the blocks' full rows (x outside each block's Δ)
        in one call of the kernel measured cheapest for rows near x
        (:meth:`codegen.trees.native_partial.NativePartial.near_rows`). Same leaves as every
        other tier."""
        p = self.parent
        rows = np.empty((n, len(self.x)))
        rows[:] = self.x
        start = 0
        for _, delta, c in blocks:
            if delta:
                rows[start : start + len(c), list(delta)] = c
            start += len(c)
        t0 = time.perf_counter()
        acc = p.native.near_rows(self.bound_x(), rows)
        dt = time.perf_counter() - t0
        p.stats["xwalk_seconds"] += dt
        self._scatter("xwalk", blocks, self._probabilities(acc), out)
        p.c_xwalk.add(dt, n)
        return []

    def _probabilities(self, acc: np.ndarray) -> np.ndarray:
        """P(desired) from the kernels' accumulators (the forest's link, or the average)."""
        f = self.forest
        return acc[:, 0] if f.divisor is not None else f.finish(acc)

    def _scatter(self, tier: str, blocks, probs: np.ndarray, out: list) -> None:
        """Hand consecutive slices of ``probs`` to ``blocks`` (in order) and count them."""
        start = 0
        for b, _, c in blocks:
            out[b] = probs[start : start + len(c)]
            start += len(c)
            self.parent._count(tier, len(c))

    def _run_jobs(self, tier: str, blocks, out: list) -> list[tuple[int, tuple[int, ...], np.ndarray]]:
        """Score plan blocks in one native call; returns the blocks it refused (invalid category
        codes) for the full kernel."""
        p = self.parent
        assert self._runner is not None
        t0 = time.perf_counter()
        jobs = [(st.scoring, c) for _, st, c in blocks]
        acc, starts, bad = self._runner.run(jobs)
        dt = time.perf_counter() - t0
        p.stats["plan_kernel_seconds"] += dt
        if bad.any():  # refused blocks left their rows unset: keep the link function away from them
            for (_, _, c), a, no in zip(blocks, starts.tolist(), bad.tolist()):
                if no:
                    acc[a : a + len(c)] = 0.0
        probs = self._probabilities(acc)
        refused = []
        rows = 0
        for (b, _, c), (job, _), a, no in zip(blocks, jobs, starts.tolist(), bad.tolist()):
            if no:
                refused.append((b, job.delta, c))
                continue
            out[b] = probs[a : a + len(c)]
            rows += len(c)
            p._count(tier, len(c))
        if rows:
            p.c_row.add(dt, rows)
        return refused

    def _run_full(self, blocks, out: list) -> None:
        """Materialise the blocks' full rows and score them with one call of the whole forest."""
        parts = [self._full_rows(d, c) for _, d, c in blocks]
        rows = parts[0] if len(parts) == 1 else np.concatenate(parts)
        self._scatter("full_kernel", blocks, self._probabilities(self._whole_forest(rows)), out)

    def _whole_forest(self, rows: np.ndarray, near: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """The whole forest's accumulators on full rows (``near``: as
        :meth:`codegen.trees.native_partial.BoundX.score_rows` takes it): with x bound, only
        what differs from x is walked (same leaves, same sums)."""
        p = self.parent
        t0 = time.perf_counter()
        if p.native is None:
            acc = run_kernel(p.full, rows)
        else:
            acc = self.bound_x().score_rows(rows, near=near)
        p.stats["full_kernel_seconds"] += time.perf_counter() - t0
        return acc


def tree_scorer(model_input: ModelInput, desired_class: Any, engine: str = "auto") -> TreeScorer:
    """The engine factory for tree models (see :mod:`codegen.registry`): read the final
    estimator's trees, fold the pipeline into them, prepare the tiers of ``engine``.

    Raises :class:`codegen.UnsupportedModel` (one-line ``reason``) for anything it cannot read."""
    forest = fold(read_trees(model_input.estimator), model_input, desired_class)
    return TreeScorer(forest, engine)
