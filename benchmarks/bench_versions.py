"""Two versions of geco in one process: CPU per explanation, paired row by row, and same answers.

Why one process: run in separate processes, the same two trees measured 0.93 to 1.08 of each
other within an hour (the process is what varies: memory layout, the machine's frequency), so a
change of a few percent drowns. Here both trees are imported into this process, each under its
own ``sys.modules`` entries (swapped in before each of its calls, so the lazy imports inside
geco resolve to its own tree), one Explainer each over the *same* fitted model, and the
explanations alternate row by row (the order flips every row). Each row gives a ratio of CPU
seconds (``time.process_time``, every thread's) of the two trees on the same instance and seed;
the table gives the median ratio with a bootstrap 90 % interval, the ratio of the totals, and on
how many rows both trees returned the same explanation (counterfactual tables, outcome, bound
and gap). Where a change is meant to change answers, a second table judges them row by row:
found, the best counterfactual's distance, the mean distance over the options returned, how
many options, the features the best one changes.

What one process does not remove: each tree's code sits at addresses of its own (its numba
kernels, its compiled model kernels), and that alone moves a setting by a few per cent. Two
checkouts of one commit, as base and head, measured 1.050 (1.034-1.059) on Credit XGBoost 120x4
at k = 5 and 1.003 on Adult LightGBM 200 at k = 1; a checkout that had compiled its kernels
separately gave 1.045 on the latter against a tree with the same code. So a difference of a few
per cent on one setting counts only if it holds with the roles swapped (``--base`` the new
commit, ``--head`` a worktree of the old one).

    python benchmarks/bench_versions.py --base <git revision> [--n 60] [--settings adult-rf,credit-xgb] [--search compiled]
                                        [--base-search numpy] [--no-readme]

``--base`` is checked out into a temporary git worktree (removed at the end); ``--head``
(default: this checkout) is the tree under test. The compiled search of a tree that has not run
before compiles its kernels first (about twenty seconds, outside the timings). Settings:
``adult-rf`` (Adult RF-100, the default model), ``credit-xgb`` (Credit XGBoost 120x4),
``credit-rf`` (Credit RF-100), ``adult-lgbm`` (Adult LightGBM 200), ``adult-xgb``, ``credit-lgbm``,
``adult-rf500``, ``credit-rf500``, ``credit-xgb500``, ``adult-xgb500``, ``credit-lgbm500``, ``adult-lgbm500``
(bench_phases' RF-500, XGBoost 500x6 and LightGBM 500x6), ``wide`` (``make_wide.py``'s
table of ``--wide-rows`` x 115 with ``bench_wide.py``'s RF-50 and rules); the XGBoost and
LightGBM ones need those libraries (``geco[bench]``).

``--base-search`` runs the base on another search than the head's: ``--base-search numpy
--search compiled`` against a revision from before the compiled search measures what it
changed as a whole, answers and CPU (the numpy reference of that revision against the head's
compiled search); its table goes to a section of its own.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from readme_table import revision, write_section  # noqa: E402

ROOTS = ("geco", "codegen", "plaf_grammar")
SETTINGS = {
    "adult-rf": ("adult", "rf100", "Adult RF-100"),
    "credit-xgb": ("credit", "xgb120x4", "Credit XGBoost 120x4"),
    "credit-rf": ("credit", "rf100", "Credit RF-100"),
    "adult-lgbm": ("adult", "lgbm200", "Adult LightGBM 200"),
    "adult-xgb": ("adult", "xgb120x4", "Adult XGBoost 120x4"),
    "credit-lgbm": ("credit", "lgbm200", "Credit LightGBM 200"),
    "adult-rf500": ("adult", "rf500", "Adult RF-500"),
    "credit-rf500": ("credit", "rf500", "Credit RF-500"),
    "credit-xgb500": ("credit", "xgb500x6", "Credit XGBoost 500x6"),
    "adult-xgb500": ("adult", "xgb500x6", "Adult XGBoost 500x6"),
    "credit-lgbm500": ("credit", "lgbm500x6", "Credit LightGBM 500x6"),
    "adult-lgbm500": ("adult", "lgbm500x6", "Adult LightGBM 500x6"),
    "wide": ("wide", "rf50", "wide table x 115, RF-50 depth 8"),
}


class Tree:
    """One source tree's packages, imported into this process under their own module entries."""

    def __init__(self, path: Path):
        self.path = path
        self.modules: dict[str, Any] = {}

    def enter(self) -> None:
        """Make this tree's modules the ones ``import`` finds."""
        for name in [k for k in sys.modules if k.split(".")[0] in ROOTS and k not in self.modules]:
            del sys.modules[name]
        sys.modules.update(self.modules)
        sys.path.insert(0, str(self.path))

    def leave(self) -> None:
        """Keep what this tree imported meanwhile (lazy imports included)."""
        sys.path.remove(str(self.path))
        self.modules = {k: v for k, v in sys.modules.items() if k.split(".")[0] in ROOTS}

    def load(self) -> Any:
        self.enter()
        try:
            import geco

            if not Path(geco.__file__).resolve().is_relative_to(self.path):
                raise RuntimeError(f"imported geco from {geco.__file__}, not from {self.path}")
            return geco
        finally:
            self.leave()


