"""The ``geco`` argument parser: every subcommand, its options and help."""

from __future__ import annotations

import argparse
from pathlib import Path

from geco.cli.commands import (
    cmd_check,
    cmd_data,
    cmd_explain,
    cmd_ir,
    cmd_report,
    cmd_serve,
    cmd_suggest,
)
from geco.cli.inputs import add_data_args, parse_range
from geco.cli.status import DATASET_NAMES, ENGINE_NAMES

__all__ = ["build_parser"]

EXPLAIN_EPILOG = """exit status: 0 counterfactuals found (or the row already has the desired class),
3 no counterfactual found (the reason is printed), 4 proven that none exists within the rules,
1 invalid constraints, 2 bad usage or data,
130 interrupted (Ctrl-C; a batch keeps the rows it finished: --resume goes on)"""



def seed_value(text: str) -> int:
    """``--seed``: a non-negative integer (numpy's seeds), named in argparse's error otherwise."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    from geco import __version__

    parser = argparse.ArgumentParser(
        prog="geco", description="Counterfactual explanations in real time (GeCo)."
    )
    parser.add_argument("--version", action="version", version=f"geco {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser(
        "explain", help="explain a row (or a batch with --rows / --all-undesired): the smallest "
        "feasible changes that flip the model's decision",
        description="Explain a row (or a batch): the smallest changes the rules allow that give it the "
        "desired class.", epilog=EXPLAIN_EPILOG,
    )  # fmt: skip
    add_data_args(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--row", type=int, help="row index of the instance (default: the first row "
                       "the model does not score as the desired class)")  # fmt: skip
    which.add_argument("--rows", help="a batch: row numbers and start:stop ranges, e.g. 0:1000 or 3,7,20:30")
    which.add_argument("--all-undesired", action="store_true", dest="all_undesired",
                       help="a batch: every row the model does not score as the desired class")  # fmt: skip
    p.add_argument("--model", type=Path, help="a fitted classifier saved with joblib (trusted file)")
    p.add_argument("--constraints", type=Path, help="a .plaf file (default: the data set's)")
    p.add_argument("--engine", default="auto", choices=ENGINE_NAMES)
    p.add_argument("--k", type=int, help="number of counterfactuals (default 5)")
    p.add_argument("--q", type=int, help="population size (default 100)")
    p.add_argument("--max-generations", type=int, dest="max_generations")
    p.add_argument("--time-budget", type=float, dest="time_budget", metavar="SECONDS",
                   help="stop each explanation's search after this many seconds, with the best so far")
    p.add_argument("--exact", action="store_true", help="branch and bound to the closest "
                   "counterfactual within the rules after the search (gap 0.0 = proven optimal; "
                   "--time-budget bounds it too)")  # fmt: skip
    p.add_argument("--threshold", type=float, help="the desired class's probability cutoff: "
                   "a counterfactual has p > THRESHOLD (default 0.5)")  # fmt: skip
    p.add_argument("--desired-range", type=parse_range, dest="desired_range", metavar="LO:HI",
                   help="regression: a counterfactual's prediction lies in [LO, HI] (e.g. "
                   "250000:300000; the --target column is then the predicted number)")  # fmt: skip
    p.add_argument("--seed", type=seed_value, default=0, help="random seed, a non-negative integer (default 0)")
    p.add_argument("--json", action="store_true", help="print the result as JSON (a batch: JSON "
                   "Lines, readable by geco report)")  # fmt: skip
    p.add_argument("--out", type=Path, help="write the results to a .jsonl (for geco report), .csv "
                   "or .parquet file (one row per counterfactual)")  # fmt: skip
    p.add_argument("--n-jobs", type=int, default=1, dest="n_jobs",
                   help="worker processes for a batch (default 1; -1: every core)")  # fmt: skip
    p.add_argument("--backend", choices=("loky", "dask"), default="loky",
                   help="local processes (default) or a Dask cluster (needs geco-cf[dask])")  # fmt: skip
    p.add_argument("--scheduler", help="address of a Dask scheduler (--backend dask; default: a "
                   "local cluster of --n-jobs workers)")  # fmt: skip
    p.add_argument("--no-progress", action="store_true", dest="no_progress",
                   help="no progress bar (it shows only in a terminal anyway)")  # fmt: skip
    p.add_argument("--limit", type=int, metavar="N", help="a batch: explain only its first N rows")
    p.add_argument("--resume", action="store_true", help="a batch with --out (.jsonl or .csv): "
                   "skip the rows already in the file and append the rest, as one run would")  # fmt: skip
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("check", help="check a .plaf file against a data set and ground it on a row")
    p.add_argument("file", type=Path)
    add_data_args(p)
    p.add_argument("--row", type=int, default=0)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("ir", help="print the LLVM IR of the model specialised to a row and a Δ")
    add_data_args(p)
    p.add_argument("--row", type=int, default=0)
    p.add_argument("--model", type=Path)
    p.add_argument("--delta", required=True, help="comma-separated features left free")
    p.add_argument("--desired-range", type=parse_range, dest="desired_range", metavar="LO:HI",
                   help="regression: the model's prediction is compiled (a range, as for explain)")  # fmt: skip
    p.add_argument("--optimized", action="store_true", help="after LLVM's optimisation passes")
    p.add_argument("--asm", action="store_true", help="host assembly instead of IR")
    p.set_defaults(func=cmd_ir)

    p = sub.add_parser("report", help="write a self-contained HTML report for a batch of explanations")
    p.add_argument("results", type=Path, help="JSON Lines file, one explanation per line "
                   "(geco.result.write_jsonl; an optional first line {\"geco_meta\": {...}})")  # fmt: skip
    p.add_argument("-o", "--output", type=Path, help="the HTML file (default: RESULTS with .html)")
    p.add_argument("--title", help="the report's title")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("suggest", help="draft a commented PLAF program from the laws the data obeys")
    add_data_args(p)
    p.add_argument("--entity", help="column naming who each row is about (finds values that never change)")
    p.add_argument("--constraints", type=Path, help="the .plaf the draft will be added to (what it "
                   "states already or cannot take is commented)")  # fmt: skip
    p.add_argument("-o", "--output", type=Path, help="the draft .plaf file (default: print it)")
    p.set_defaults(func=cmd_suggest)

    p = sub.add_parser("serve", help="an HTTP decision service over a saved Explainer (geco-cf[serve])")
    p.add_argument("explainer", type=Path, help="a file written by Explainer.save (trusted: a pickle)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--max-rows", type=int, default=100, dest="max_rows", help="rows per request (default 100)")
    p.add_argument("--max-body", type=int, default=1_000_000, dest="max_body",
                   help="request body bytes (default 1000000)")  # fmt: skip
    p.add_argument("--keys", type=Path, help="a JSON keys file: key -> id, scopes, budget (default: open)")
    p.add_argument("--access-log", dest="access_log", help="file for the JSON-lines access log (default stderr)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("data", help="describe a bundled data set",
                       description="Describe a bundled data set: its source and licence, rows, the favourable "
                       "class and each column's kind and range or categories.")  # fmt: skip
    p.add_argument("name", nargs="?", choices=DATASET_NAMES, metavar="NAME",
                   help=f"the data set ({', '.join(DATASET_NAMES)}); the same as --dataset")  # fmt: skip
    p.add_argument("--dataset", choices=DATASET_NAMES, default=None)
    p.set_defaults(func=cmd_data)
    return parser
