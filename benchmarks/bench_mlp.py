"""MLP codegen benchmark: Δ-block scoring (jit vs numpy vs sklearn), compile time, auto choice, end to end.

Models: Adult (OneHotEncoder on the categoricals + StandardScaler on the numbers) and Credit
(StandardScaler), each with MLP (100,) and (100, 100); ``--hidden 0`` is a LogisticRegression (a
network without a hidden layer, compiled by the same engines). All in one process, single-threaded BLAS
by default (``--blas-threads`` to change), best-of-5 timings.

(a) Δ-block scoring for block sizes 1 .. 1024 (Δ = 2 features, values from real rows):
    ``jit`` (the per-model kernel, buffers), ``numpy`` (folded first layer + BLAS), ``blackbox``
    (materialise rows, decode to a DataFrame, ``Pipeline.predict_proba``: what the search does
    without codegen).
(b) compile time of the kernel (once per model).
(c) the auto engine's decision.
(d) end to end: seconds per explanation with engine = blackbox / numpy / jit / auto.

    python benchmarks/bench_mlp.py [--n 20] [--datasets adult,credit] [--hidden 100 100,100]

Results: benchmarks/README.md, section "bench_mlp.py".
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from threadpoolctl import threadpool_limits

import geco
from codegen import BlackBoxScorer
from codegen.llvm.binding import clear_cache
from codegen.registry import scorer_for
from plaf_grammar import Schema

SIZES = (1, 8, 32, 128, 1024)


def make_model(X, y, hidden: tuple[int, ...]) -> Pipeline:
    cats = [c for c in X.columns if str(X[c].dtype) == "category"]
    nums = [c for c in X.columns if c not in cats]
    parts = [("scale", StandardScaler(), nums)]
    if cats:
        parts.insert(0, ("onehot", OneHotEncoder(handle_unknown="ignore"), cats))
    mlp = (LogisticRegression(max_iter=2000) if hidden == (0,)
           else MLPClassifier(hidden_layer_sizes=hidden, max_iter=20, random_state=0))  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return Pipeline([("encode", ColumnTransformer(parts)), ("model", mlp)]).fit(X, y)


def best_of(f, reps: int, rounds: int = 5) -> float:
    f()
    best = np.inf
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(reps):
            f()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


def block_table(model, schema: Schema, enc: np.ndarray, desired) -> None:
    jit = scorer_for(model, schema, desired, "jit")
    npy = scorer_for(model, schema, desired, "numpy")
    bb = BlackBoxScorer(model, schema, desired)
    rng = np.random.default_rng(0)
    x = enc[1]
    delta = (0, len(schema) - 2)  # two features (Adult: age + hours_per_week; Credit: two numbers)
    bj, bn, bbb = jit.bind(x), npy.bind(x), bb.bind(x)
    names = ", ".join(schema.names[j] for j in delta)
    print(f"  compile: kernel (once per model) {jit.compile_seconds * 1e3:.0f} ms, IR {len(jit.built_kernel.ir) / 1e3:.0f} kB")
    print(f"  Δ = ({names}); µs per block (ratios: time / jit time)")
    print(f"  {'rows':>6} {'jit':>9} {'numpy':>9} {'blackbox':>10}   {'numpy/jit':>9} {'bb/jit':>7}")
    for n in SIZES:
        cols = np.ascontiguousarray(enc[rng.integers(0, len(enc), n)][:, list(delta)])
        reps = max(3, 3000 // n)
        r = np.abs(bj.score_block(delta, cols) - bbb.score_block(delta, cols)).max()
        assert r <= 1e-12, r
        tj = best_of(lambda cols=cols: bj.score_block(delta, cols), reps)
        tn = best_of(lambda cols=cols: bn.score_block(delta, cols), reps)
        tb = best_of(lambda cols=cols: bbb.score_block(delta, cols), max(2, reps // 20), 3)
        print(f"  {n:>6} {tj * 1e6:>9.1f} {tn * 1e6:>9.1f} {tb * 1e6:>10.1f}   {tn / tj:>9.2f} {tb / tj:>7.1f}")
    auto = scorer_for(model, schema, desired, "auto")
    tm = auto.timings
    print(f"  auto: {auto.name} ({auto.decision}; race: jit {tm.get('jit_block_seconds', 0) * 1e6:.1f} µs, "
          f"numpy {tm.get('numpy_block_seconds', 0) * 1e6:.1f} µs)")  # fmt: skip


def end_to_end(model, ds, n: int) -> None:
    """Seconds per explanation per engine (same seeds); are the counterfactuals the same?"""
    explainers = {}
    for engine in ("blackbox", "numpy", "jit", "auto"):
        t0 = time.perf_counter()
        explainers[engine] = geco.Explainer(model, ds.X, ds.constraints, ds.desired_class, engine=engine)
        explainers[engine].setup_seconds = time.perf_counter() - t0
    ex = explainers["blackbox"]
    p = ex.blackbox.predict(ex.data[:3000])
    rows = np.flatnonzero(p <= 0.5)[:n]
    ref = {}
    print(f"  end to end over {len(rows)} instances: {'engine':<9} {'setup s':>8} {'median s':>9} {'p90 s':>7} "
          f"{'vs bb':>6} {'same cf':>8} {'scoring s':>9} {'blocks':>6} {'rows/blk':>8}  scorer")  # fmt: skip
    base = None
    for engine, exp in explainers.items():
        times, same, scoring, blocks, scored = [], 0, [], [], []
        for r in rows:
            t0 = time.perf_counter()
            res = exp.explain(ds.X.iloc[[r]], random_state=int(r))
            times.append(time.perf_counter() - t0)
            scoring.append(res.stats.get("seconds", {}).get("scoring", np.nan))
            blocks.append(res.stats.get("blocks_scored", 0))
            scored.append(res.stats.get("candidates_scored", 0))
            key = res.counterfactuals.drop(columns=["probability"], errors="ignore").to_string()
            if engine == "blackbox":
                ref[r] = key
            same += ref.get(r) == key
        med = float(np.median(times))
        base = base or med
        print(f"  {'':<34} {engine:<9} {exp.setup_seconds:>8.2f} {med:>9.3f} {np.percentile(times, 90):>7.3f} "
              f"{base / med:>6.1f} {same:>4}/{len(rows):<3} {np.median(scoring):>9.3f} {np.mean(blocks):>6.0f} "
              f"{np.sum(scored) / max(np.sum(blocks), 1):>8.1f}  {exp.scorer.name}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20, help="instances for the end-to-end comparison (0: skip)")
    ap.add_argument("--datasets", default="adult,credit")
    ap.add_argument("--hidden", nargs="+", default=["100", "100,100"])
    ap.add_argument("--blas-threads", type=int, default=1)
    args = ap.parse_args()
    with threadpool_limits(args.blas_threads):
        for name in args.datasets.split(","):
            ds = geco.datasets.load_dataset(name)
            schema = Schema.from_dataframe(ds.X)
            enc = schema.encode(ds.X)
            for h in args.hidden:
                hidden = tuple(int(v) for v in h.split(","))
                t0 = time.perf_counter()
                model = make_model(ds.X, ds.y, hidden)
                label = "LogisticRegression" if hidden == (0,) else f"MLP {hidden}"
                print(f"\n== {name}, {label} (fit {time.perf_counter() - t0:.1f} s), "
                      f"{BlackBoxScorer(model, schema, ds.desired_class).model[:-1].transform(ds.X.iloc[:1]).shape[1]} model inputs")  # fmt: skip
                clear_cache()
                block_table(model, schema, enc, ds.desired_class)
                if args.n:
                    end_to_end(model, ds, args.n)


if __name__ == "__main__":
    from codegen.llvm import disk_cache

    disk_cache.configure(False)  # measure compiles, not loads from the persistent cache
    main()
