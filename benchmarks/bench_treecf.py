"""geco beside treecf (a tree-only counterfactual library with a compiled Rust genetic search).

    pip install 'geco-cf[compare]'      # treecf is optional: without it the geco side runs alone
    python benchmarks/bench_treecf.py [--n 30] [--blackbox-n 10] [--exact-n 10] [--exact-budget 2]
                                      [--exact-models rf100,xgb120x4,lgbm200] [--k 1]
                                      [--datasets adult,credit] [--models rf100,xgb120x4,...]
                                      [--no-treecf] [--no-compiled-search] [--no-readme]

Models (one-hot pipelines, fitted once and cached in geco's cache directory, predictions with one
thread): on Adult and Credit, sklearn RF-100 (``geco.models.default_model``), XGBoost 120x4 and
LightGBM 200 (the settings of the goals against treecf), RF-500 depth 10 and XGBoost / LightGBM
500x6 (the settings of the goals against the black box). The boosting models' one-hot encoder
writes dense columns, so a 0 is a 0 for XGBoost too (sparse input would make it "missing").

Both libraries explain the same first ``--n`` rows the model scores undesired, one seed per row
(the row's number), under the bundled .plaf's rules: geco reads the program; treecf gets the
final estimator on the encoded columns with ``OneHot`` for each categorical's columns and the
rules it can express - ``fixed`` as ``Freeze``, ``increasing``/``decreasing`` as ``Monotone``, a
bound of a feature by a number (``cf.hours_per_week <= 80``) as ``Range``, a category ruled out
(``cf.workclass != "Never-worked"``) as ``Range(0, 0)`` on its column. Groups and implications
are not given to treecf (it has no such constraint over numbers); the violations column shows
what that costs. Target: P(desired) > 0.5, on the raw score (treecf's ``Target.raw``).

Per setting: CPU ms per explanation (process CPU, one thread: threadpoolctl and the usual
environment variables, RAYON_NUM_THREADS=1 for treecf) median and p90 after a warm-up call;
validity (the pipeline's own ``predict_proba`` of the answer decoded back to the user's columns
flips the class); rule violations (every answer checked against the bundled .plaf with
``plaf_grammar.holds``); answers with a value the data never has in that column; distance (geco's
distance to x, the same measure for both: ``Explainer.problem(x).distances``) median and the
paired median of geco / treecf over rows both answered, and the same on treecf's own measure (the
sum of weight * |change| / sigma it minimises, over the encoded columns); features changed; treecf's exact mode
(``backend="exact"``, ``--exact-budget`` seconds) on the first ``--exact-n`` rows of the
``--exact-models`` (by default the small ones: on RF-500 it overruns its budget many times); geco's black
box (engine "blackbox") on the first ``--blackbox-n`` rows and compiled x = its median CPU over
the compiled one's on those rows. geco returns ``--k`` counterfactuals (1: treecf returns one);
its best is compared. geco runs twice on the same rows: with the numpy search (the reference, the
default) and, where numba is installed, with the compiled search (``native=True``: the
generation's numba kernels), whose answers are the same (counted; the quality columns are the
numpy search's). geco's searches and treecf's genetic search take turns by runs of 6 rows, in an
order rotated from run to run (see :func:`run_sides`). Writes its tables between the
"bench_treecf" markers of ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from bench_phases import cpu_line, fitted, load_line, one_thread, undesired_rows
from readme_table import write_block

# one thread for the libraries imported later (treecf's Rust core reads RAYON_NUM_THREADS)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

warnings.filterwarnings("ignore")

README = Path(__file__).with_name("README.md")
BEGIN, END = "<!-- bench_treecf tables: begin -->", "<!-- bench_treecf tables: end -->"
LABELS = {
    "rf100": "RF-100",
    "xgb120x4": "XGBoost 120x4",
    "lgbm200": "LightGBM 200",
    "rf500": "RF-500",
    "xgb500x6": "XGBoost 500x6",
    "lgbm500x6": "LightGBM 500x6",
}
INSTALL = "pip install 'geco-cf[compare]'  (or: pip install treecf)"


def treecf_module() -> Any:
    """The treecf package, or None (with the line saying how to install it)."""
    try:
        import treecf
    except ImportError:
        print(
            f"treecf is not installed: the geco side runs alone. To compare: {INSTALL}", flush=True
        )
        return None
    return treecf


# ---------------------------------------------------------------- the encoded columns
@dataclass
class Encoding:
    """How the pipeline's encoded columns map back to the user's features: ``numeric[f]`` the
    column of a numeric feature, ``onehot[f]`` the (column, category) pairs of a categorical."""

    Z: np.ndarray
    numeric: dict[str, int]
    onehot: dict[str, list[tuple[int, Any]]]

    def decode(self, z: np.ndarray, like: pd.DataFrame) -> pd.DataFrame | None:
        """The one-row user frame of encoded row ``z`` (None when a categorical's columns are not
        exactly one 1 and zeros)."""
        row: dict[str, Any] = {}
        for f in like.columns:
            if f in self.numeric:
                row[f] = float(z[self.numeric[f]])
                continue
            cols = self.onehot[f]
            vals = np.array([z[c] for c, _ in cols])
            if not (np.all((vals == 0) | (vals == 1)) and vals.sum() == 1):
                return None
            row[f] = cols[int(np.argmax(vals))][1]
        out = like.copy()
        for f, v in row.items():
            if f in self.numeric:
                out[f] = out[f].astype(np.float64)
            out.iloc[0, out.columns.get_loc(f)] = v
        return out


def dense_row(model: Any, frame: pd.DataFrame) -> np.ndarray:
    """A one-row frame's encoded columns as the final estimator sees them, dense float64."""
    if len(model.steps) == 1:
        return frame.to_numpy(np.float64)[0]
    z = model[:-1].transform(frame)
    return np.asarray(z.toarray() if hasattr(z, "toarray") else z, dtype=np.float64)[0]


