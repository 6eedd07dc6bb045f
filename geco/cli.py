"""``geco`` command line: explain a row or a batch of rows, check a .plaf file, inspect
generated IR, show data, report on a batch of explanations.

Exit status (every command):

* 0 - success; for ``explain``: counterfactuals found, or the row already has the desired class
* 3 - ``explain`` found no counterfactual (the printed reason says why)
* 4 - ``explain`` proved that no counterfactual exists within the rules (the reason gives the bound)
* 1 - the constraints are not a valid PLAF program (the message names file, line and column)
* 2 - bad usage or data: unknown option, missing file, a row out of range, a model that cannot
  score the data
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from geco.datasets import DATASETS

__all__ = ["EXIT_BAD_CONSTRAINTS", "EXIT_BAD_USAGE", "EXIT_NOT_FOUND", "EXIT_OK", "EXIT_PROVEN_NONE", "main"]

EXIT_OK = 0
EXIT_BAD_CONSTRAINTS = 1
EXIT_BAD_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_PROVEN_NONE = 4

EXPLAIN_EPILOG = """exit status: 0 counterfactuals found (or the row already has the desired class),
3 no counterfactual found (the reason is printed), 4 proven that none exists within the rules,
1 invalid constraints, 2 bad usage or data"""


class CLIError(Exception):
    """A user error the CLI reports in one line (exit status ``EXIT_BAD_USAGE``)."""


def _add_data_args(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--dataset", choices=sorted(DATASETS), help="a bundled data set")
    src.add_argument("--data", type=Path, help="a CSV file with a header row")
    p.add_argument("--target", help="label column of --data (removed from the features)")
    p.add_argument("--desired-class", help="favourable label (default: the data set's, else 1)")


def _load_data(args: argparse.Namespace):
    """(X, y, desired_class, default constraints path, name) from --dataset or --data."""
    from geco import datasets

    if args.data is not None:
        if not args.data.exists():
            raise CLIError(f"{args.data}: no such file")
        try:
            df = pd.read_csv(args.data)
        except Exception as exc:
            raise CLIError(f"{args.data}: cannot read CSV ({exc})") from exc
        if args.target is None:
            raise CLIError("--data needs --target (the label column)")
        if args.target not in df.columns:
            raise CLIError(f"--target {args.target!r} is not a column of {args.data} ({list(df.columns)})")
        y = df.pop(args.target)
        for c in df.columns:
            if df[c].dtype == object or pd.api.types.is_string_dtype(df[c].dtype):
                df[c] = df[c].astype("category")
        desired = _parse_label(args.desired_class, y) if args.desired_class is not None else 1
        return df, y, desired, None, str(args.data)
    ds = datasets.load_dataset(args.dataset or "adult")
    desired = ds.desired_class if args.desired_class is None else _parse_label(args.desired_class, ds.y)
    return ds.X, ds.y, desired, ds.constraints, ds.name


def _parse_label(text: str, y: pd.Series) -> Any:
    for v in pd.unique(y):
        if str(v) == text:
            return v.item() if isinstance(v, np.generic) else v
    raise CLIError(f"--desired-class {text!r} is not a label in the data ({sorted(map(str, pd.unique(y)))})")


def _load_model(args, X, y):
    from geco.models import default_model

    if args.model is None:
        t0 = time.perf_counter()
        model = default_model(X, y, cache=args.data is None)  # bundled data: fit once, then load
        print(
            f"(default model: random forest, 100 trees, depth 10, one-hot encoding; "
            f"{time.perf_counter() - t0:.1f} s)",
            file=sys.stderr,
        )
        return model
    if not args.model.exists():
        raise CLIError(f"{args.model}: no such file")
    import joblib  # ships with scikit-learn

    try:
        return joblib.load(args.model)  # a pickle: only load files you trust
    except Exception as exc:
        raise CLIError(f"{args.model}: cannot load model ({type(exc).__name__}: {exc})") from exc


def _row(args, X: pd.DataFrame) -> pd.DataFrame:
    if not 0 <= args.row < len(X):
        raise CLIError(f"--row {args.row} is out of range (the data has {len(X)} rows)")
    return X.iloc[[args.row]]


def cmd_explain(args: argparse.Namespace) -> int:
    from geco import Explainer

    batch = args.rows is not None or args.all_undesired
    out_format = _out_format(args.out) if args.out is not None else None  # fail before the work
    if not batch and (args.n_jobs != 1 or args.backend != "loky" or args.scheduler):
        raise CLIError("--n-jobs, --backend and --scheduler need a batch: --rows or --all-undesired")
    if args.scheduler is not None and args.backend != "dask":
        raise CLIError("--scheduler needs --backend dask")
    if args.backend == "dask" and importlib.util.find_spec("distributed") is None:
        raise CLIError("--backend dask needs dask.distributed: pip install 'geco[dask]'")
    X, y, desired, default_constraints, name = _load_data(args)
    constraints = args.constraints if args.constraints is not None else default_constraints
    rows = _parse_rows(args.rows, len(X)) if args.rows is not None else None
    model = _load_model(args, X, y)
    options = {k: getattr(args, k) for k in ("k", "q", "max_generations") if getattr(args, k) is not None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        explainer = Explainer(model, X, constraints, desired_class=desired, engine=args.engine, **options)
    for w in caught:
        if issubclass(w.category, UserWarning):
            print(f"geco: warning: {w.message}", file=sys.stderr)
    print(f"(engine: {explainer.engine_reason})", file=sys.stderr)
    if batch:
        if rows is None:
            rows = _undesired_rows(explainer)
        meta = {
            "dataset": f"{name} ({len(X)} rows; {len(rows)} explained)",
            "model": str(args.model) if args.model is not None else "default random forest",
            "engine": explainer.engine,
            "constraints_file": str(constraints) if constraints else "",
            "plaf": Path(constraints).read_text(encoding="utf-8") if constraints else "",
        }
        return _explain_batch(args, explainer, X.iloc[rows], out_format, meta)
    if args.row is None:
        args.row = _first_undesired(explainer)
        print(f"(--row not given: row {args.row} is the first the model does not score "
              f"{desired!r})", file=sys.stderr)
    result = explainer.explain(_row(args, X), random_state=args.seed)
    if out_format is not None:
        _write_results([result], args.out, out_format, {"engine": explainer.engine})
        print(f"wrote {args.out}", file=sys.stderr)
    elif args.json:
        print(result.to_json(indent=2))
    else:
        print(f"{name}, row {args.row}; constraints: {constraints or 'none'}")
        print(result)
    already_desired = result.x_probability > explainer.config.threshold
    if result.success or already_desired:
        return EXIT_OK
    return EXIT_PROVEN_NONE if result.outcome == "proven_none" else EXIT_NOT_FOUND


_OUT_FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".parquet": "parquet"}


def _out_format(path: Path) -> str:
    fmt = _OUT_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise CLIError(f"--out {path}: the name must end in {', '.join(_OUT_FORMATS)}")
    if fmt == "parquet" and importlib.util.find_spec("pyarrow") is None:
        raise CLIError(f"--out {path}: writing Parquet needs pyarrow (pip install pyarrow); "
                       "or write .csv or .jsonl")  # fmt: skip
    if not path.parent.is_dir():
        raise CLIError(f"--out {path}: no such directory {path.parent}")
    return fmt


def _parse_rows(spec: str, n: int) -> list[int]:
    """``--rows``: comma-separated row numbers and ``start:stop`` ranges (Python slices: stop
    excluded, either end may be left out), e.g. ``0:1000`` or ``3,7,20:30``."""
    rows: list[int] = []
    for part in (p.strip() for p in spec.split(",")):
        try:
            if ":" in part:
                start, _, stop = part.partition(":")
                r = range(n)[slice(int(start) if start else None, int(stop) if stop else None)]
                rows.extend(r)
            elif part:
                i = int(part)
                if not 0 <= i < n:
                    raise CLIError(f"--rows: row {i} is out of range (the data has {n} rows)")
                rows.append(i)
        except ValueError:
            raise CLIError(f"--rows {spec!r}: {part!r} is not a row number or a start:stop range") from None
    if not rows:
        raise CLIError(f"--rows {spec!r} selects no row (the data has {n} rows)")
    return rows


def _undesired_rows(explainer) -> list[int]:
    """Every row the model does not already score as the desired class."""
    threshold = explainer.config.threshold
    rows: list[int] = []
    for start in range(0, len(explainer.table), 5000):
        p = explainer.blackbox.predict(explainer.table.take(slice(start, start + 5000)))
        rows.extend(start + np.flatnonzero(p <= threshold))
    if not rows:
        raise CLIError("the model scores every row as the desired class: nothing to explain")
    return [int(r) for r in rows]


def _explain_batch(args, explainer, X: pd.DataFrame, out_format: str | None, meta: dict) -> int:
    from geco.batch import iter_explain, shutdown_pool

    client = None
    if args.scheduler is not None:
        from distributed import Client

        client = Client(args.scheduler)
    t0 = time.perf_counter()
    results = iter_explain(
        explainer, X, n_jobs=args.n_jobs, backend=args.backend, progress=not args.no_progress,
        random_state=args.seed, client=client,
    )  # fmt: skip
    done = {"rows": 0, "found": 0, "failed": 0}  # for the summary line

    def counted():
        for e in results:
            done["rows"] += 1
            done["found"] += e.success
            done["failed"] += "error" in e.stats
            yield e

    try:
        if out_format is not None:
            _write_results(counted(), args.out, out_format, meta)
        elif args.json:
            from geco.result import write_jsonl

            write_jsonl(counted(), sys.stdout, meta=meta)
        else:
            for row, result in zip(X.index, counted()):
                print(f"row {row}:\n{result}\n")
        sys.stdout.flush()
    finally:
        results.close()  # a reader that went away (| head): cancel what is queued
        shutdown_pool(kill=done["rows"] < len(X))
        if client is not None:
            client.close()
    if out_format is not None:
        print(f"wrote {args.out}: {done['rows']} rows, {done['found']} with counterfactuals, "
              f"{done['failed']} failed ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)  # fmt: skip
    return 0


def _write_results(results, path: Path, fmt: str, meta: dict) -> None:
    from geco.batch import explanations_frame
    from geco.result import write_jsonl

    if fmt == "jsonl":
        write_jsonl(results, path, meta=meta)  # streamed: a partial file is still readable
    elif fmt == "csv":  # streamed in groups of rows, the header once
        with open(path, "w", encoding="utf-8", newline="") as fh:
            group: list = []
            header = True
            for e in itertools.chain(results, [None]):  # None: flush the last group
                if e is not None:
                    group.append(e)
                if group and (e is None or len(group) == 256):
                    explanations_frame(group).to_csv(fh, index=False, header=header)
                    group, header = [], False
    else:
        explanations_frame(list(results)).to_parquet(path, index=False)


def _first_undesired(explainer) -> int:
    """Index of the first row the model does not already score as the desired class."""
    threshold = explainer.config.threshold
    for start in range(0, len(explainer.table), 2000):
        p = explainer.blackbox.predict(explainer.table.take(slice(start, start + 2000)))
        hits = np.flatnonzero(p <= threshold)
        if len(hits):
            return start + int(hits[0])
    raise CLIError("the model scores every row as the desired class: nothing to explain")


def cmd_check(args: argparse.Namespace) -> int:
    import plaf_grammar

    X, _, _, _, _ = _load_data(args)
    program = plaf_grammar.load(args.file, X)
    print(f"{args.file}: OK ({len(program.groups)} groups)")
    print("groups:")
    for i, g in enumerate(program.groups):
        print(f"  {i:>2}: {', '.join(g)}")
    row = _row(args, X)
    ground = program.ground(row.iloc[0])
    print(f"grounded on row {args.row}:")
    print("  " + str(ground).replace("\n", "\n  "))
    return EXIT_OK


def cmd_ir(args: argparse.Namespace) -> int:
    from geco import Explainer

    X, y, desired, _, _ = _load_data(args)
    model = _load_model(args, X, y)
    explainer = Explainer(model, X, None, desired_class=desired, engine="auto")
    delta = [d.strip() for d in args.delta.split(",") if d.strip()]
    if not delta:
        raise CLIError("--delta needs at least one feature name")
    text = explainer.ir(_row(args, X), delta, optimized=args.optimized or args.asm)
    if args.asm:
        from codegen import emit_assembly

        text = emit_assembly(text)
    print(text)
    return EXIT_OK


def cmd_data(args: argparse.Namespace) -> int:
    from geco import datasets

    ds = datasets.load_dataset(args.dataset)
    print(ds.summary())
    print(f"\nexample constraints: {ds.constraints}")
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from geco.report import report
    from geco.result import read_jsonl

    if not args.results.is_file():
        raise CLIError(f"{args.results}: no such file")
    explanations, meta = read_jsonl(args.results)  # ValueError names the bad line
    if not explanations:
        raise CLIError(f"{args.results}: no explanations in the file")
    out = args.output if args.output is not None else args.results.with_suffix(".html")
    if out.resolve() == args.results.resolve():
        raise CLIError(f"the report would overwrite its input {args.results}; give -o")
    extra = {"title": args.title} if args.title else {}
    try:
        report(explanations, out, **{**meta, **extra})
    except ImportError as exc:
        raise CLIError(str(exc)) from exc
    print(f"wrote {out} ({len(explanations)} instances, {out.stat().st_size / 1e3:.0f} kB)")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    from codegen import ENGINES
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
    _add_data_args(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--row", type=int, help="row index of the instance (default: the first row "
                       "the model does not score as the desired class)")  # fmt: skip
    which.add_argument("--rows", help="a batch: row numbers and start:stop ranges, e.g. 0:1000 or 3,7,20:30")
    which.add_argument("--all-undesired", action="store_true", dest="all_undesired",
                       help="a batch: every row the model does not score as the desired class")  # fmt: skip
    p.add_argument("--model", type=Path, help="a fitted classifier saved with joblib (trusted file)")
    p.add_argument("--constraints", type=Path, help="a .plaf file (default: the data set's)")
    p.add_argument("--engine", default="auto", choices=ENGINES)
    p.add_argument("--k", type=int, help="number of counterfactuals (default 5)")
    p.add_argument("--q", type=int, help="population size (default 100)")
    p.add_argument("--max-generations", type=int, dest="max_generations")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--json", action="store_true", help="print the result as JSON (a batch: JSON "
                   "Lines, readable by geco report)")  # fmt: skip
    p.add_argument("--out", type=Path, help="write the results to a .jsonl (for geco report), .csv "
                   "or .parquet file (one row per counterfactual)")  # fmt: skip
    p.add_argument("--n-jobs", type=int, default=1, dest="n_jobs",
                   help="worker processes for a batch (default 1; -1: every core)")  # fmt: skip
    p.add_argument("--backend", choices=("loky", "dask"), default="loky",
                   help="local processes (default) or a Dask cluster (needs geco[dask])")  # fmt: skip
    p.add_argument("--scheduler", help="address of a Dask scheduler (--backend dask; default: a "
                   "local cluster of --n-jobs workers)")  # fmt: skip
    p.add_argument("--no-progress", action="store_true", dest="no_progress",
                   help="no progress bar (it shows only in a terminal anyway)")  # fmt: skip
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("check", help="check a .plaf file against a data set and ground it on a row")
    p.add_argument("file", type=Path)
    _add_data_args(p)
    p.add_argument("--row", type=int, default=0)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("ir", help="print the LLVM IR of the model specialised to a row and a Δ")
    _add_data_args(p)
    p.add_argument("--row", type=int, default=0)
    p.add_argument("--model", type=Path)
    p.add_argument("--delta", required=True, help="comma-separated features left free")
    p.add_argument("--optimized", action="store_true", help="after LLVM's optimisation passes")
    p.add_argument("--asm", action="store_true", help="host assembly instead of IR")
    p.set_defaults(func=cmd_ir)

    p = sub.add_parser("report", help="write a self-contained HTML report for a batch of explanations")
    p.add_argument("results", type=Path, help="JSON Lines file, one explanation per line "
                   "(geco.result.write_jsonl; an optional first line {\"geco_meta\": {...}})")  # fmt: skip
    p.add_argument("-o", "--output", type=Path, help="the HTML file (default: RESULTS with .html)")
    p.add_argument("--title", help="the report's title")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("data", help="describe a bundled data set")
    p.add_argument("--dataset", choices=sorted(DATASETS), default="adult")
    p.set_defaults(func=cmd_data)
    return parser


def main(argv: list[str] | None = None) -> int:
    from codegen import UnsupportedModel as UnsupportedModelError
    from plaf_grammar import PLAFError, SchemaError

    args = build_parser().parse_args(argv)
    try:
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return status
    except BrokenPipeError:
        _silence_stdout()
        return 141  # as a command killed by SIGPIPE
    except PLAFError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_CONSTRAINTS
    except (CLIError, SchemaError, UnsupportedModelError, ValueError, TypeError, OSError) as exc:
        print(f"geco: error: {exc}", file=sys.stderr)
        return EXIT_BAD_USAGE


def _silence_stdout() -> None:
    """The reader of stdout went away (``geco explain ... | head``): send what is still buffered
    to /dev/null, so Python's flush at exit does not print a BrokenPipeError."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (tests)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
