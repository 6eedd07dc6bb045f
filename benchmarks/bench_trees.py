"""Tree compiler benchmark: block throughput, compile time, end-to-end explanation latency.

Run:  python benchmarks/bench_trees.py [--instances 50] [--blackbox-instances 10] [--quick]
Results: benchmarks/README.md, section "bench_trees.py".

Models (fitted here, n_jobs=1 at prediction): RandomForest(500 trees, max_depth=10) and
HistGradientBoosting (100 iterations) on Adult (OneHotEncoder pipeline for the forest, native
categoricals for HistGB) and Credit (all numeric, bare models).

(a) Scoring one Δ block (x fixed, |Δ| = 1..5 random features, 200 rows of data values): sklearn
    ``predict_proba`` on the materialised rows vs each engine tier; ratios vs sklearn measured in
    this process; partial evaluation in numpy (``PE ms``, incl. binding x) and native (``nPE µs``,
    x bound, warm caches).
(b) Compile time of the specialised module per Δ by residual size (live splits) and opt level.
(c) End to end: seconds per explanation (median, p90) for engine="auto" vs the black-box path,
    compile time's share and cache hit rate, and whether both paths return the same
    counterfactual probabilities.
All timings single-process on this machine; best of 3 where noted. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore")


def _best(fn, k: int = 3) -> float:
    ts = []
    for _ in range(k):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def models(quick: bool):
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder

    from geco.datasets import load_adult, load_credit

    n_trees = 100 if quick else 500
    out = []
    for data in (load_adult(), load_credit()):
        X, y = data.X, data.y
        cats = make_column_selector(dtype_include="category")
        has_cat = len(cats(X)) > 0
        rf = RandomForestClassifier(n_estimators=n_trees, max_depth=10, random_state=0, n_jobs=2)
        if has_cat:
            ct = ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore"), cats)], remainder="passthrough")
            rf = Pipeline([("ct", ct), ("rf", rf)])
        t0 = time.perf_counter()
        rf.fit(X, y)
        (rf[-1] if has_cat else rf).set_params(n_jobs=1)
        print(f"[fit] {data.name} RF-{n_trees}: {time.perf_counter() - t0:.1f}s", flush=True)
        hgb = HistGradientBoostingClassifier(max_iter=100, random_state=0, categorical_features="from_dtype")
        hgb.fit(X, y)
        out.append((data, f"RF-{n_trees}", rf))
        out.append((data, "HistGB-100", hgb))
    return out


def part_a_b(data, label, model, rng) -> None:
    from codegen.llvm import binding
    from codegen.trees.emit import emit_residual
    from codegen.trees.fold import read_forest
    from codegen.trees.jit import CompiledResidual
    from codegen.trees.kernel import kernel_arrays_forest, kernel_arrays_residual, run_kernel
    from codegen.trees.native_partial import NativePartial
    from codegen.trees.partial import bind_x, partial_evaluate
    from codegen.trees.scorer import TreeScorer
    from plaf_grammar import Schema

    schema = Schema.from_dataframe(data.X)
    E = schema.encode(data.X)
    t0 = time.perf_counter()
    forest = read_forest(model, schema, data.desired_class)
    t_read = time.perf_counter() - t0
    full = kernel_arrays_forest(forest)
    run_kernel(full, E[:1])  # compile the kernel once
    native = NativePartial(forest, full)
    native(native.bind(E[0]), ())  # and the native partial evaluator
    print(f"\n== {data.name} / {label}: {int(np.count_nonzero(forest.feature >= 0))} splits, "
          f"read+fold {t_read:.2f}s", flush=True)  # fmt: skip
    print(f"{'|Δ|':>3} {'live':>5} {'splits':>6} {'PE ms':>6} {'nPE µs':>6} | per-row µs: {'sklearn':>8} {'numpy':>7} "
          f"{'fullK':>6} {'resK':>6} {'jitO0':>6} {'jitO1':>6} {'jitO2':>6} | x sklearn: "
          f"{'resK':>5} {'jitO1':>6} {'jitO2':>6} | compile s O0/O1/O2")  # fmt: skip
    n = 200
    for k in (1, 2, 3, 5):
        x = E[rng.integers(len(E))]
        delta = tuple(sorted(rng.choice(len(schema), k, replace=False).tolist()))
        t0 = time.perf_counter()
        res = partial_evaluate(forest, bind_x(forest, x), delta)
        t_pe = time.perf_counter() - t0
        bx = native.bind(x)
        t_npe = _best(lambda: native(bx, delta))  # noqa: B023
        cols = np.ascontiguousarray(E[rng.integers(0, len(E), n)][:, list(delta)])
        rows = np.repeat(x[None], n, axis=0)
        rows[:, list(delta)] = cols
        frame = schema.decode(rows)
        want = model.predict_proba(frame)[:, list(model.classes_).index(data.desired_class)]
        t_sk = _best(lambda: model.predict_proba(schema.decode(rows)))  # noqa: B023
        t_np = _best(lambda: res.predict(cols), 2)  # noqa: B023
        t_fk = _best(lambda: run_kernel(full, rows))  # noqa: B023
        ra = kernel_arrays_residual(res)
        t_rk = _best(lambda: run_kernel(ra, cols))  # noqa: B023
        ir = emit_residual(res)
        times, comp = [], []
        for opt in (0, 1, 2):
            binding.clear_cache()
            t0 = time.perf_counter()
            binding.compile_ir(ir, opt)
            comp.append(time.perf_counter() - t0)
            sc = TreeScorer(forest, "jit")
            sc_b = sc.bind(x)
            st = sc_b._state(delta)
            st.residual = res
            st.compiled = CompiledResidual(binding.compile_ir(ir, opt), forest)
            got = sc_b.score_block(delta, cols)
            assert np.array_equal(got, want), "compiled scorer differs from predict_proba"
            times.append(_best(lambda: sc_b.score_block(delta, cols)))  # noqa: B023
        us = [t / n * 1e6 for t in (t_sk, t_np, t_fk, t_rk, *times)]
        print(f"{k:>3} {res.n_live:>5} {res.n_splits:>6} {t_pe * 1e3:>6.1f} {t_npe * 1e6:>6.0f} | {'':>12}{us[0]:>8.1f} {us[1]:>7.1f} "
              f"{us[2]:>6.1f} {us[3]:>6.1f} {us[4]:>6.2f} {us[5]:>6.2f} {us[6]:>6.2f} | {'':>10}"
              f"{t_sk / t_rk:>5.0f} {t_sk / times[1]:>6.0f} {t_sk / times[2]:>6.0f} | "
              f"{comp[0]:.2f}/{comp[1]:.2f}/{comp[2]:.2f}", flush=True)  # fmt: skip


def part_c(data, label, model, n_inst: int, n_bb: int) -> None:
    """End to end: engine="auto" vs black box over the first instances not already desired."""
    import geco
    from codegen.llvm import binding

    constraints = str(data.constraints) if data.constraints else None
    X = data.X
    proba = model.predict_proba(X.iloc[:2000])[:, list(model.classes_).index(data.desired_class)]
    rows = np.flatnonzero(proba <= 0.5)[:n_inst]
    binding.clear_cache()
    auto = geco.Explainer(model, X, constraints=constraints, desired_class=data.desired_class, engine="auto")
    bb = geco.Explainer(model, X, constraints=constraints, desired_class=data.desired_class, engine="blackbox")
    t_auto, t_bb, same = [], [], 0
    for i, r in enumerate(rows):
        t0 = time.perf_counter()
        ra = auto.explain(X.iloc[[r]], random_state=0)
        t_auto.append(time.perf_counter() - t0)
        if i < n_bb:
            t0 = time.perf_counter()
            rb = bb.explain(X.iloc[[r]], random_state=0)
            t_bb.append(time.perf_counter() - t0)
            pa = ra.counterfactuals["probability"].to_numpy()
            pb = rb.counterfactuals["probability"].to_numpy()
            same += int(len(pa) == len(pb) and np.array_equal(pa, pb))
    s = auto.scorer.stats
    total = sum(t_auto)
    comp = s.get("compile_seconds", 0.0)
    hits, misses = s.get("cache_hits", 0), s.get("cache_misses", 0)
    med_a, p90_a = np.median(t_auto), np.percentile(t_auto, 90)
    line = (f"[e2e] {data.name} / {label}: auto median {med_a:.3f}s p90 {p90_a:.3f}s over {len(t_auto)}; "
            f"compile share {comp / total:.1%} (background), PE share {s['pe_seconds'] / total:.1%} "
            f"({s['pe_seconds'] / max(s['partial_evaluations'], 1) * 1e6:.0f} µs per Δ); "
            f"cache hits {hits}/{hits + misses}; rows by tier: full kernel {s['rows_full_kernel']}, "
            f"residual kernel {s['rows_residual_kernel']}, jit {s['rows_jit']}")  # fmt: skip
    if t_bb:
        med_b, p90_b = np.median(t_bb), np.percentile(t_bb, 90)
        med_a_same = np.median(t_auto[: len(t_bb)])
        line += (f"\n      blackbox median {med_b:.3f}s p90 {p90_b:.3f}s over {len(t_bb)}; "
                 f"speed-up (median, same instances) {med_b / med_a_same:.1f}x; identical results {same}/{len(t_bb)}")  # fmt: skip
    print(line, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=50)
    ap.add_argument("--blackbox-instances", type=int, default=10, help="the black box is slow on RF-500")
    ap.add_argument("--quick", action="store_true", help="RF-100 and 5 instances")
    ap.add_argument("--skip-e2e", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.instances, args.blackbox_instances = 5, 3
    import llvmlite

    print(f"llvmlite {llvmlite.__version__}")
    rng = np.random.default_rng(0)
    fitted = models(args.quick)
    for data, label, model in fitted:
        part_a_b(data, label, model, rng)
    if not args.skip_e2e:
        print()
        for data, label, model in fitted:
            part_c(data, label, model, args.instances, args.blackbox_instances)


if __name__ == "__main__":
    from codegen.llvm import disk_cache

    disk_cache.configure(False)  # measure compiles, not loads from the persistent cache
    main()