def encoding(model: Any, X: pd.DataFrame) -> Encoding:
    """The encoded training columns (dense float64) and their map back to ``X``'s features."""
    if len(model.steps) == 1:
        return Encoding(X.to_numpy(np.float64), {f: j for j, f in enumerate(X.columns)}, {})
    pre = model[:-1]
    Z = pre.transform(X)
    Z = np.asarray(Z.toarray() if hasattr(Z, "toarray") else Z, dtype=np.float64)
    ct = pre[-1]
    enc = ct.named_transformers_["onehot"]
    names = list(ct.get_feature_names_out())
    onehot, j = {}, 0
    for f, cats in zip(enc.feature_names_in_, enc.categories_):
        onehot[str(f)] = [(j + i, c) for i, c in enumerate(cats)]
        j += len(cats)
    numeric = {f: names.index(f) for f in X.columns if f not in onehot}
    if len(numeric) + j != Z.shape[1]:
        raise SystemExit(f"cannot map the encoded columns {names} back to {list(X.columns)}")
    return Encoding(Z, numeric, onehot)


def treecf_rules(
    tc: Any, program: Any, enc: Encoding, names: tuple[str, ...], X: pd.DataFrame
) -> tuple[list, list[str]]:
    """treecf's constraints for a checked PLAF program (and the statements not translated)."""
    from plaf_grammar.ast import Compare, Decreasing, Fixed, Group, Increasing, Num, Ref, Rule, Str

    out = [
        tc.OneHot(tuple(names[c] for c, _ in cols))
        for cols in enc.onehot.values()
        if len(cols) >= 2
    ]
    left = []
    for s in program.program.statements:
        if isinstance(s, Fixed):
            for f in s.names:
                cols = [enc.numeric[f]] if f in enc.numeric else [c for c, _ in enc.onehot[f]]
                out += [tc.Freeze(names[c]) for c in cols]
        elif isinstance(s, Increasing | Decreasing) and all(f in enc.numeric for f in s.names):
            d = "increase" if isinstance(s, Increasing) else "decrease"
            out += [tc.Monotone(names[enc.numeric[f]], d) for f in s.names]
        elif (
            isinstance(s, Rule)
            and isinstance(s.expr, Compare)
            and isinstance(s.expr.left, Ref)
            and s.expr.left.kind == "cf"
        ):
            f, op, right = s.expr.left.name, s.expr.op, s.expr.right
            if f in enc.numeric and isinstance(right, Num) and op in ("<", "<=", ">", ">="):
                v, col = float(right.value), X[f].to_numpy(np.float64)
                lo, hi = min(col.min(), v) - 1.0, max(col.max(), v) + 1.0
                if op in ("<", "<="):
                    hi = v if op == "<=" else np.nextafter(v, -np.inf)
                else:
                    lo = v if op == ">=" else np.nextafter(v, np.inf)
                out.append(tc.Range(names[enc.numeric[f]], float(lo), float(hi)))
                continue
            if f in enc.onehot and isinstance(right, Str) and op == "!=":
                out += [
                    tc.Range(names[c], 0.0, 0.0) for c, cat in enc.onehot[f] if cat == right.value
                ]
                continue
            left.append(type(s).__name__)
        elif not isinstance(s, Group):
            left.append(type(s).__name__)
        else:
            left.append("Group")
    return out, left


