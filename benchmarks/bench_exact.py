"""Exact mode against brute force, and against the heuristic search, on Adult with the default
random forest (100 trees, depth 10).

For each undesired row: the brute-force optimum over every row changing one or two groups (each
to one of its feasible tuples; every required group among them), the program satisfied and the
class judged by the model's own ``predict_proba``; exact mode limited to the same rows
(``ExactBudget(max_groups=2)``) must reach the same distance; exact mode without a limit must
be at most as far; the heuristic search's first counterfactual beside them. Time is wall and CPU
(``time.process_time``) per explanation, end to end. Then the bound's share of a normal
explanation's time on Adult and Credit (the goal: under 10 %).

    python benchmarks/bench_exact.py [--rows 40] [--no-write]

A full run rewrites the table between the markers in benchmarks/README.md (section
"bench_exact.py"). ``tests/certify/test_exact_adult.py`` imports :func:`brute_force`.
"""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from readme_table import write_block  # noqa: E402

import geco  # noqa: E402
from geco.models import default_model  # noqa: E402
from geco.search.exact import ExactBudget  # noqa: E402

MARK_BEGIN = "<!-- bench_exact table: begin -->"
MARK_END = "<!-- bench_exact table: end -->"
#: rows scored by the model at once
BATCH = 50_000


def brute_force(problem, threshold: float = 0.5, max_groups: int = 2) -> float:
    """The smallest distance (``problem.distances``) of a row changing at most ``max_groups``
    groups that satisfies the program and that the model's own ``predict_proba`` puts above
    ``threshold`` (inf: none)."""
    required = tuple(int(g) for g in np.flatnonzero(problem.required))
    optional = [
        g for g in range(len(problem.spaces)) if g not in required and len(problem.spaces[g])
    ]
    if any(len(problem.spaces[g]) == 0 for g in required) or len(required) > max_groups:
        return float("inf")
    best = float("inf")
    for extra in range(max_groups - len(required) + 1):
        for more in itertools.combinations(optional, extra):
            groups = (*required, *more)
            if not groups:
                continue
            spaces = [problem.spaces[g] for g in groups]
            grid = np.meshgrid(*[np.arange(len(s)) for s in spaces], indexing="ij")
            rows = np.tile(problem.x, (grid[0].size, 1))
            for s, pick in zip(spaces, grid):
                rows[:, s.features] = s.values[pick.reshape(-1)]
            rows = rows[problem.satisfies(rows)]
            for start in range(0, len(rows), BATCH):
                part = rows[start : start + BATCH]
                hit = part[problem.model_proba(part) > threshold]
                if len(hit):
                    best = min(best, float(problem.distances(hit).min()))
    return best


def _timed(fn, *args, **kwargs):
    w, c = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - w, time.process_time() - c


