"""Certified answers: is every "proven none" true, how many true nones are proven, what it costs.

Part (a): random small problems - data of 3-6 feature groups (numbers with a few values,
categories), a random PLAF program over them (fixed, increasing, bounds, category sets, an
implication, a rule across groups), a random small model (sklearn trees, forests and boosting,
XGBoost, LightGBM, MLPs; in a one-hot pipeline) - and for each undesired instance the whole set
of rows the rules allow enumerated and scored by the model's own ``predict_proba``. A false
certificate is a "proven none" (or a bound below the model's probability of an allowed row)
the enumeration contradicts; the share certified is over the instances where the enumeration
finds no counterfactual. Part (b): the bound's cost next to an explanation's. Part (c): the
bundled data sets' undesired rows proven to have no counterfactual, under the bundled program
and a strict one.

    python benchmarks/bench_certify.py [--instances 1000] [--rows 120] [--quick] [--no-write]

A full run rewrites the tables between the markers in benchmarks/README.md (section
"bench_certify.py"). ``tests/certify`` imports :func:`random_case` and :func:`enumerate_allowed`.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import geco  # noqa: E402
from geco.problem.certificate import certify, distance_lower_bound  # noqa: E402

#: model families of part (a); "xgb" and "lgbm" are skipped where the library is not installed
FAMILIES = ("dt", "rf", "et", "gb", "hgb", "xgb", "lgbm", "mlp")
TREE_FAMILIES = tuple(f for f in FAMILIES if f != "mlp")
#: enumerations larger than this many rows are skipped (the instance does not count)
MAX_ROWS = 20_000
MARK_BEGIN = "<!-- bench_certify tables: begin -->"
MARK_END = "<!-- bench_certify tables: end -->"


@dataclass
class Case:
    """One random problem: data, labels, a fitted model, a PLAF program."""

    X: pd.DataFrame
    y: pd.Series
    model: Any
    program: str
    family: str


def _model(family: str, X: pd.DataFrame, rng: np.random.Generator) -> Any:
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    seed = int(rng.integers(1 << 30))
    if family == "dt":
        from sklearn.tree import DecisionTreeClassifier

        est = DecisionTreeClassifier(max_depth=int(rng.integers(2, 6)), random_state=seed)
    elif family == "rf":
        from sklearn.ensemble import RandomForestClassifier

        est = RandomForestClassifier(int(rng.integers(3, 15)), max_depth=int(rng.integers(2, 6)), random_state=seed)
    elif family == "et":
        from sklearn.ensemble import ExtraTreesClassifier

        est = ExtraTreesClassifier(int(rng.integers(3, 15)), max_depth=int(rng.integers(2, 6)), random_state=seed)
    elif family == "gb":
        from sklearn.ensemble import GradientBoostingClassifier

        est = GradientBoostingClassifier(n_estimators=int(rng.integers(3, 15)), max_depth=int(rng.integers(1, 4)), random_state=seed)
    elif family == "hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier

        est = HistGradientBoostingClassifier(max_iter=int(rng.integers(3, 15)), max_depth=3, random_state=seed)
    elif family == "xgb":
        from xgboost import XGBClassifier

        est = XGBClassifier(n_estimators=int(rng.integers(3, 15)), max_depth=3, random_state=seed, n_jobs=1)
    elif family == "lgbm":
        from lightgbm import LGBMClassifier

        est = LGBMClassifier(n_estimators=int(rng.integers(3, 15)), num_leaves=8, min_child_samples=5,
                             random_state=seed, n_jobs=1, verbose=-1)  # fmt: skip
    else:
        from sklearn.neural_network import MLPClassifier

        hidden = (int(rng.integers(3, 9)),) if rng.random() < 0.7 else (int(rng.integers(3, 7)), int(rng.integers(2, 5)))
        act = str(rng.choice(["relu", "tanh", "logistic"]))
        est = MLPClassifier(hidden, activation=act, max_iter=300, random_state=seed)
    cats = [c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)]
    nums = [c for c in X.columns if c not in cats]
    steps = [("onehot", OneHotEncoder(handle_unknown="ignore", sparse_output=False), cats)] if cats else []
    steps.append(("num", StandardScaler() if family == "mlp" else "passthrough", nums))
    return Pipeline([("encode", ColumnTransformer(steps, verbose_feature_names_out=False)), ("model", est)])


def _program(rng: np.random.Generator, groups: list[list[str]], kinds: dict[str, Any]) -> str:
    """A random PLAF program over the groups (``kinds``: None for a number, else categories)."""
    lines = [f"group {', '.join(g)}" for g in groups if len(g) > 1]
    names = [f for g in groups for f in g]
    nums = [f for f in names if kinds[f] is None]
    cats = [f for f in names if kinds[f] is not None]
    group_of = {f: i for i, g in enumerate(groups) for f in g}
    if rng.random() < 0.4:
        lines.append(f"fixed {rng.choice(names)}")
    for f in nums:
        r = rng.random()
        if r < 0.2:
            lines.append(f"increasing {f}")
        elif r < 0.35:
            lines.append(f"cf.{f} <= x.{f} + {int(rng.integers(0, 3))}")
        elif r < 0.45:
            lines.append(f"cf.{f} >= x.{f} - {int(rng.integers(0, 3))}")
    for f in cats:
        if rng.random() < 0.3:
            keep = rng.choice(kinds[f], size=int(rng.integers(1, len(kinds[f]))), replace=False)
            items = ", ".join('"' + str(c) + '"' for c in keep)
            lines.append(f"cf.{f} in {{{items}}}")
    pairs = [(a, b) for a in nums for b in nums if group_of[a] < group_of[b]]
    if pairs and rng.random() < 0.3:
        a, b = pairs[int(rng.integers(len(pairs)))]
        lines.append(f"if cf.{a} > x.{a} then cf.{b} >= x.{b}")
    if pairs and rng.random() < 0.3:
        a, b = pairs[int(rng.integers(len(pairs)))]
        lines.append(f"cf.{a} + cf.{b} <= x.{a} + x.{b} + {int(rng.integers(0, 4))}")
    return "\n".join(lines) + "\n"


def random_case(seed: int, family: str | None = None, n_rows: int = 120) -> Case:
    """A random small problem (see the module docstring); ``family`` None draws one."""
    rng = np.random.default_rng(seed)
    families = [f for f in FAMILIES if f not in ("xgb", "lgbm") or _has(f)]
    family = family or str(rng.choice(families))
    n_groups = int(rng.integers(3, 7))
    groups, kinds, cols = [], {}, {}
    for g in range(n_groups):
        size = 2 if rng.random() < 0.25 else 1
        names = [f"f{g}{'ab'[k]}" if size > 1 else f"f{g}" for k in range(size)]
        for name in names:
            if rng.random() < 0.35:
                cats = [f"c{i}" for i in range(int(rng.integers(2, 5)))]
                kinds[name] = cats
                cols[name] = pd.Categorical(rng.choice(cats, n_rows), categories=cats)
            else:
                kinds[name] = None
                cols[name] = rng.integers(0, int(rng.integers(2, 6)), n_rows)
        groups.append(names)
    X = pd.DataFrame(cols)
    score = np.zeros(n_rows)
    for name in X.columns:
        v = X[name].cat.codes.to_numpy() if kinds[name] is not None else X[name].to_numpy()
        score += rng.normal() * (v - v.mean()) / (v.std() + 1e-9)
    score += rng.normal(scale=0.5, size=n_rows)
    y = pd.Series((score > np.quantile(score, rng.uniform(0.4, 0.85))).astype(int))
    if y.nunique() < 2:
        y.iloc[0] = 1 - y.iloc[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = _model(family, X, rng).fit(X, y)
    return Case(X, y, model, _program(rng, groups, kinds), family)


def _has(family: str) -> bool:
    import importlib.util

    return importlib.util.find_spec("xgboost" if family == "xgb" else "lightgbm") is not None


def enumerate_allowed(problem: Any) -> np.ndarray | None:
    """Every row the rules allow for the problem's ``x`` (each group at ``x``'s tuple unless
    ``x`` breaks its rules, or at one of its feasible tuples; the whole program satisfied), or
    None when there are more than MAX_ROWS candidates."""
    x = problem.x
    options = []
    for g, space in enumerate(problem.spaces):
        own = x[space.features][None]
        options.append(space.values if problem.required[g] else np.concatenate([own, space.values]))
    if float(np.prod([len(o) for o in options], dtype=np.float64)) > MAX_ROWS:
        return None
    picks = np.meshgrid(*[np.arange(len(o)) for o in options], indexing="ij")
    rows = np.tile(x, (picks[0].size if options else 1, 1))
    for g, pick in enumerate(picks):
        rows[:, problem.spaces[g].features] = options[g][pick.reshape(-1)]
    return rows[problem.satisfies(rows)] if len(rows) else rows


@dataclass
class Record:
    """One instance of part (a)."""

    family: str
    exists: bool  # the enumeration finds a counterfactual
    best: float  # the model's highest P(desired) over the allowed rows (0 without any)
    bound: float | None
    proven: bool
    false_certificate: bool
    seconds: float
    #: the distance lower bound (None: no bound) and the closest counterfactual's distance (inf: none)
    floor: float | None = None
    optimum: float = float("inf")

    @property
    def false_floor(self) -> bool:
        """The lower bound on a counterfactual's distance exceeds the closest one's."""
        return self.floor is not None and self.floor > self.optimum

def check_case(case: Case, max_instances: int = 4, threshold: float = 0.5, engine: str = "numpy") -> list[Record]:
    """Certify up to ``max_instances`` undesired rows of ``case`` and check each against the
    enumeration."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        explainer = geco.Explainer(case.model, case.X, case.program, desired_class=1, engine=engine)
    p = explainer.setting.model_proba(explainer.table.take(slice(None)))
    out = []
    for row in np.flatnonzero(p <= threshold)[:max_instances]:
        problem = explainer.problem(case.X.iloc[[int(row)]])
        rows = enumerate_allowed(problem)
        if rows is None:
            continue
        p = problem.model_proba(rows) if len(rows) else np.empty(0)
        best = float(np.max(p)) if len(rows) else 0.0
        t0 = time.perf_counter()
        cert = certify(problem, threshold)
        seconds = time.perf_counter() - t0
        exists = best > threshold
        false = (cert.proven_none and exists) or (cert.bound is not None and cert.bound < best)
        optimum = float(problem.distances(rows[p > threshold]).min()) if exists else float("inf")
        floor = distance_lower_bound(problem, threshold)
        out.append(Record(case.family, exists, best, cert.bound, cert.proven_none, false, seconds, floor, optimum))
    return out