# ---------------------------------------------------------------- answers
@dataclass
class Answer:
    """One explanation's outcome, measured the same way for either library."""

    cpu: float
    wall: float
    found: bool = False
    valid: bool = False
    violates: bool = False
    unseen: bool = False
    distance: float = float("nan")
    tdistance: float = float("nan")
    changed: int = 0
    optimal: bool = False
    answer: str = ""  # geco's counterfactual table (CSV), to compare its two searches


class Judge:
    """Checks an answer (a one-row user frame) against x: the pipeline's class, the .plaf's rules
    (``plaf_grammar.holds``), the data's values, geco's distance and the features changed."""

    def __init__(self, explainer: Any, model: Any, X: pd.DataFrame, desired_class: Any):
        est = model[-1]
        self.col = list(est.classes_).index(desired_class)
        self.explainer, self.model, self.X = explainer, model, X
        self.names = list(explainer.schema.names)
        self.values = {f: pd.unique(X[f]) for f in self.names}
        self.treecf_scale: tuple[np.ndarray, np.ndarray] | None = None  # (weights, sigma)

    def treecf_distance(self, x: pd.DataFrame, cf: pd.DataFrame) -> float:
        """treecf's own objective, sum(weight * |z_cf - z_x| / sigma) over the encoded columns."""
        if self.treecf_scale is None:
            return float("nan")
        w, sigma = self.treecf_scale
        z = [dense_row(self.model, f) for f in (x, cf)]
        return float(np.sum(w * np.abs(z[1] - z[0]) / sigma))

    def judge(self, a: Answer, x: pd.DataFrame, cf: pd.DataFrame | None) -> Answer:
        import plaf_grammar

        if cf is None:
            return a
        cf = cf[self.names]
        a.found = True
        a.valid = bool(self.model.predict_proba(cf)[0, self.col] > 0.5)
        a.violates = not plaf_grammar.holds(self.explainer.program, x[self.names], cf)
        diff = [f for f in self.names if cf[f].iloc[0] != x[f].iloc[0]]
        a.changed = len(diff)
        a.unseen = any(cf[f].iloc[0] not in set(self.values[f].tolist()) for f in diff)
        row = peer_row(self.explainer.schema, cf)
        a.distance = float(self.explainer.problem(x).distances(row)[0])
        a.tdistance = self.treecf_distance(x, cf)
        return a


def peer_row(schema: Any, cf: pd.DataFrame) -> np.ndarray:
    """A one-row answer in the schema's encoding with its numbers as they are: treecf's may hold a
    fraction in an integer column (a split's threshold plus an epsilon), which the schema refuses
    as an instance's value but the distance reads as given."""
    first = cf.iloc[0]
    return np.array([[float(first[f.name]) if f.categories is None else schema.category_code(f.name, first[f.name])
                      for f in schema.features]])  # fmt: skip


Side = tuple[Callable[[np.ndarray], Any], Callable[[int], Answer]]


