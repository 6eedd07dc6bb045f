"""GeCo paper, Sec. 6 (quality and speed): GeCo against WIT, SimCF, CERT and DiCE.

For each data set (Adult, Credit, COMPAS) and model (decision tree, random forest 100, MLP with 20
hidden units), explain ``--n`` instances the model scores undesired (a seeded random sample) with
the data set's PLAF program, by every system, all with the l1 distance (norm_weights=(0,1,0,0)).
Per system: success rate; valid rate (a counterfactual was found and the best one satisfies the
program, checked with plaf_grammar.holds); features changed and l1 distance of the best
counterfactual (mean over the system's own successes, and over the instances every system solved);
violations (successes whose best counterfactual breaks the program); seconds per explanation
(median, p90). The paper's published figures are printed beside ours.

    python benchmarks/paper/quality.py [--n 50] [--datasets adult,credit,compas] [--models dt,rf,mlp]
        [--systems GeCo,WIT,SimCF,CERT,DiCE] [--cert-generations 300] [--tiny] [--out DIR]
    python benchmarks/paper/quality.py --from-json benchmarks/paper/results/quality.json
    python benchmarks/paper/quality.py --from-json adult/quality.json credit/quality.json  # joined

Several saved runs (e.g. one process per data set, with ``--datasets`` and ``--out``) are joined into
one table when they ran the same systems.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import paper_setup as ps

import geco
import plaf_grammar
from geco.baselines import BASELINES

L1 = (0.0, 1.0, 0.0, 0.0)
SYSTEMS = ("GeCo", "WIT", "SimCF", "CERT", "DiCE")

#: the paper's figures (GeCo, VLDB 2021, Sec. 6): features changed in the best counterfactual
PAPER_FEATURES = {
    ("credit", "GeCo"): 1.27, ("credit", "MACE"): 3.39, ("credit", "WIT"): 3.97,
    ("credit", "CERT"): 3.15, ("credit", "SimCF"): 2.98, ("adult", "DiCE"): 5.3,
}  # fmt: skip
#: failure rates the paper reports (Adult)
PAPER_FAILURES = {("adult", "WIT"): "2.1%", ("adult", "CERT"): "2.1%", ("adult", "SimCF"): "1.5-2.4%"}
PAPER_NOTES = [
    "paper: GeCo explains in < 300 ms (median) on every data set and model",
    "paper: features changed on Credit - GeCo 1.27, MACE 3.39, WIT 3.97, CERT 3.15, SimCF 2.98",
    "paper: DiCE changes 5.3 features on Adult",
    "paper: WIT and CERT fail on 2.1% of Adult instances, SimCF on 1.5-2.4%",
]


def make_systems(names, model, ds, cert_generations):
    """System name -> (object with explain, seconds to build it)."""
    out = {}
    for name in names:
        t0 = time.perf_counter()
        if name == "GeCo":
            obj = geco.Explainer(model, ds.X, ds.constraints, ds.desired_class, norm_weights=L1)
        else:
            options = {"generations": cert_generations} if name == "CERT" else {}
            obj = BASELINES[name](model, ds.X, ds.constraints, ds.desired_class, norm_weights=L1, **options)
        out[name] = (obj, time.perf_counter() - t0)
    return out


def run_setting(dataset, model_name, args, systems):
    ds = ps.load_data(dataset, args.tiny)
    model = ps.fitted_model(dataset, model_name, args.tiny)
    rows = ps.undesired_rows(model, ds, args.n)
    program = plaf_grammar.load(ds.constraints, ds.X)
    built = make_systems(systems, model, ds, args.cert_generations)
    per = {s: {"success": [], "valid": [], "changed": [], "distance": [], "seconds": []} for s in systems}
    for r in rows:
        x = ds.X.iloc[[r]]
        for s, (obj, _) in built.items():
            res, sec = ps.timed(obj.explain, x, random_state=int(r))
            rec = per[s]
            rec["seconds"].append(sec)
            ok = bool(res.success)
            cfs = res.counterfactuals
            best = cfs[cfs["counterfactual"].astype(bool)].iloc[[0]] if ok else None
            rec["success"].append(ok)
            rec["valid"].append(ok and plaf_grammar.holds(program, x, best[list(ds.X.columns)]))
            rec["changed"].append(int(best["n_changed"].iloc[0]) if ok else None)
            rec["distance"].append(float(best["distance"].iloc[0]) if ok else None)
    build = {s: built[s][1] for s in systems}
    return summarise({"dataset": dataset, "model": model_name, "rows": rows.tolist(),
                      "build_seconds": build, "per_instance": per})  # fmt: skip


def summarise(setting: dict) -> dict:
    """Add the per-system summary to one setting's per-instance records (also used to re-render
    a saved JSON). "vs GeCo": on the instances both solved, how often the system's best
    counterfactual is nearer (l1) than GeCo's, as near (within 1e-12), or farther."""
    per, dataset = setting["per_instance"], setting["dataset"]
    systems = list(per)
    n = len(setting["rows"])
    solved_by_all = np.all([per[s]["success"] for s in systems], axis=0) if n else np.zeros(0, bool)
    common = np.flatnonzero(solved_by_all)
    summary = {}
    for s in systems:
        rec = per[s]
        succ = np.array(rec["success"], dtype=bool)
        valid = np.array(rec["valid"], dtype=bool)
        vs = {"better": 0, "equal": 0, "worse": 0}
        if s != "GeCo" and "GeCo" in per:
            for i in np.flatnonzero(succ & np.array(per["GeCo"]["success"], dtype=bool)):
                diff = rec["distance"][i] - per["GeCo"]["distance"][i]
                vs["better" if diff < -1e-12 else "worse" if diff > 1e-12 else "equal"] += 1
        summary[s] = {
            "n": n,
            "success": ps.mean(succ),
            "valid": ps.mean(valid),
            "violations": int(np.sum(succ & ~valid)),
            "features_changed": ps.mean([c for c in rec["changed"] if c is not None]),
            "l1": ps.mean([d for d in rec["distance"] if d is not None]),
            "features_changed_common": ps.mean([rec["changed"][i] for i in common]),
            "l1_common": ps.mean([rec["distance"][i] for i in common]),
            "l1_vs_geco": vs,
            "seconds_median": ps.percentile(rec["seconds"], 50),
            "seconds_p90": ps.percentile(rec["seconds"], 90),
            "build_seconds": setting.get("build_seconds", {}).get(s),
            "paper_features_changed": PAPER_FEATURES.get((dataset, s)),
            "paper_failure_rate": PAPER_FAILURES.get((dataset, s)),
        }
    setting["solved_by_all"] = int(solved_by_all.sum())
    setting["systems"] = summary
    return setting