def run(n_rows: int) -> str:
    data = geco.datasets.load_adult()
    model = default_model(data.X, data.y, cache=True)
    explainer = geco.Explainer(model, data.X, constraints=data.constraints, desired_class=1)
    p = model.predict_proba(data.X.iloc[:3000])[:, 1]
    rows = [int(r) for r in np.flatnonzero(p <= 0.5)[:n_rows]]
    rec = []
    for r in rows:
        x = data.X.iloc[[r]]
        bf = brute_force(explainer.problem(x))
        heur, hw, hc = _timed(explainer.explain, x, random_state=r, k=1)
        two, tw, tc = _timed(
            explainer.explain, x, random_state=r, k=1, exact=ExactBudget(max_groups=2)
        )
        full, fw, fc = _timed(explainer.explain, x, random_state=r, k=1, exact=True)

        def dist(e):
            return float(e.counterfactuals["distance"].iloc[0]) if e.success else float("inf")

        rec.append(
            (
                bf,
                dist(heur),
                dist(two),
                dist(full),
                hw,
                hc,
                tw,
                tc,
                fw,
                fc,
                full.gap,
                full.stats["exact"],
            )
        )
        print(f"row {r}: brute {bf:.5f} heur {dist(heur):.5f} exact2 {dist(two):.5f} exact {dist(full):.5f} "
              f"({hw:.3f} / {tw:.3f} / {fw:.3f} s) gap {full.gap}", flush=True)  # fmt: skip
    a = np.array([t[:10] for t in rec], dtype=np.float64)
    bf, heur, two, full = a[:, 0], a[:, 1], a[:, 2], a[:, 3]

    def same(u, v):
        return (np.isinf(u) & np.isinf(v)) | np.isclose(u, v, rtol=1e-9, atol=1e-12)

    agree = same(two, bf)
    not_farther = (full <= bf * (1 + 1e-9)) | np.isinf(bf)
    found = np.isfinite(full)
    closer = found & (heur > full * (1 + 1e-9))
    gap0 = sum(1 for t in rec if t[10] == 0.0)
    ratio = heur[found & np.isfinite(heur)] / full[found & np.isfinite(heur)]

    def ms(col):
        return f"{np.median(a[:, col]):.3f} / {np.percentile(a[:, col], 90):.3f}"

    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    name = next(
        (ln.split(":", 1)[1].strip() for ln in cpu.splitlines() if ln.startswith("Model name")), "?"
    )
    lines = [
        f"Adult, default random forest (100 trees, depth 10), bundled program, the first {len(rec)} undesired "
        f"rows among the first 3000; {name} (AVX-512: yes), 2 cores shared with other jobs (wall times noisy; CPU "
        "times beside them). Brute force: every row changing 1-2 groups, the model's own predict_proba.",
        "",
        "| what | value |",
        "| --- | ---: |",
        f"| rows | {len(rec)} |",
        f"| exact (max_groups=2) = brute force over 1-2 groups | {agree.sum()} / {len(rec)} ({100 * agree.mean():.0f} %) |",
        f"| exact (unlimited) at most the brute force's distance | {not_farther.sum()} / {len(rec)} |",
        f"| exact (unlimited) with gap 0.0 | {gap0} / {int(found.sum())} found |",
        f"| exact closer than the heuristic's #1 | {closer.sum()} / {int(found.sum())} |",
        f"| heuristic #1 distance / exact optimum (median, max) | {np.median(ratio):.3f}, {ratio.max():.3f} |",
        f"| seconds, heuristic search: median / p90 wall | {ms(4)} |",
        f"| seconds, exact max_groups=2 (search + branch and bound): median / p90 wall | {ms(6)} |",
        f"| seconds, exact unlimited: median / p90 wall | {ms(8)} |",
        f"| seconds, exact unlimited: median / p90 CPU | {ms(9)} |",
        f"| branch and bound alone (stats['exact']['seconds']): median / p90 | "
        f"{np.median([t[11]['seconds'] for t in rec]):.3f} / {np.percentile([t[11]['seconds'] for t in rec], 90):.3f} |",
        f"| sets of groups examined (nodes): median / max | {np.median([t[11]['nodes'] for t in rec]):.0f} / "
        f"{max(t[11]['nodes'] for t in rec)} |",
    ]
    return "\n".join(lines)


