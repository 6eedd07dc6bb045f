"""GeCo's knobs: how q, m_mut, the distance's norm weights and the implications change quality
and time.

One knob varies at a time, the others at their defaults (q=100, m_mut=5, norm_weights 0.25 each,
the data set's full PLAF program). On ``--n`` undesired instances per data set and model:
success rate, features changed and l1 distance of the best counterfactual (the l1 measured the same
way for every setting, whatever distance the search minimised), violations of the full program
(without implications the search may break them), generations, candidates scored and seconds
per explanation (median, p90).

    python benchmarks/paper/hyperparams.py [--n 30] [--datasets adult,credit] [--models rf]
        [--knobs q,m_mut,norm,implications] [--tiny] [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import paper_setup as ps

import geco
import plaf_grammar
from geco.problem.distance import DistanceSpec

NORMS = {
    "l0": (1.0, 0.0, 0.0, 0.0), "l1": (0.0, 1.0, 0.0, 0.0), "l2": (0.0, 0.0, 1.0, 0.0),
    "linf": (0.0, 0.0, 0.0, 1.0), "mix": (0.25, 0.25, 0.25, 0.25),
}  # fmt: skip
#: (knob, label, options for explain(), whether the implications are kept)
SETTINGS = (
    [("q", str(q), {"q": q}, True) for q in (10, 25, 50, 100, 200)]
    + [("m_mut", str(m), {"m_mut": m}, True) for m in (1, 2, 5, 10)]
    + [("norm", name, {"norm_weights": w}, True) for name, w in NORMS.items()]
    + [("implications", "with", {}, True), ("implications", "without", {}, False)]
)


def without_implications(program: Path | str) -> str:
    """The program (a file, or PLAF text) minus its ``if ... then ...`` statements (one per line
    in the bundled programs and the wide table's)."""
    text = program.read_text() if isinstance(program, Path) else program
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("if "))


def run_setting(dataset, model_name, args) -> list[dict]:
    ds = ps.load_data(dataset, args.tiny)
    model = ps.fitted_model(dataset, model_name, args.tiny)
    rows = ps.undesired_rows(model, ds, args.n)
    program = plaf_grammar.load(ds.constraints, ds.X)
    explainers = {
        True: geco.Explainer(model, ds.X, ds.constraints, ds.desired_class),
        False: geco.Explainer(model, ds.X, without_implications(ds.constraints), ds.desired_class),
    }
    schema, names = explainers[True].schema, list(ds.X.columns)
    ranges, categorical = explainers[True].ranges, explainers[True].categorical
    out = []
    for knob, label, options, keep in SETTINGS:
        if knob not in args.knobs:
            continue
        ex = explainers[keep]
        rec = {"success": [], "changed": [], "l1": [], "violations": 0, "generations": [], "scored": [], "seconds": []}
        for r in rows:
            x = ds.X.iloc[[int(r)]]
            res, sec = ps.timed(ex.explain, x, random_state=int(r), **options)
            rec["seconds"].append(sec)
            rec["success"].append(bool(res.success))
            rec["generations"].append(res.stats.get("generations", 0))
            rec["scored"].append(res.stats.get("candidates_scored", 0))
            if res.success:
                best = res.counterfactuals.iloc[[0]][names]
                x_enc = schema.encode(x, what="x")[0]
                l1 = DistanceSpec(x_enc, ranges, categorical, NORMS["l1"])
                rec["l1"].append(float(l1(np.arange(len(x_enc)), schema.encode(best, what="cf"))[0]))
                rec["changed"].append(int(res.counterfactuals["n_changed"].iloc[0]))
                rec["violations"] += not plaf_grammar.holds(program, x, best)
        out.append({
            "dataset": dataset, "model": model_name, "knob": knob, "setting": label, "n": len(rows),
            "success": ps.mean(rec["success"]), "features_changed": ps.mean(rec["changed"]),
            "l1": ps.mean(rec["l1"]), "violations": rec["violations"],
            "generations": ps.mean(rec["generations"]), "candidates_scored": ps.mean(rec["scored"]),
            "seconds_median": ps.percentile(rec["seconds"], 50),
            "seconds_p90": ps.percentile(rec["seconds"], 90),
        })  # fmt: skip
    return out


HEADERS = ["data", "model", "knob", "setting", "n", "success %", "feat.chg", "l1", "viol.",
           "generations", "scored", "median ms", "p90 ms"]  # fmt: skip


def table_rows(results):
    return [[r["dataset"], r["model"], r["knob"], r["setting"], r["n"], ps.fmt(100 * r["success"], ".1f"),
             ps.fmt(r["features_changed"]), ps.fmt(r["l1"], ".3g"), r["violations"],
             ps.fmt(r["generations"], ".1f"), ps.fmt(r["candidates_scored"], ".0f"),
             ps.fmt(1000 * r["seconds_median"], ".0f"), ps.fmt(1000 * r["seconds_p90"], ".0f")]
            for r in results]  # fmt: skip


def plot(results):
    def draw(plt):
        knobs = list(dict.fromkeys(r["knob"] for r in results))
        fig, axes = plt.subplots(2, len(knobs), figsize=(3.4 * len(knobs), 6), squeeze=False)
        for j, knob in enumerate(knobs):
            for setting_name in dict.fromkeys(f"{r['dataset']} {r['model']}" for r in results):
                sel = [r for r in results if r["knob"] == knob and f"{r['dataset']} {r['model']}" == setting_name]
                labels = [r["setting"] for r in sel]
                axes[0, j].plot(labels, [r["features_changed"] for r in sel], "o-", label=setting_name)
                axes[1, j].plot(labels, [1000 * r["seconds_median"] for r in sel], "o-", label=setting_name)
            axes[0, j].set_title(knob)
            axes[0, j].set_ylabel("features changed")
            axes[1, j].set_ylabel("median ms")
        axes[0, 0].legend(fontsize=7)
        fig.suptitle("GeCo hyperparameters: quality and time")
        return fig

    return draw


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ps.common_arguments(ap, n=30, datasets="adult,credit", models="rf")
    knobs = list(dict.fromkeys(s[0] for s in SETTINGS))
    ap.add_argument("--knobs", default=",".join(knobs), help=f"comma-separated from {', '.join(knobs)}")
    args = ap.parse_args(argv)
    args.knobs = args.knobs.split(",")
    unknown = set(args.knobs) - set(knobs)
    if unknown:
        raise SystemExit(f"unknown knob(s) {sorted(unknown)}; choose from {', '.join(knobs)}")
    results = [r for dataset, model_name in ps.settings(args) for r in run_setting(dataset, model_name, args)]
    return ps.publish("hyperparams", HEADERS, table_rows(results), plot(results), args.out,
                      ps.command_line("hyperparams", argv), results=results)  # fmt: skip


if __name__ == "__main__":
    main()