def geco_side(explainer: Any, judge: Judge, X: pd.DataFrame, k: int, native: bool = False) -> Side:
    """geco's warm-up and one row's answer, with the numpy search or (``native``) the compiled one."""

    def warm(rows: np.ndarray) -> None:
        explainer.explain(X.iloc[[int(rows[0])]], random_state=0, k=k, native=native)

    def one(r: int) -> Answer:
        x = X.iloc[[int(r)]]
        t0, c0 = time.perf_counter(), time.process_time()
        res = explainer.explain(x, random_state=int(r), k=k, native=native)
        a = Answer(time.process_time() - c0, time.perf_counter() - t0)
        cf = res.counterfactuals.iloc[[0]] if res.success and len(res.counterfactuals) else None
        a = judge.judge(a, x, cf)
        a.answer = res.counterfactuals.to_csv()
        return a

    return warm, one


def treecf_side(ex: Any, tc: Any, target: Any, enc: Encoding, judge: Judge, X: pd.DataFrame, backend: str,
                budget: float) -> Side:  # fmt: skip
    """treecf's warm-up and one row's answer with ``backend`` ("genetic" or "exact")."""

    def warm(rows: np.ndarray) -> None:
        ex.explain(enc.Z[int(rows[0])], target=target, seed=0, backend=backend, time_budget_s=budget)

    def one(r: int) -> Answer:
        x = X.iloc[[int(r)]]
        t0, c0 = time.perf_counter(), time.process_time()
        res = ex.explain(enc.Z[int(r)], target=target, seed=int(r), backend=backend, time_budget_s=budget)
        a = Answer(time.process_time() - c0, time.perf_counter() - t0)
        if isinstance(res, tc.Counterfactual):
            a.optimal = res.proof == "optimal"
            judge.judge(a, x, enc.decode(res.x_cf, x))
            a.found = True  # an answer that decodes to no valid one-hot row still counts as given
        return a

    return warm, one


def run_sides(sides: list[Side], rows: np.ndarray, chunk: int = 6) -> list[list[Answer]]:
    """Every row explained by every side, after one warm-up each: the sides take turns by runs of
    ``chunk`` rows, in an order rotated from run to run. Turns keep the machine's drift within a
    run (up to 1.4x over minutes) out of the ratios; runs of several rows keep each library's own
    working set warm, as in a batch (row by row, each library evicted the other's caches: geco's
    XGBoost 500x6 took 1.7x its time)."""
    for warm, _ in sides:
        warm(rows)
    outs: list[list[Answer]] = [[] for _ in sides]
    for t, at in enumerate(range(0, len(rows), chunk)):
        shift = t % len(sides)
        for j in [*range(shift, len(sides)), *range(shift)]:
            outs[j].extend(sides[j][1](int(r)) for r in rows[at : at + chunk])
    return outs


def target_for(tc: Any, est: Any, col: int) -> Any:
    """P(desired) > 0.5 on the raw score: probability for a forest, margin for boosting."""
    ir = tc.Explainer(est, normalizers=np.ones(est.n_features_in_)).ir
    identity = ir.link.name == "IDENTITY"
    cut, eps = (0.5, 1e-9) if identity else (0.0, 1e-9)
    return (
        tc.Target.raw(op=">=", value=cut + eps)
        if col == 1
        else tc.Target.raw(op="<=", value=cut - eps)
    )