def versus_heuristic(n_rows: int) -> str:
    """Exact mode against the heuristic search's first counterfactual on Credit and Adult under
    bench_certify.py's strict program (default random forest; no brute force: Credit's amounts
    have thousands of values a group)."""
    import bench_certify

    lines = [
        "| data set | program | rows | both found | exact closer | heuristic / exact distance (median, max) | exact gap 0.0 | exact s: median / p90 wall | proven none: heuristic, exact |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, label in (("credit", "bundled"), ("adult", "strict"), ("credit", "strict")):
        data = geco.datasets.load_dataset(name)
        model = default_model(data.X, data.y, cache=True)
        col = list(model.classes_).index(data.desired_class)
        rows = np.flatnonzero(model.predict_proba(data.X.iloc[:3000])[:, col] <= 0.5)[:n_rows]
        program = Path(data.constraints).read_text()
        program += bench_certify.STRICT[name] if label == "strict" else ""
        explainer = geco.Explainer(model, data.X, program, desired_class=data.desired_class)
        heur, exact, secs, gaps = [], [], [], 0
        proven = [0, 0]
        for r in rows:
            x = data.X.iloc[[int(r)]]
            h = explainer.explain(x, random_state=int(r), k=1)
            e, wall, _ = _timed(explainer.explain, x, random_state=int(r), k=1, exact=True)
            secs.append(wall)
            proven[0] += h.outcome == "proven_none"
            proven[1] += e.outcome == "proven_none"
            gaps += e.gap == 0.0
            if h.success and e.success:
                heur.append(float(h.counterfactuals["distance"].iloc[0]))
                exact.append(float(e.counterfactuals["distance"].iloc[0]))
        hv, ev = np.array(heur), np.array(exact)
        ratio = hv / ev if len(ev) else np.array([np.nan])
        lines.append(
            f"| {name} | {label} | {len(rows)} | {len(ev)} | {int((hv > ev * (1 + 1e-9)).sum())} | "
            f"{np.median(ratio):.3f}, {ratio.max():.3f} | {gaps} | {np.median(secs):.3f} / "
            f"{np.percentile(secs, 90):.3f} | {proven[0]}, {proven[1]} |"
        )
        print(lines[-1], flush=True)
    return "\n".join(lines)


def _share(cert: np.ndarray, total: np.ndarray, mask: np.ndarray) -> str:
    return f"{100 * cert[mask].sum() / total[mask].sum():.1f} %" if mask.any() else "-"


def certificate_share(n_rows: int) -> str:
    """The bound's share of a normal explanation's time (``stats["seconds_certificate"]`` over
    ``stats["seconds_total"]``, summed), default random forest, on Adult and Credit under the
    bundled program and bench_certify.py's strict one."""
    import bench_certify

    lines = [
        "| data set | program | explanations | found | certificate share | share where found | share where none found | median ms / certificate |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in ("adult", "credit"):
        data = geco.datasets.load_dataset(name)
        model = default_model(data.X, data.y, cache=True)
        col = list(model.classes_).index(data.desired_class)
        rows = np.flatnonzero(model.predict_proba(data.X.iloc[:3000])[:, col] <= 0.5)[:n_rows]
        for label in ("bundled", "strict"):
            program = Path(data.constraints).read_text()
            program += bench_certify.STRICT[name] if label == "strict" else ""
            explainer = geco.Explainer(model, data.X, program, desired_class=data.desired_class)
            res = [explainer.explain(data.X.iloc[[int(r)]], random_state=int(r)) for r in rows]
            total = np.array([e.stats["seconds_total"] for e in res])
            cert = np.array([e.stats.get("seconds_certificate", 0.0) for e in res])
            none = np.array([e.outcome != "found" for e in res])

            lines.append(
                f"| {name} | {label} | {len(res)} | {int((~none).sum())} | {_share(cert, total, none | ~none)} | "
                f"{_share(cert, total, ~none)} | {_share(cert, total, none)} | {1000 * np.median(cert):.1f} |"
            )
            print(lines[-1], flush=True)
    return "\n".join(lines)


def write_readme(body: str) -> None:
    """Replace the table between this script's markers in benchmarks/README.md."""
    write_block(MARK_BEGIN, MARK_END, body, heading="bench_exact.py: exact mode against brute force")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=40, help="undesired Adult rows")
    ap.add_argument("--no-write", action="store_true", help="print only")
    ap.add_argument(
        "--versus-rows", type=int, default=15, help="rows per setting against the heuristic"
    )
    ap.add_argument(
        "--share-rows",
        type=int,
        default=30,
        help="undesired rows per data set for the bound's share",
    )
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    table = run(args.rows)
    print(table)
    versus = versus_heuristic(args.versus_rows) if args.versus_rows else ""
    table += (
        ""
        if not versus
        else (
            "\n\nExact mode against the heuristic search elsewhere (default random forest; "
            f"strict = bench_certify.py's strict program):\n\n{versus}"
        )
    )
    shares = certificate_share(args.share_rows)
    table += (
        "\n\nThe bound's cost in a normal explanation (no exact mode; default random forest; "
        "`seconds_certificate` over `seconds_total`, summed over the rows; strict = "
        "bench_certify.py's strict program, where many rows have no counterfactual and the "
        f"certificate runs branch and bound):\n\n{shares}"
    )
    print(f"({time.perf_counter() - t0:.0f} s)")
    if not args.no_write:
        write_readme(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