def part_a(n_instances: int, n_rows: int) -> tuple[list[Record], str]:
    records: list[Record] = []
    seed = 0
    while len(records) < n_instances:
        records += check_case(random_case(seed, n_rows=n_rows))
        seed += 1
    records = records[:n_instances]
    lines = [
        "| family | instances | counterfactual exists | none exists | proven none | share of nones proven | false certificates | median ms / certificate | distance floor / optimum (median) | false floors |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    groups = {f: [r for r in records if r.family == f] for f in FAMILIES}
    groups["all trees"] = [r for r in records if r.family in TREE_FAMILIES]
    groups["all"] = records
    for name, rs in groups.items():
        if not rs:
            continue
        nones = [r for r in rs if not r.exists]
        proven = sum(r.proven for r in nones)
        share = f"{100 * proven / len(nones):.1f} %" if nones else "-"
        ms = 1e3 * float(np.median([r.seconds for r in rs]))
        ratios = [r.floor / r.optimum for r in rs if r.exists and r.floor is not None and r.optimum > 0]
        ratio = f"{np.median(ratios):.2f}" if ratios else "-"
        lines.append(
            f"| {name} | {len(rs)} | {len(rs) - len(nones)} | {len(nones)} | {proven} | {share} | "
            f"{sum(r.false_certificate for r in rs)} | {ms:.2f} | {ratio} | {sum(r.false_floor for r in rs)} |"
        )
    return records, "\n".join(lines)


def part_b(n: int) -> str:
    """The certificate's share of an explanation's time, on the bundled data sets with the
    recorded explanations' models, under the bundled and the strict program: over all
    explanations, and over those without a counterfactual (where branch and bound runs)."""
    sys.path.insert(0, str(ROOT / "tests" / "e2e"))
    from recorded import TRAIN_ROWS, make_model

    lines = [
        "| data set | model | program | explanations | found | proven none | not found | median s / explanation | certificate share | share without a counterfactual |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in ("adult", "credit", "compas"):
        ds = geco.datasets.load_dataset(name)
        bundled = Path(ds.constraints).read_text()
        for kind in ("rf", "hgb", "mlp"):
            model = make_model(kind, ds.X).fit(ds.X.iloc[:TRAIN_ROWS], ds.y.iloc[:TRAIN_ROWS])
            col = list(model.classes_).index(ds.desired_class)
            rows = np.flatnonzero(model.predict_proba(ds.X.iloc[:2000])[:, col] <= 0.5)[:n]
            for label, program in (("bundled", bundled), ("strict", bundled + STRICT[name])):
                explainer = geco.Explainer(model, ds.X, program, ds.desired_class)
                res = [explainer.explain(ds.X.iloc[[int(r)]], random_state=int(r)) for r in rows]
                total = np.array([e.stats["seconds_total"] for e in res])
                cert = np.array([e.stats.get("seconds_certificate", 0.0) for e in res])
                none = np.array([e.outcome != "found" for e in res])
                count = {o: sum(e.outcome == o for e in res) for o in ("found", "proven_none", "not_found")}
                without = f"{100 * cert[none].sum() / total[none].sum():.1f} %" if none.any() else "-"
                lines.append(
                    f"| {name} | {kind} | {label} | {len(res)} | {count['found']} | {count['proven_none']} | "
                    f"{count['not_found']} | {np.median(total):.3f} | {100 * cert.sum() / total.sum():.1f} % | {without} |"
                )
    return "\n".join(lines)


#: a strict program per bundled data set: the bundled one plus rules that pin most features
STRICT = {
    "adult": "fixed workclass, occupation, capital_gain, capital_loss\ncf.hours_per_week <= x.hours_per_week + 5\n",
    "credit": "fixed MaxBillAmountOverLast6Months, MaxPaymentAmountOverLast6Months, MostRecentBillAmount, MostRecentPaymentAmount\n",
    "compas": "fixed ChargeDegree\n",
}


def part_c(n: int) -> str:
    """Undesired rows proven to have no counterfactual (certificates only, no search)."""
    sys.path.insert(0, str(ROOT / "tests" / "e2e"))
    from recorded import TRAIN_ROWS, make_model

    lines = [
        "| data set | model | program | undesired rows | proven none | median ms / certificate |",
        "| --- | --- | --- | ---: | ---: | ---: |",
    ]
    for name in ("adult", "credit", "compas"):
        ds = geco.datasets.load_dataset(name)
        bundled = Path(ds.constraints).read_text()
        for kind in ("rf", "hgb", "mlp"):
            model = make_model(kind, ds.X).fit(ds.X.iloc[:TRAIN_ROWS], ds.y.iloc[:TRAIN_ROWS])
            col = list(model.classes_).index(ds.desired_class)
            rows = np.flatnonzero(model.predict_proba(ds.X.iloc[:5000])[:, col] <= 0.5)[:n]
            for label, program in (("bundled", bundled), ("strict", bundled + STRICT[name])):
                explainer = geco.Explainer(model, ds.X, program, ds.desired_class)
                proven, secs = 0, []
                for r in rows:
                    problem = explainer.problem(ds.X.iloc[[int(r)]])
                    t0 = time.perf_counter()
                    proven += certify(problem, 0.5, blame=False).proven_none
                    secs.append(time.perf_counter() - t0)
                lines.append(f"| {name} | {kind} | {label} | {len(rows)} | {proven} | {1e3 * np.median(secs):.1f} |")
    return "\n".join(lines)


def write_readme(body: str) -> None:
    path = ROOT / "benchmarks" / "README.md"
    text = path.read_text()
    block = f"{MARK_BEGIN}\n{body.strip()}\n{MARK_END}"
    pattern = re.compile(re.escape(MARK_BEGIN) + ".*?" + re.escape(MARK_END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path}: the markers {MARK_BEGIN!r} / {MARK_END!r} are missing")
    path.write_text(pattern.sub(lambda _: block, text, count=1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--instances", type=int, default=1000, help="random instances in part (a)")
    ap.add_argument("--rows", type=int, default=120, help="data rows of each random problem")
    ap.add_argument("--explanations", type=int, default=10, help="explanations per setting in part (b)")
    ap.add_argument("--undesired", type=int, default=100, help="undesired rows per setting in part (c)")
    ap.add_argument("--parts", default="abc", help="which parts to run (README written only for all)")
    ap.add_argument("--quick", action="store_true", help="small counts, README left alone")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    if args.quick:
        args.instances, args.explanations, args.undesired, args.no_write = 60, 2, 5, True
    t0 = time.perf_counter()
    records, a = part_a(args.instances, args.rows) if "a" in args.parts else ([], "")
    print(a, flush=True)
    b = part_b(args.explanations) if "b" in args.parts else ""
    print(b, flush=True)
    c = part_c(args.undesired) if "c" in args.parts else ""
    print(c, flush=True)
    false = sum(r.false_certificate or r.false_floor for r in records)
    print(f"({time.perf_counter() - t0:.0f} s; {false} false certificates)")
    if not args.no_write and args.parts == "abc":
        write_readme(
            f"(a) Random problems, {len(records)} undesired instances, each checked by enumerating "
            f"every allowed row:\n\n{a}\n\n(b) Explanations end to end (`Explainer.explain` under the "
            f"bundled and the strict program; the certificate - bound, gap or branch and bound - is "
            f"part of every explanation, its share of their total time):\n\n{b}\n\n"
            f"(c) Undesired rows proven to have no counterfactual (certificates alone; strict = the "
            f"bundled program plus `{'`, `'.join(s.strip().replace(chr(10), '; ') for s in STRICT.values())}`):\n\n{c}"
        )
    return 1 if false else 0


if __name__ == "__main__":
    sys.exit(main())