# ---------------------------------------------------------------- one setting
def setting(data: Any, kind: str, args: argparse.Namespace, tc: Any) -> dict[str, Any]:
    import geco

    model = fitted(data, kind, dense=True)
    rows = undesired_rows(model, data.X, data.desired_class, args.n)
    explainer = geco.Explainer(
        model, data.X, str(data.constraints), desired_class=data.desired_class
    )
    judge = Judge(explainer, model, data.X, data.desired_class)
    out: dict[str, Any] = {"data": data.name.capitalize(), "model": LABELS[kind], "n": len(rows),
                           "engine": explainer.engine}  # fmt: skip
    ex = target = enc = None
    if tc is not None:
        enc = encoding(model, data.X)
        est = model[-1]
        check = est.predict_proba(enc.Z[:500])[:, judge.col]
        if not np.allclose(
            check, model.predict_proba(data.X.iloc[:500])[:, judge.col], rtol=0, atol=1e-9
        ):
            raise SystemExit(
                f"{data.name} {kind}: the final estimator on the dense encoding differs from the pipeline"
            )
        ir_names = tc.Explainer(est, normalizers=np.ones(enc.Z.shape[1])).ir.feature_names
        rules, left = treecf_rules(tc, explainer.program, enc, tuple(ir_names), data.X)
        ex = tc.Explainer(est, background=enc.Z, constraints=rules)
        judge.treecf_scale = (np.asarray(ex.weights, np.float64), np.asarray(ex.sigma, np.float64))
        target = target_for(tc, est, judge.col)
        out["left"] = sorted(set(left))
    sides, names = [geco_side(explainer, judge, data.X, args.k)], ["geco"]
    if args.compiled_search:
        sides.append(geco_side(explainer, judge, data.X, args.k, native=True))
        names.append("gecoc")
    if ex is not None:
        sides.append(treecf_side(ex, tc, target, enc, judge, data.X, "genetic", 10.0))
        names.append("treecf")
    out.update(zip(names, run_sides(sides, rows)))
    if "gecoc" in out:
        out["same"] = sum(a.answer == b.answer for a, b in zip(out["geco"], out["gecoc"]))
    if args.blackbox_n > 0:
        bb = geco.Explainer(
            model,
            data.X,
            str(data.constraints),
            desired_class=data.desired_class,
            engine="blackbox",
        )
        out["bb"] = run_sides([geco_side(bb, judge, data.X, args.k)], rows[: args.blackbox_n])[0]
    if ex is not None and args.exact_n > 0 and kind in args.exact_models.split(","):
        exact = treecf_side(ex, tc, target, enc, judge, data.X, "exact", args.exact_budget)
        out["exact"] = run_sides([exact], rows[: args.exact_n])[0]
    print(f"[{out['data']} {out['model']}] " + ", ".join(
        f"{side} {1e3 * np.median([a.cpu for a in out[side]]):.1f} ms CPU"
        f" ({1e3 * np.median([a.wall for a in out[side]]):.1f} wall)"
        for side in ("geco", "gecoc", "treecf", "exact", "bb") if side in out), flush=True)  # fmt: skip
    return out


# ---------------------------------------------------------------- tables
def _cpu(ans: list[Answer] | None) -> str:
    if not ans:
        return "-"
    c = 1e3 * np.array([a.cpu for a in ans])
    return f"{np.median(c):.1f} / {np.percentile(c, 90):.1f}"


def _count(ans: list[Answer] | None, attr: str) -> str:
    if not ans:
        return "-"
    return f"{sum(getattr(a, attr) for a in ans)}/{len(ans)}"


def _med(ans: list[Answer] | None, attr: str, fmt: str = ".4f") -> str:
    vals = [getattr(a, attr) for a in ans or [] if a.valid]
    return format(float(np.median(vals)), fmt) if vals else "-"


def _paired(g: list[Answer], t: list[Answer] | None, attr: str = "distance") -> str:
    """Median over rows both answered validly of geco's distance over the other's."""
    if not t:
        return "-"
    r = [getattr(a, attr) / getattr(b, attr) for a, b in zip(g, t)
         if a.valid and b.valid and getattr(b, attr) > 0]  # fmt: skip
    return f"{np.median(r):.2f}" if r else "-"


def _ratio(a: list[Answer] | None, b: list[Answer] | None) -> str:
    """Median CPU of ``a`` over ``b``'s."""
    if not a or not b:
        return "-"
    return f"{np.median([x.cpu for x in a]) / np.median([x.cpu for x in b]):.2f}"