def answer(result: Any) -> str:
    """What must be equal for two explanations to be the same."""
    text = result.counterfactuals.to_csv() + repr((result.outcome, result.bound, result.gap, result.x_probability))
    return hashlib.sha1(text.encode()).hexdigest()


def quality(result: Any) -> dict[str, Any]:
    """What an explanation's quality is judged by: found or not, the best counterfactual's
    distance and features changed, the mean distance over the options returned, their count,
    and their distances in rank order (``ranked``)."""
    cfs = result.counterfactuals
    cfs = cfs[cfs["counterfactual"].astype(bool)] if len(cfs) else cfs
    if not result.success or len(cfs) == 0:
        return {"found": 0.0, "best": np.inf, "mean": np.inf, "options": 0.0, "changed": np.nan, "ranked": ()}
    d = cfs["distance"].to_numpy(dtype=float)
    return {"found": 1.0, "best": float(d.min()), "mean": float(d.mean()), "options": float(len(d)),
            "changed": float(cfs["n_changed"].iloc[0]), "ranked": tuple(d.tolist())}  # fmt: skip


def compare_quality(base: list[dict[str, Any]], head: list[dict[str, Any]]) -> dict[str, Any]:
    """Head's explanations against base's, row by row: found; rows whose best (mean over the
    options; mean over as many options as the one with fewer returns, ``shared``) distance is
    worse / better by more than 1e-9 relative, the largest ratio and the geometric mean ratio
    over rows both found; mean options and features changed. A version that finds more options
    returns farther ones too, which raise its mean but not its ``shared`` mean."""
    def shared(q: dict[str, Any], other: dict[str, Any]) -> float:
        m = min(len(q["ranked"]), len(other["ranked"]))
        return float(np.mean(q["ranked"][:m])) if m else np.inf

    b = {k: np.array([q[k] for q in base]) for k in base[0] if k != "ranked"}
    h = {k: np.array([q[k] for q in head]) for k in head[0] if k != "ranked"}
    b["shared"] = np.array([shared(qb, qh) for qb, qh in zip(base, head)])
    h["shared"] = np.array([shared(qh, qb) for qb, qh in zip(base, head)])
    both = (b["found"] > 0) & (h["found"] > 0)
    out: dict[str, Any] = {"found": (int(b["found"].sum()), int(h["found"].sum()))}
    for k in ("best", "mean", "shared"):
        ratio = h[k][both] / b[k][both] if both.any() else np.ones(1)
        out[k] = {"worse": int((ratio > 1 + 1e-9).sum()), "better": int((ratio < 1 - 1e-9).sum()),
                  "max": float(ratio.max()), "geo": float(np.exp(np.mean(np.log(ratio))))}  # fmt: skip
    for k in ("options", "changed"):
        out[k] = (float(np.nanmean(b[k][both])), float(np.nanmean(h[k][both]))) if both.any() else (np.nan, np.nan)
    return out


