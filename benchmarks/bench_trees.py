"""Tree scoring benchmark: block scoring per |Δ| and end-to-end explanations, compiled vs black box.

Run:  python benchmarks/bench_trees.py [--instances 20] [--blackbox-instances 20] [--quick]
                                       [--models-cache DIR] [--jit] [--no-readme]
Results: benchmarks/README.md, section "bench_trees.py" (the tables between its markers are
rewritten by every full run).

Models (fitted here, n_jobs=1 at prediction): RandomForest(500 trees, max_depth=10) and
HistGradientBoosting (100 iterations) on Adult (OneHotEncoder pipeline for the forest, native
categoricals for HistGB) and Credit (all numeric, bare models).

(a) Block scoring: per |Δ| = 1..5, random instances and random Δ, a block of 200 rows of data
    values. sklearn ``predict_proba`` on the materialised rows against the compiled tiers: the
    plan (built once per (x, Δ): its build time is "plan µs"; "plan" is µs per row scoring the
    block with a ready plan, "+build" amortises the build over the block), the x-walk (no setup)
    and the residual walk the plans replaced. Ratios are sklearn's time over the tier's, measured
    in this process (medians over the Δ tried).
(b) End to end: seconds per explanation (median, p90) for engine="auto" and the black box on the
    same instances and seeds, the speed-up (of the medians, and of the process CPU time: the
    compiled engine binds x and builds half of the plans on a helper thread), the share of the compiled explanation spent building
    plans (partial evaluation), scoring, and in the search (everything else), and whether both
    engines returned the same counterfactual probabilities.
Timings are wall-clock in one process; the load average is printed, since the machine may be
shared. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import pickle
import re
import time
import warnings
from pathlib import Path

import numpy as np

warnings.filterwarnings("ignore")

README = Path(__file__).with_name("README.md")
BEGIN, END = "<!-- bench_trees tables: begin -->", "<!-- bench_trees tables: end -->"


def _load() -> str:
    try:
        return "load average " + " / ".join(f"{v:.1f}" for v in os.getloadavg())
    except OSError:  # pragma: no cover - platforms without getloadavg
        return "load average n/a"


def _time(fn, k: int = 3) -> float:
    """Median wall time of ``k`` calls."""
    ts = []
    for _ in range(k):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def models(quick: bool, cache: str | None):
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder

    from geco.datasets import load_adult, load_credit

    n_trees = 100 if quick else 500
    path = Path(cache) / f"bench_trees_{n_trees}.pkl" if cache else None
    if path is not None and path.exists():
        with open(path, "rb") as fh:
            return pickle.load(fh)
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
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as fh:
            pickle.dump(out, fh)
    return out


def part_a(data, label, model, rng, jit: bool, n_rows: int = 200, per_size: int = 4) -> list[list[str]]:
    """Block scoring per |Δ|; returns table rows."""
    from codegen.llvm import binding
    from codegen.trees.fold import read_forest
    from codegen.trees.jit import compile_residual
    from codegen.trees.kernel import kernel_arrays_forest, run_kernel, tree_functions
    from codegen.trees.native_partial import NativePartial
    from codegen.trees.partial import bind_x, partial_evaluate
    from codegen.trees.plan import BlockRunner
    from plaf_grammar import Schema

    schema = Schema.from_dataframe(data.X)
    E = schema.encode(data.X)
    forest = read_forest(model, schema, data.desired_class)
    full = kernel_arrays_forest(forest)
    tree_functions()
    native = NativePartial(forest, full)
    runner = BlockRunner(full)
    column = list(model.classes_).index(data.desired_class)
    d = len(schema)
    print(f"\n== {data.name} / {label}: {int(np.count_nonzero(forest.feature >= 0))} splits; {_load()}", flush=True)
    head = (f"{'|Δ|':>3} {'live':>4} {'QS':>4} {'walk':>4} {'plan µs':>8} | µs/row: {'sklearn':>8} {'plan':>6} "
            f"{'+build':>7} {'x-walk':>7} {'resid':>6}" + (f" {'jit':>6} {'comp s':>6}" if jit else "") +
            f" | x sklearn: {'plan':>5} {'+build':>6} {'x-walk':>6}")  # fmt: skip
    print(head)
    table = []
    for k in range(1, 6):
        r = {key: [] for key in ("sk", "plan", "build", "xwalk", "resid", "jit", "comp", "live", "qs", "walk")}
        for _ in range(per_size):
            x = E[rng.integers(len(E))]
            delta = tuple(sorted(rng.choice(d, k, replace=False).tolist()))
            cols = np.ascontiguousarray(E[rng.integers(0, len(E), n_rows)][:, list(delta)])
            rows = np.repeat(x[None], n_rows, axis=0)
            rows[:, list(delta)] = cols
            want = model.predict_proba(schema.decode(rows))[:, column]
            bx = native.bind(x)
            plan = native.plan(bx, delta)
            acc, _, _ = runner.run([(plan, cols)])
            got = acc[:, 0] if forest.divisor is not None else forest.finish(acc)
            assert np.array_equal(got, want), "plan differs from predict_proba"
            xw = native.xwalk(bx, delta)
            resid = native(bx, delta)
            r["sk"].append(_time(lambda: model.predict_proba(schema.decode(rows))))  # noqa: B023
            r["build"].append(_time(lambda: native.plan(bx, delta), 5))  # noqa: B023
            r["plan"].append(_time(lambda: runner.run([(plan, cols)]), 5))  # noqa: B023
            r["xwalk"].append(_time(lambda: runner.run([(xw, cols)])))  # noqa: B023
            r["resid"].append(_time(lambda: run_kernel(resid, cols)))  # noqa: B023
            c = plan.counts()
            r["live"].append(c["quickscorer"] + c["walk"])
            r["qs"].append(c["quickscorer"])
            r["walk"].append(c["walk"])
            if jit and k <= 2:
                res = partial_evaluate(forest, bind_x(forest, x), delta)
                binding.clear_cache()
                compiled, _, secs = compile_residual(res)
                r["comp"].append(secs)
                r["jit"].append(_time(lambda: compiled(cols), 5))  # noqa: B023
        m = {key: float(np.median(v)) if v else float("nan") for key, v in r.items()}
        us = {key: m[key] / n_rows * 1e6 for key in ("sk", "plan", "xwalk", "resid", "jit")}
        us["+build"] = (m["plan"] + m["build"]) / n_rows * 1e6
        ratios = (m["sk"] / m["plan"], m["sk"] / (m["plan"] + m["build"]), m["sk"] / m["xwalk"])
        jit_cols = f" {us['jit']:>6.2f} {m['comp']:>6.2f}" if jit else ""
        print(f"{k:>3} {m['live']:>4.0f} {m['qs']:>4.0f} {m['walk']:>4.0f} {m['build'] * 1e6:>8.0f} | {'':>8}{us['sk']:>8.1f} "
              f"{us['plan']:>6.2f} {us['+build']:>7.2f} {us['xwalk']:>7.2f} {us['resid']:>6.2f}{jit_cols} | {'':>11}"
              f"{ratios[0]:>5.0f} {ratios[1]:>6.0f} {ratios[2]:>6.0f}", flush=True)  # fmt: skip
        table.append([f"{data.name} {label}", str(k), f"{m['live']:.0f} ({m['walk']:.0f} walked)", f"{m['build'] * 1e6:.0f}",
                      f"{us['sk']:.1f}", f"{us['plan']:.2f}", f"{us['+build']:.2f}", f"{us['xwalk']:.1f}",
                      f"{us['resid']:.1f}", f"{ratios[0]:.0f}x", f"{ratios[1]:.0f}x"])  # fmt: skip
    return table


def part_b(data, label, model, n_inst: int, n_bb: int) -> list[str]:
    """End to end: engine="auto" vs black box over the first instances not already desired."""
    import geco

    constraints = str(data.constraints) if data.constraints else None
    X = data.X
    proba = model.predict_proba(X.iloc[:2000])[:, list(model.classes_).index(data.desired_class)]
    rows = np.flatnonzero(proba <= 0.5)[:n_inst]
    auto = geco.Explainer(model, X, constraints=constraints, desired_class=data.desired_class, engine="auto")
    bb = geco.Explainer(model, X, constraints=constraints, desired_class=data.desired_class, engine="blackbox")
    s0 = dict(auto.scorer.stats)
    load0 = _load()
    t_auto, t_bb, same, scoring = [], [], 0, 0.0
    cpu_auto = cpu_bb = 0.0  # process CPU seconds (all threads) on the instances both engines ran
    for i, r in enumerate(rows):
        c0, t0 = time.process_time(), time.perf_counter()
        ra = auto.explain(X.iloc[[r]], random_state=0)
        t_auto.append(time.perf_counter() - t0)
        scoring += ra.stats.get("seconds", {}).get("scoring", 0.0)
        if i < n_bb:
            cpu_auto += time.process_time() - c0
            c0, t0 = time.process_time(), time.perf_counter()
            rb = bb.explain(X.iloc[[r]], random_state=0)
            t_bb.append(time.perf_counter() - t0)
            cpu_bb += time.process_time() - c0
            pa = ra.counterfactuals["probability"].to_numpy()
            pb = rb.counterfactuals["probability"].to_numpy()
            same += int(len(pa) == len(pb) and np.array_equal(pa, pb))
    s = {k: v - s0.get(k, 0) for k, v in auto.scorer.stats.items() if isinstance(v, (int, float))}
    total = sum(t_auto)
    pe = s.get("plan_seconds", 0.0) + s.get("bind_seconds", 0.0)
    share_pe, share_sc = pe / total, (scoring - pe) / total
    med_a, p90_a = np.median(t_auto), np.percentile(t_auto, 90)
    med_b, p90_b = np.median(t_bb), np.percentile(t_bb, 90)
    speed = med_b / np.median(t_auto[: len(t_bb)])
    speed_cpu = cpu_bb / max(cpu_auto, 1e-9)
    print(f"[e2e] {data.name} / {label}: auto median {med_a:.3f}s p90 {p90_a:.3f}s over {len(t_auto)}; black box "
          f"median {med_b:.3f}s p90 {p90_b:.3f}s over {len(t_bb)}; speed-up {speed:.1f}x (CPU time {speed_cpu:.1f}x); "
          f"identical {same}/{len(t_bb)}\n"
          f"      shares of the compiled explanation: partial evaluation {share_pe:.0%}, scoring {share_sc:.0%}, "
          f"search {1 - share_pe - share_sc:.0%}; {s.get('plans', 0) / len(t_auto):.0f} plans and "
          f"{(s.get('rows_plan', 0) + s.get('rows_xwalk', 0)) / len(t_auto):.0f} rows per explanation; "
          f"{load0} -> {_load()}", flush=True)  # fmt: skip
    return [f"{data.name} {label}", f"{med_a:.3f} / {p90_a:.3f}", f"{med_b:.2f} / {p90_b:.2f}",
            f"{speed:.1f}x / {speed_cpu:.1f}x",
            f"{share_pe:.0%} / {share_sc:.0%} / {1 - share_pe - share_sc:.0%}", f"{same}/{len(t_bb)}"]  # fmt: skip


def _md(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def write_readme(blocks: list[list[str]], e2e: list[list[str]], note: str) -> None:
    text = README.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        print(f"README has no {BEGIN} ... {END} markers; tables not written")
        return
    body = "\n\n".join([
        note,
        _md(["model", "\\|Δ\\|", "live trees", "plan µs", "sklearn µs/row", "plan µs/row", "+build µs/row",
             "x-walk µs/row", "residual walk µs/row", "x sklearn", "x sklearn +build"], blocks),
        _md(["model", "compiled median / p90 (s)", "black box median / p90 (s)", "speed-up (median wall / CPU)",
             "PE / scoring / search", "identical"], e2e),
    ])  # fmt: skip
    new = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: f"{BEGIN}\n{body}\n{END}", text, flags=re.S)
    README.write_text(new, encoding="utf-8")
    print(f"tables written to {README}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=20)
    ap.add_argument("--blackbox-instances", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="RF-100, 5 instances, no README")
    ap.add_argument("--models-cache", default=None, help="directory to keep the fitted models in")
    ap.add_argument("--jit", action="store_true", help="also compile residuals (|Δ| <= 2): JIT µs/row, compile s")
    ap.add_argument("--no-readme", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.instances, args.blackbox_instances, args.no_readme = 5, 3, True
    import llvmlite

    start = _load()
    print(f"llvmlite {llvmlite.__version__}; {os.cpu_count()} CPUs; {start}")
    rng = np.random.default_rng(0)
    fitted = models(args.quick, args.models_cache)
    blocks, e2e = [], []
    for data, label, model in fitted:
        blocks += part_a(data, label, model, rng, args.jit)
    print()
    for data, label, model in fitted:
        e2e.append(part_b(data, label, model, args.instances, args.blackbox_instances))
    end = _load()
    note = (f"Last run: {time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs, {start} at the start, {end} at the "
            f"end (other work on the machine); {args.instances} explanations per model, black box on "
            f"{args.blackbox_instances}.")  # fmt: skip
    if not args.no_readme:
        write_readme(blocks, e2e, note)


if __name__ == "__main__":
    from codegen.llvm import disk_cache

    disk_cache.configure(False)  # measure compiles, not loads from the persistent cache
    main()