def tables(results: list[dict[str, Any]]) -> str:
    lines = [
        "| data | model | engine | rows | geco CPU ms median / p90 | geco compiled search CPU ms median / p90 (same answers) "
        "| treecf CPU ms median / p90 | geco / treecf (median CPU) | geco compiled search / treecf "
        "| treecf exact CPU ms median / p90 (proved optimal) | black box CPU ms median (rows) | compiled x black box (CPU) |",
        "|---" * 12 + "|",
    ]
    for r in results:
        g, t, e, bb, gc = r["geco"], r.get("treecf"), r.get("exact"), r.get("bb"), r.get("gecoc")
        ratio, ratio_c = _ratio(g, t), _ratio(gc, t)
        compiled = f"{_cpu(gc)} ({r['same']}/{len(gc)})" if gc else "-"
        ex = f"{_cpu(e)} ({_count(e, 'optimal')})" if e else "-"
        if bb:
            bm = np.median([a.cpu for a in bb])
            bbs = (
                f"{1e3 * bm:.0f} ({len(bb)}) | {bm / np.median([a.cpu for a in g[: len(bb)]]):.1f}x"
            )
        else:
            bbs = "- | -"
        lines.append(
            f"| {r['data']} | {r['model']} | {r['engine']} | {r['n']} | {_cpu(g)} | {compiled} | {_cpu(t)} | {ratio} "
            f"| {ratio_c} | {ex} | {bbs} |"
        )
    lines += [
        "",
        "| data | model | valid geco / treecf / exact | rule violations geco / treecf / exact | unseen values geco / treecf / exact "
        "| distance median geco / treecf / exact | geco / treecf distance (paired median) | geco / exact distance (paired) "
        "| on treecf's measure: geco / treecf, geco / exact (paired) | features changed median geco / treecf / exact |",
        "|---" * 10 + "|",
    ]
    for r in results:
        g, t, e = r["geco"], r.get("treecf"), r.get("exact")
        sides = (g, t, e)
        lines.append(
            f"| {r['data']} | {r['model']} | " + " / ".join(_count(s, "valid") for s in sides)
            + " | " + " / ".join(_count(s, "violates") for s in sides)
            + " | " + " / ".join(_count(s, "unseen") for s in sides)
            + " | " + " / ".join(_med(s, "distance") for s in sides)
            + f" | {_paired(g, t)} | {_paired(g, e)} | {_paired(g, t, 'tdistance')}, {_paired(g, e, 'tdistance')} | "
            + " / ".join(_med(s, "changed", ".0f") for s in sides) + " |"
        )  # fmt: skip
    lines += ["", goals(results)]
    if any("gecoc" in r for r in results):
        lines += ["", goals(results, "gecoc")]
    left = sorted({s for r in results for s in r.get("left", [])})
    if left:
        lines += [
            "",
            "PLAF statements not given to treecf (no treecf constraint for them): "
            + ", ".join(left)
            + ".",
        ]
    return "\n".join(lines)