def table_rows(results):
    rows = []
    for res in results:
        for s, m in res["systems"].items():
            rows.append([
                res["dataset"], res["model"], s, m["n"], ps.fmt(100 * m["success"], ".1f"),
                ps.fmt(100 * m["valid"], ".1f"), m["violations"], ps.fmt(m["features_changed"]),
                ps.fmt(m["features_changed_common"]), ps.fmt(m["l1"], ".3g"),
                ps.fmt(m["l1_common"], ".3g"), ps.fmt(1000 * m["seconds_median"], ".0f"),
                ps.fmt(1000 * m["seconds_p90"], ".0f"),
                "" if s == "GeCo" else "{better}/{equal}/{worse}".format(**m["l1_vs_geco"]),
                ps.fmt(m["paper_features_changed"]) if m["paper_features_changed"] else "",
                m["paper_failure_rate"] or "",
            ])  # fmt: skip
    return rows


HEADERS = ["data", "model", "system", "n", "success %", "valid %", "viol.", "feat.chg",
           "feat.chg (all solved)", "l1", "l1 (all solved)", "median ms", "p90 ms",
           "l1 vs GeCo (</=/>)", "paper feat.chg", "paper fail"]  # fmt: skip


def plot(results, systems):
    panels = [("features_changed", 1, "features changed (best counterfactual)", False),
              ("l1", 1, "l1 distance of the best counterfactual", True),
              ("seconds_median", 1000, "median ms per explanation", True)]  # fmt: skip

    def draw(plt):
        fig, axes = plt.subplots(1, len(panels), figsize=(17, 4.5))
        labels = [f"{r['dataset']}\n{r['model']}" for r in results]
        width = 0.8 / len(systems)
        xs = np.arange(len(results))
        for ax, (key, scale, label, log) in zip(axes, panels):
            for i, s in enumerate(systems):
                ax.bar(xs + i * width, [scale * r["systems"][s][key] for r in results], width, label=s)
            ax.set_ylabel(label)
            if log:
                ax.set_yscale("log")
            ax.set_xticks(xs + 0.4 - width / 2, labels, fontsize=8)
        axes[0].legend(fontsize=8)
        fig.suptitle("GeCo vs baselines (l1 distance, the data sets' PLAF programs; means over each system's successes)")
        return fig

    return draw


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ps.common_arguments(ap, n=50, datasets="adult,credit,compas", models="dt,rf,mlp")
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--cert-generations", type=int, default=300)
    ap.add_argument("--from-json", type=Path, nargs="+", help="re-render the table and PNG of saved runs (joined)")
    args = ap.parse_args(argv)
    if args.from_json:
        runs = [json.loads(path.read_text()) for path in args.from_json]
        systems = runs[0]["systems"]
        differing = [str(p) for p, run in zip(args.from_json, runs) if run["systems"] != systems]
        if differing:
            raise SystemExit(f"{', '.join(differing)}: ran other systems than {args.from_json[0]} ({systems})")
        results = [summarise(r) for run in runs for r in run["results"]]
        return report(results, systems, "; ".join(run["command"] for run in runs), args.out)
    systems = [s for s in args.systems.split(",") if s]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        raise SystemExit(f"unknown system(s) {unknown}; choose from {', '.join(SYSTEMS)}")
    if "DiCE" in systems:
        try:
            import dice_ml  # noqa: F401
        except ImportError:
            print("(dice-ml not installed: DiCE skipped; pip install 'geco-cf[compare]')")
            systems.remove("DiCE")
    results = []
    for dataset, model_name in ps.settings(args):
        t0 = time.perf_counter()
        results.append(run_setting(dataset, model_name, args, systems))
        print(f"[{dataset} {model_name}: {time.perf_counter() - t0:.0f} s]", file=sys.stderr, flush=True)
    return report(results, systems, ps.command_line("quality", argv), args.out)


def report(results: list[dict], systems: list[str], command: str, out: Path) -> dict:
    payload = ps.publish("quality", HEADERS, table_rows(results), plot(results, systems), out, command,
                         norm_weights=L1, systems=systems, results=results, paper=PAPER_NOTES)  # fmt: skip
    for note in PAPER_NOTES:
        print(note)
    return payload


if __name__ == "__main__":
    main()