def bootstrap_median(ratios: np.ndarray, seed: int = 0, draws: int = 2000) -> tuple[float, float]:
    """A 90 % bootstrap interval of the median of ``ratios``."""
    rng = np.random.default_rng(seed)
    meds = np.median(rng.choice(ratios, size=(draws, len(ratios))), axis=1)
    return float(np.quantile(meds, 0.05)), float(np.quantile(meds, 0.95))


def workload(setting: str, head: Tree, wide_rows: int) -> tuple[Any, Any, Any]:
    """(model, X, constraints) of ``setting``, fitted with the head tree's code (the same fitted
    model then serves both trees)."""
    dataset, kind, _ = SETTINGS[setting]
    head.enter()
    sys.path.insert(0, str(HERE))
    try:
        if dataset == "wide":
            from bench_wide import model_for
            from make_wide import make_wide

            X, y, plaf = make_wide(wide_rows, 115)
            return model_for(X, y, 50, min(200_000, wide_rows)), X, plaf
        import bench_phases

        import geco

        data = getattr(geco.datasets, f"load_{dataset}")()
        return bench_phases.fitted(data, kind), data.X, data.constraints
    finally:
        sys.path.remove(str(HERE))
        head.leave()


def run_setting(setting: str, trees: dict[str, Tree], n: int, native: dict[str, bool], wide_rows: int,
                k: int = 5) -> dict[str, Any]:  # fmt: skip
    """Both trees on the first ``n`` undesired rows of ``setting`` (after three warm-up rows),
    ``k`` counterfactuals asked; ``native``: each tree's search (True: the compiled one)."""
    model, X, constraints = workload(setting, trees["head"], wide_rows)
    col = list(model.classes_).index(1)
    rows = np.flatnonzero(model.predict_proba(X.iloc[:5000])[:, col] <= 0.5)[: n + 3]
    explainers = {}
    for name, tree in trees.items():
        tree.enter()
        try:
            import geco

            ex = geco.Explainer(model, X, constraints=constraints, desired_class=1)
            for r in rows[:3]:
                ex.explain(X.iloc[[int(r)]], random_state=int(r), native=native[name], k=k)
            explainers[name] = ex
        finally:
            tree.leave()
    cpu: dict[str, list[float]] = {name: [] for name in trees}
    judged: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    same = 0
    for i, r in enumerate(rows[3:]):
        frame = X.iloc[[int(r)]]
        digests = {}
        for name in (("base", "head") if i % 2 == 0 else ("head", "base")):
            trees[name].enter()
            try:
                t0 = time.process_time()
                res = explainers[name].explain(frame, random_state=int(r), native=native[name], k=k)
                cpu[name].append(time.process_time() - t0)
            finally:
                trees[name].leave()
            digests[name] = answer(res)
            judged[name].append(quality(res))
        same += digests["base"] == digests["head"]
    base, new = np.array(cpu["base"]), np.array(cpu["head"])
    ratios = new / base
    lo, hi = bootstrap_median(ratios)
    return {
        "rows": len(ratios), "base_ms": 1e3 * float(np.median(base)), "head_ms": 1e3 * float(np.median(new)),
        "ratio": float(np.median(ratios)), "lo": lo, "hi": hi, "total": float(new.sum() / base.sum()), "same": same,
        "quality": compare_quality(judged["base"], judged["head"]),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="git revision of the version to compare against")
    ap.add_argument("--head", type=Path, default=HERE.parent, help="source tree under test (default: this checkout)")
    ap.add_argument("--settings", default="adult-rf,credit-xgb")
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--k", type=int, default=5, help="counterfactuals asked per explanation (the Explainer's default: 5)")
    ap.add_argument("--search", choices=("compiled", "numpy"), default="compiled")
    ap.add_argument("--base-search", choices=("compiled", "numpy"), default=None,
                    help="the base's search (default: --search)")
    ap.add_argument("--wide-rows", type=int, default=200_000, help="rows of the wide table (make_wide.py)")
    ap.add_argument("--no-readme", action="store_true", help="print the table only")
    args = ap.parse_args()
    for name in ("n", "k"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    unknown = sorted(set(args.settings.split(",")) - set(SETTINGS))
    if unknown:
        ap.error(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(SETTINGS)}")
    warnings.filterwarnings("ignore")
    head_path = args.head.resolve()
    with tempfile.TemporaryDirectory(prefix="geco-base-") as tmp:
        base_path = Path(tmp) / "tree"
        added = subprocess.run(["git", "-C", str(head_path), "worktree", "add", "--detach", str(base_path), args.base],
                               capture_output=True, text=True)  # fmt: skip
        if added.returncode != 0:
            ap.error(f"cannot check out --base {args.base!r}: {added.stderr.strip()}")
        try:
            base_rev = revision(base_path)
            trees = {"base": Tree(base_path), "head": Tree(head_path)}
            for tree in trees.values():
                tree.load()
            native = {"base": (args.base_search or args.search) == "compiled", "head": args.search == "compiled"}
            results = {s: run_setting(s, trees, args.n, native, args.wide_rows, args.k) for s in args.settings.split(",")}
        finally:
            subprocess.run(["git", "-C", str(head_path), "worktree", "remove", "--force", str(base_path)],
                           capture_output=True)  # fmt: skip
    lines = [
        "| setting | rows | base CPU ms (median) | head CPU ms (median) | head / base, paired median (90 % CI) | total ratio | same answers |",
        "|---|---|---|---|---|---|---|",
    ]
    for s, r in results.items():
        lines.append(
            f"| {SETTINGS[s][2]} | {r['rows']} | {r['base_ms']:.1f} | {r['head_ms']:.1f} | "
            f"{r['ratio']:.3f} ({r['lo']:.3f}-{r['hi']:.3f}) | {r['total']:.3f} | {r['same']}/{r['rows']} |"
        )
    lines += [
        "",
        "| setting | found base / head | best distance: rows worse / better (largest ratio) | mean distance of the options: "
        "rows worse / better (largest ratio), geometric mean ratio | the same over as many options as the fewer "
        "returns | options base / head | features changed (best) base / head |",
        "|---|---|---|---|---|---|---|",
    ]
    for s, r in results.items():
        q = r["quality"]
        lines.append(
            f"| {SETTINGS[s][2]} | {q['found'][0]} / {q['found'][1]} | {q['best']['worse']} / {q['best']['better']} "
            f"({q['best']['max']:.3f}) | {q['mean']['worse']} / {q['mean']['better']} ({q['mean']['max']:.3f}), "
            f"{q['mean']['geo']:.4f} | {q['shared']['worse']} / {q['shared']['better']} ({q['shared']['max']:.3f}), "
            f"{q['shared']['geo']:.4f} | {q['options'][0]:.2f} / {q['options'][1]:.2f} | "
            f"{q['changed'][0]:.2f} / {q['changed'][1]:.2f} |"
        )  # fmt: skip
    table = "\n".join(lines)
    print(table)
    if args.no_readme:
        return
    base_search = args.base_search or args.search
    searches = (f"{args.search} search" if base_search == args.search
                else f"the base's {base_search} search, the head's {args.search} search")  # fmt: skip
    body = (
        f"base = {base_rev}, head = {revision(head_path)}; {searches}, one process, the two "
        f"trees alternating row by row (seed = row), k = {args.k}, CPU seconds per explanation (every thread's)"
        + (f"; the wide table has {args.wide_rows:,} rows" if "wide" in results else "") + ".\n\n" + table
    )
    command = f"python benchmarks/bench_versions.py --base {args.base} --n {args.n} --k {args.k} --settings {args.settings}"
    command += f" --wide-rows {args.wide_rows}" if "wide" in results else ""
    title = "Versions" if args.k == 5 else f"Versions, k = {args.k}"
    command += " --search numpy" if args.search == "numpy" else ""
    if base_search != args.search:
        title += f", a {base_search} base against a {args.search} head"
        command += f" --base-search {base_search}"
    write_section(title, body, command)


if __name__ == "__main__":
    main()