def goals(results: list[dict[str, Any]], side: str = "geco") -> str:
    """This run against the goals, for geco's numpy search (``side`` "geco") or its compiled
    search ("gecoc"): on RF-100, XGBoost 120x4 and LightGBM 200 a median <= 20 ms, p90 <= 50 ms
    and below treecf's median at equal or better validity, violations and distance; RF-500
    median <= 40 ms and >= 15x the black box; 500x6 boosting >= 5x the black box."""
    results = [{**r, "geco": r[side]} for r in results if side in r]

    def cpu(ans: list[Answer], q: float) -> float:
        return 1e3 * float(np.percentile([a.cpu for a in ans], q))

    small = [r for r in results if r["model"] in ("RF-100", "XGBoost 120x4", "LightGBM 200")]
    fast = [
        f"{r['data']} {r['model']}"
        for r in small
        if cpu(r["geco"], 50) <= 20 and cpu(r["geco"], 90) <= 50
    ]
    parts = [f"median <= 20 ms and p90 <= 50 ms on {len(fast)} of {len(small)} small settings"]
    vs = [r for r in small if r.get("treecf")]
    if vs:

        def beats(r: dict[str, Any]) -> bool:
            g, t = r["geco"], r["treecf"]
            return (
                cpu(g, 50) < cpu(t, 50)
                and sum(a.valid for a in g) >= sum(a.valid for a in t)
                and sum(a.violates for a in g) == 0
                and _paired(g, t) != "-"
                and float(_paired(g, t)) <= 1.0
            )

        won = [f"{r['data']} {r['model']}" for r in vs if beats(r)]
        parts.append(
            f"below treecf's median at equal or better validity, 0 violations and paired distance <= 1 on "
            f"{len(won)} of {len(vs)}" + (f" ({', '.join(won)})" if won else "")
        )
    for label, med, x in (
        ("RF-500", 40, 15),
        ("XGBoost 500x6", None, 5),
        ("LightGBM 500x6", None, 5),
    ):
        for r in (r for r in results if r["model"] == label and r.get("bb")):
            bb = r["bb"]
            ratio = np.median([a.cpu for a in bb]) / np.median(
                [a.cpu for a in r["geco"][: len(bb)]]
            )
            ok = ratio >= x and (med is None or cpu(r["geco"], 50) <= med)
            want = f"median <= {med} ms and " if med else ""
            parts.append(
                f"{r['data']} {label} {want}>= {x}x the black box: {'met' if ok else 'missed'} "
                f"({cpu(r['geco'], 50):.0f} ms, {ratio:.1f}x)"
            )
    search = "compiled" if side == "gecoc" else "numpy"
    return f"Goals in this run ({search} search): " + "; ".join(parts) + "."


def write_readme(body: str) -> None:
    """Replace the text between this script's markers in benchmarks/README.md."""
    write_block(BEGIN, END, body)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=30, help="undesired rows explained per setting")
    ap.add_argument(
        "--blackbox-n",
        type=int,
        default=10,
        help="of those, rows geco's black box explains (0: none)",
    )
    ap.add_argument(
        "--exact-n",
        type=int,
        default=10,
        help="of those, rows treecf's exact mode explains (0: none)",
    )
    ap.add_argument("--exact-budget", type=float, default=2.0, help="seconds per exact explanation")
    ap.add_argument(
        "--exact-models",
        default="rf100,xgb120x4,lgbm200",
        help="models treecf's exact mode runs on (on RF-500 it overruns its budget: ~18 s a row on Credit)",
    )
    ap.add_argument(
        "--k", type=int, default=1, help="counterfactuals geco returns (its best is compared)"
    )
    ap.add_argument("--datasets", default="adult,credit")
    ap.add_argument("--models", default=",".join(LABELS))
    ap.add_argument("--no-treecf", action="store_true", help="the geco side only")
    ap.add_argument("--no-compiled-search", action="store_true", help="geco's numpy search only")
    ap.add_argument("--no-readme", action="store_true")
    args = ap.parse_args()
    kinds = [m for m in args.models.split(",") if m]
    bad = [m for m in kinds if m not in LABELS] + [
        d for d in args.datasets.split(",") if d not in ("adult", "credit")
    ]
    if bad or args.n < 1 or args.k < 1:
        ap.error(
            f"unknown setting(s) {bad} (models: {list(LABELS)}, datasets: adult, credit); --n and --k >= 1"
        )
    from geco.datasets import load_adult, load_credit

    tc = None if args.no_treecf else treecf_module()
    args.compiled_search = not args.no_compiled_search and importlib.util.find_spec("numba") is not None
    if not args.no_compiled_search and not args.compiled_search:
        print("numba is not installed: geco's compiled search is left out (pip install 'geco-cf[native]')", flush=True)
    start = f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu_line()}, {load_line()} at the start"
    results = []
    with one_thread():
        for name in args.datasets.split(","):
            data = load_adult() if name == "adult" else load_credit()
            for kind in kinds:
                results.append(setting(data, kind, args, tc))
    version = f"treecf {tc.__version__}" if tc is not None else f"treecf not installed ({INSTALL})"
    text = (f"Last run: {start}, {load_line()} at the end; {version}; one thread; geco k={args.k}.\n\n"
            + tables(results))  # fmt: skip
    print("\n" + text)
    if not args.no_readme:
        write_readme(text)


if __name__ == "__main__":
    main()
