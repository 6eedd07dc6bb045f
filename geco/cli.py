"""``geco`` command line: explain a row or a batch of rows, check a .plaf file, inspect
generated IR, show data, report on a batch of explanations.

Exit status (every command):

* 0 - success; for ``explain``: counterfactuals found, or the row already has the desired class
* 3 - ``explain`` found no counterfactual (the printed reason says why)
* 4 - ``explain`` proved that no counterfactual exists within the rules (the reason gives the bound)
* 1 - the constraints are not a valid PLAF program (the message names file, line and column)
* 2 - bad usage or data: unknown option, missing file, a row out of range, a model that cannot
  score the data
* 130 - interrupted (Ctrl-C); a batch written with ``--out`` keeps every finished row and
  ``--resume`` explains the rest
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import sys
import time
import warnings
from pathlib import Path
from typing import Any

# Heavy modules (numpy, pandas, scikit-learn, llvmlite, geco.explainer) are imported by the
# commands that use them, so that ``geco --help`` and a bad option answer at once.

__all__ = [
    "DATASET_NAMES", "ENGINE_NAMES", "EXIT_BAD_CONSTRAINTS", "EXIT_BAD_USAGE", "EXIT_INTERRUPTED",
    "EXIT_NOT_FOUND", "EXIT_OK", "EXIT_PROVEN_NONE", "main",
]  # fmt: skip

EXIT_OK = 0
EXIT_BAD_CONSTRAINTS = 1
EXIT_BAD_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_PROVEN_NONE = 4
EXIT_INTERRUPTED = 130  # as a shell reports a command stopped by Ctrl-C (SIGINT)

#: the bundled data sets (``geco.datasets.DATASETS``) and the engines (``codegen.ENGINES``),
#: named here so that building the parser imports neither (a test keeps them equal)
DATASET_NAMES: tuple[str, ...] = ("adult", "compas", "credit")
ENGINE_NAMES: tuple[str, ...] = ("auto", "jit", "numpy", "blackbox")

EXPLAIN_EPILOG = """exit status: 0 counterfactuals found (or the row already has the desired class),
3 no counterfactual found (the reason is printed), 4 proven that none exists within the rules,
1 invalid constraints, 2 bad usage or data,
130 interrupted (Ctrl-C; a batch keeps the rows it finished: --resume goes on)"""


class CLIError(Exception):
    """A user error the CLI reports in one line (exit status ``EXIT_BAD_USAGE``)."""


def _add_data_args(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--dataset", choices=DATASET_NAMES, help="a bundled data set")
    src.add_argument("--data", type=Path, help="a CSV file with a header row")
    p.add_argument("--target", help="label column of --data (removed from the features)")
    p.add_argument("--desired-class", help="favourable label (default: the data set's, else 1)")
    p.add_argument("--dropna", action="store_true", help="drop the data's rows with missing values "
                   "(rows keep their numbers; explaining a dropped row is an error)")  # fmt: skip


def _load_data(args: argparse.Namespace):
    """(X, y, desired_class, default constraints path, name) from --dataset or --data. Rows with
    a missing value are refused (naming the first few), or dropped with ``--dropna`` (the rows
    keep their numbers: ``--row``/``--rows`` count the data as given)."""
    import pandas as pd

    from geco import datasets

    if args.data is not None:
        if not args.data.exists():
            raise CLIError(f"{args.data}: no such file")
        _refuse_duplicate_header(args.data)
        try:
            df = pd.read_csv(args.data)
        except Exception as exc:
            raise CLIError(f"{args.data}: cannot read CSV ({exc})") from exc
        if args.target is None:
            raise CLIError("--data needs --target (the label column)")
        if args.target not in df.columns:
            raise CLIError(f"--target {args.target!r} is not a column of {args.data} ({list(df.columns)})")
        y = df.pop(args.target)
        df, y = _without_missing(df, y, args, str(args.data))
        for c in df.columns:
            if df[c].dtype == object or pd.api.types.is_string_dtype(df[c].dtype):
                df[c] = df[c].astype("category")
        desired = _parse_label(args.desired_class, y) if args.desired_class is not None else 1
        return df, y, desired, None, str(args.data)
    ds = datasets.load_dataset(args.dataset or "adult")
    X, y = _without_missing(ds.X, ds.y, args, ds.name)
    desired = ds.desired_class if args.desired_class is None else _parse_label(args.desired_class, y)
    return X, y, desired, ds.constraints, ds.name


def _refuse_duplicate_header(path: Path) -> None:
    """pandas renames a repeated column name (``a``, ``a.1``): refuse the file instead."""
    import csv

    try:
        with open(path, encoding="utf-8", newline="") as fh:
            header = next(csv.reader(fh), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return  # pandas says what is wrong with the file
    seen: set[str] = set()
    dup = [name for name in header if name in seen or seen.add(name)]
    if dup:
        raise CLIError(f"{path}: duplicate column name(s) {sorted(set(dup))} in the header; "
                       "give each column its own name")  # fmt: skip


def _without_missing(X, y, args: argparse.Namespace, name: str):
    """``(X, y)`` when no value is missing; else, with ``--dropna``, both without those rows
    (the rest keep their labels), else a CLIError naming the first few rows and the columns."""
    missing = (X.isna().any(axis=1) | y.isna()).to_numpy()
    if not missing.any():
        return X, y
    rows = [int(i) for i in missing.nonzero()[0]]
    if not getattr(args, "dropna", False):
        columns = [str(c) for c in X.columns[X.isna().any(axis=0).to_numpy()]]
        columns += [str(y.name)] if y.isna().any() else []
        shown = ", ".join(map(str, rows[:5])) + (", ..." if len(rows) > 5 else "")
        raise CLIError(f"{name}: {len(rows)} of {len(X)} rows have missing values (rows {shown}; "
                       f"column(s) {columns}); drop those rows with --dropna")  # fmt: skip
    print(f"(--dropna: {len(rows)} of {len(X)} rows with missing values dropped)", file=sys.stderr)
    args.dropped_rows = set(rows)
    args.rows_given = len(X)
    return X[~missing], y[~missing]


def _data_rows(args, X) -> int:
    """How many rows the data had as given (before ``--dropna``)."""
    return getattr(args, "rows_given", len(X))


def _positions(args, X, rows: list[int]) -> list[int]:
    """Row numbers of the data as given -> positions in ``X`` (the same unless ``--dropna``
    dropped rows; a dropped row asked for is an error naming it)."""
    dropped = getattr(args, "dropped_rows", None)
    if not dropped:
        return rows
    bad = [r for r in rows if r in dropped]
    if bad:
        shown = ", ".join(map(str, bad[:5])) + (", ..." if len(bad) > 5 else "")
        raise CLIError(f"row(s) {shown} have missing values (dropped by --dropna)")
    import numpy as np

    before = np.searchsorted(np.array(sorted(dropped)), rows)  # dropped rows before each row
    return [int(r - b) for r, b in zip(rows, before)]


def _parse_label(text: str, y) -> Any:
    import numpy as np
    import pandas as pd

    for v in pd.unique(y):
        if str(v) == text:
            return v.item() if isinstance(v, np.generic) else v
    raise CLIError(f"--desired-class {text!r} is not a label in the data ({sorted(map(str, pd.unique(y)))})")


def _parse_range(text: str) -> tuple[float, float]:
    """``--desired-range LO:HI`` (either side may be empty: unbounded) as (lo, hi)."""
    lo, sep, hi = text.partition(":")
    try:
        if not sep:
            raise ValueError
        return (float(lo) if lo.strip() else float("-inf"), float(hi) if hi.strip() else float("inf"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected LO:HI, e.g. 250000:300000") from None


def _default_regressor(X, y):
    """The regressor fitted when --desired-range comes without --model: a 100-tree, depth-10
    random forest behind a one-hot encoder, as the default classifier."""
    from sklearn.ensemble import RandomForestRegressor

    from geco.models import one_hot_pipeline

    t0 = time.perf_counter()
    model = one_hot_pipeline(X, RandomForestRegressor(100, max_depth=10, random_state=0, n_jobs=1)).fit(X, y)
    print(f"(default model: random forest regressor, 100 trees, depth 10, one-hot encoding; "
          f"{time.perf_counter() - t0:.1f} s)", file=sys.stderr)  # fmt: skip
    return model


def _load_model(args, X, y):
    from geco.models import default_model

    if args.model is None and getattr(args, "desired_range", None) is not None:
        return _default_regressor(X, y)
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
    if args.model.is_dir():
        raise CLIError(f"--model {args.model} is a directory; expected a file saved with joblib.dump")
    import joblib  # ships with scikit-learn

    try:
        model = joblib.load(args.model)  # a pickle: only load files you trust
    except (ImportError, AttributeError) as exc:  # a pickle whose classes are not installed here
        raise CLIError(f"{args.model}: cannot load model: it needs what this Python lacks "
                       f"({type(exc).__name__}: {exc}); install the library it was fitted with") from exc  # fmt: skip
    except Exception as exc:
        raise CLIError(
            f"{args.model}: cannot load model: not a joblib or pickle file ({type(exc).__name__}: "
            f"{exc}); --model expects a fitted classifier saved with joblib.dump(model, path)"
        ) from exc
    if getattr(args, "desired_range", None) is not None:
        if not (hasattr(model, "predict") or callable(model)):
            raise CLIError(f"{args.model}: cannot load model: it holds a {type(model).__name__}, not a "
                           "fitted regressor with predict")  # fmt: skip
    elif not (hasattr(model, "predict_proba") or callable(model)):
        raise CLIError(f"{args.model}: cannot load model: it holds a {type(model).__name__}, not a "
                       "fitted classifier with predict_proba")  # fmt: skip
    return model


def _row(args, X) -> Any:
    """The one-row frame of ``--row`` (a row number of the data as given)."""
    n = _data_rows(args, X)
    if not 0 <= args.row < n:
        raise CLIError(f"--row {args.row} is out of range (the data has {n} rows)")
    return X.iloc[_positions(args, X, [args.row])]


def cmd_explain(args: argparse.Namespace) -> int:
    from geco import Explainer

    batch = args.rows is not None or args.all_undesired
    if args.resume and (args.out is None or args.out.suffix.lower() not in (".jsonl", ".csv")):
        raise CLIError("--resume needs --out with a .jsonl or .csv file (the rows already there are skipped)")
    out_format = _out_format(args.out) if args.out is not None else None  # fail before the work
    if not batch and (args.n_jobs != 1 or args.backend != "loky" or args.scheduler):
        raise CLIError("--n-jobs, --backend and --scheduler need a batch: --rows or --all-undesired")
    if not batch and (args.limit is not None or args.resume):
        raise CLIError("--limit and --resume need a batch: --rows or --all-undesired")
    if args.limit is not None and args.limit < 1:
        raise CLIError(f"--limit {args.limit}: give a positive number of rows")
    if args.scheduler is not None and args.backend != "dask":
        raise CLIError("--scheduler needs --backend dask")
    if args.backend == "dask" and importlib.util.find_spec("distributed") is None:
        raise CLIError("--backend dask needs dask.distributed: pip install 'geco-cf[dask]'")
    X, y, desired, default_constraints, name = _load_data(args)
    n_data = _data_rows(args, X)
    constraints = args.constraints if args.constraints is not None else default_constraints
    rows = _positions(args, X, _parse_rows(args.rows, n_data)) if args.rows is not None else None
    model = _load_model(args, X, y)
    options = {
        k: getattr(args, k) for k in ("k", "q", "max_generations", "time_budget", "threshold") if getattr(args, k) is not None
    }
    if args.desired_range is not None:
        options["desired_range"] = args.desired_range
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
            limit = (f"--limit {args.limit}: the first {min(args.limit, len(rows))}"
                     if args.limit is not None else "--limit N explains the first N only")  # fmt: skip
            print(f"(--all-undesired: {len(rows)} of {len(X)} rows are not scored {desired!r}; "
                  f"{limit})", file=sys.stderr)  # fmt: skip
        if args.limit is not None:
            rows = rows[: args.limit]
        ignored = set(explainer.ignored_columns)  # already named in the warning above
        batch_rows = X.iloc[rows].drop(columns=[c for c in X.columns if str(c) in ignored])
        meta = {
            "dataset": f"{name} ({n_data} rows; {len(batch_rows)} explained)",
            "model": str(args.model) if args.model is not None else "default random forest",
            "engine": explainer.engine,
            "constraints_file": str(constraints) if constraints else "",
            "plaf": Path(constraints).read_text(encoding="utf-8") if constraints else "",
        }
        return _explain_batch(args, explainer, batch_rows, out_format, meta)
    if args.row is None:
        first = _first_undesired(explainer)
        args.row = first if not getattr(args, "dropped_rows", None) else int(X.index[first])
        print(f"(--row not given: row {args.row} is the first the model does not score "
              f"{desired!r})", file=sys.stderr)
    result = explainer.explain(_row(args, X), random_state=args.seed, exact=args.exact)
    if out_format is not None:
        writer = _open_writer(args.out, out_format, {"engine": explainer.engine}, append=False)
        writer.write(result)
        writer.close()
        print(f"wrote {args.out}", file=sys.stderr)
    elif args.json:
        print(result.to_json(indent=2))
    else:
        print(f"{name}, row {args.row}; constraints: {constraints or 'none'}")
        print(result)
    already_desired = bool(explainer.target.meets(result.x_probability))
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
    excluded, either end may be left out), e.g. ``0:1000`` or ``3,7,20:30``. A row or a range's
    end outside the data is an error naming the data's size."""
    rows: list[int] = []
    size = f"the data has {n} rows: 0 to {n - 1}"
    for part in (p.strip() for p in spec.split(",")):
        try:
            if ":" in part:
                start, _, stop = part.partition(":")
                lo = int(start) if start else None
                hi = int(stop) if stop else None
                for end in (lo, hi):
                    if end is not None and not -n <= end <= n:
                        raise CLIError(f"--rows {part}: {end} is out of range ({size})")
                rows.extend(range(n)[slice(lo, hi)])
            elif part:
                i = int(part)
                if not 0 <= i < n:
                    raise CLIError(f"--rows: row {i} is out of range ({size})")
                rows.append(i)
        except ValueError:
            raise CLIError(f"--rows {spec!r}: {part!r} is not a row number or a start:stop range") from None
    if not rows:
        raise CLIError(f"--rows {spec!r} selects no row (the data has {n} rows)")
    return rows


def _undesired_rows(explainer) -> list[int]:
    """Positions of every row the model does not already score as the desired class."""
    import numpy as np

    target = explainer.target
    rows: list[int] = []
    for start in range(0, len(explainer.table), 5000):
        p = explainer.blackbox.predict(explainer.table.take(slice(start, start + 5000)))
        rows.extend(start + np.flatnonzero(~target.meets(p)))
    if not rows:
        raise CLIError("the model scores every row as the desired class: nothing to explain")
    return [int(r) for r in rows]


def _open_writer(path: Path, fmt: str, meta: dict, *, append: bool) -> Any:
    """Where ``--out`` explanations go, one ``write(explanation)`` at a time: JSON Lines and CSV
    are written and flushed row by row; Parquet is written on ``close()``."""
    from geco.batch import CsvWriter
    from geco.result import JsonlWriter

    if fmt == "jsonl":
        return JsonlWriter(path, meta, append=append)
    if fmt == "csv":
        return CsvWriter(path, append=append)
    return ParquetWriter(path)


class ParquetWriter:
    """Explanations kept until ``close()`` writes them as one Parquet table (a Parquet file is
    written whole)."""

    def __init__(self, path: Path) -> None:
        self.path, self.explanations, self.written = path, [], 0

    def write(self, explanation: Any) -> None:
        self.explanations.append(explanation)
        self.written += 1

    def close(self) -> None:
        from geco.batch import explanations_frame

        explanations_frame(self.explanations).to_parquet(self.path, index=False)


def _already_written(args, X) -> list[int]:
    """``--resume``: the positions in ``X`` of the rows the output file already holds (none
    when it does not exist yet). A row there that is not in this batch is an error."""
    from geco.batch import csv_instances
    from geco.result import jsonl_instances

    if not args.out.is_file():
        return []
    try:
        labels = jsonl_instances(args.out) if args.out.suffix.lower() == ".jsonl" else csv_instances(args.out)
    except ValueError as exc:
        raise CLIError(f"--resume: {exc}") from exc
    position = {str(label): i for i, label in enumerate(X.index)}
    stray = [label for label in labels if str(label) not in position]
    if stray:
        raise CLIError(f"--resume: {args.out} holds row(s) {stray[:5]} that this batch does not "
                       "explain; is it the output of this command?")  # fmt: skip
    return sorted({position[str(label)] for label in labels})


def _resume_command(args) -> str:
    argv = list(args.argv)
    return shlex.join(["geco", *argv, *([] if args.resume else ["--resume"])])


def _explain_batch(args, explainer, X, out_format: str | None, meta: dict) -> int:
    from geco.batch import iter_explain, shutdown_pool
    from geco.result import JsonlWriter

    done_before = _already_written(args, X) if args.resume else []
    todo = sorted(set(range(len(X))) - set(done_before))
    if args.resume:
        print(f"(--resume: {len(done_before)} of {len(X)} rows already in {args.out}; "
              f"{len(todo)} to explain)", file=sys.stderr)  # fmt: skip
    client = None
    if args.scheduler is not None:
        from distributed import Client

        client = Client(args.scheduler)
    t0 = time.perf_counter()
    results = iter_explain(
        explainer, X, n_jobs=args.n_jobs, backend=args.backend, progress=not args.no_progress,
        random_state=args.seed, client=client, positions=todo if args.resume else None,
        overrides={"exact": True} if args.exact else None,
    )  # fmt: skip
    if out_format is not None:
        writer = _open_writer(args.out, out_format, meta, append=args.resume)
    elif args.json:
        writer = JsonlWriter(sys.stdout, meta=meta)
    else:
        writer = _TextWriter(X.index[todo])
    done = {"rows": 0, "found": 0, "failed": 0}  # for the summary line
    interrupted = False
    try:
        for e in results:
            writer.write(e)
            done["rows"] += 1
            done["found"] += e.success
            done["failed"] += "error" in e.stats
            if args.all_undesired and done["rows"] == min(3, len(todo)) and len(todo) > 3:
                _print_estimate(time.perf_counter() - t0, done["rows"], len(todo))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        results.close()  # a reader that went away (| head), Ctrl-C: cancel what is queued
        shutdown_pool(kill=done["rows"] < len(todo))
        if client is not None:
            client.close()
    if interrupted and out_format == "parquet":
        writer.close()
        print(f"geco: interrupted: wrote {args.out} with the {done['rows']} of {len(X)} rows "
              "finished (a Parquet file cannot be resumed; write .jsonl or .csv for that)", file=sys.stderr)
        return EXIT_INTERRUPTED
    writer.close()
    if interrupted:
        if out_format is None:
            print(f"geco: interrupted after {done['rows']} of {len(todo)} rows (write them to a "
                  ".jsonl or .csv file with --out to resume)", file=sys.stderr)  # fmt: skip
        else:
            # read back, not counted: Ctrl-C may land between a row's write and its count
            try:
                held = len(_already_written(args, X))
            except CLIError:  # a file it cannot read back: what this run counted
                held = len(done_before) + done["rows"]
            print(f"geco: interrupted: {args.out} holds {held} of {len(X)} rows ({held - len(done_before)} "
                  f"written now); resume with: {_resume_command(args)}", file=sys.stderr)  # fmt: skip
        return EXIT_INTERRUPTED
    if out_format is not None:
        resumed = f" (resumed: {len(done_before)} were there)" if args.resume else ""
        print(f"wrote {args.out}: {done['rows']} rows{resumed}, {done['found']} with counterfactuals, "
              f"{done['failed']} failed ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)  # fmt: skip
    return 0


class _TextWriter:
    """A batch printed for a person: each row's explanation under its row number."""

    def __init__(self, labels) -> None:
        self.labels = iter(labels)

    def write(self, explanation: Any) -> None:
        print(f"row {next(self.labels)}:\n{explanation}\n")

    def close(self) -> None:
        sys.stdout.flush()


def _print_estimate(seconds: float, rows: int, total: int) -> None:
    per_row = seconds / rows
    left = per_row * (total - rows)
    when = f"{left / 3600:.1f} h" if left >= 3600 else f"{left / 60:.0f} min" if left >= 60 else f"{left:.0f} s"
    print(f"(first {rows} rows: {per_row:.2f} s each; the {total - rows} left: about {when})", file=sys.stderr)


def _first_undesired(explainer) -> int:
    """Position of the first row the model does not already score as the desired class."""
    import numpy as np

    target = explainer.target
    for start in range(0, len(explainer.table), 2000):
        p = explainer.blackbox.predict(explainer.table.take(slice(start, start + 2000)))
        hits = np.flatnonzero(~target.meets(p))
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
    if not program.costs.is_uniform:
        print(f"costs: {'; '.join(program.costs.describe())} (every other change costs 1)")
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
    if args.results.suffix.lower() in (".csv", ".parquet"):
        raise CLIError(f"{args.results}: geco report reads a JSON Lines file (.jsonl), not "
                       f"{args.results.suffix.lower()[1:].upper()}: write the batch with "
                       "geco explain --out RESULTS.jsonl (or --json)")  # fmt: skip
    try:
        explanations, meta = read_jsonl(args.results)  # ValueError names the bad line
    except ValueError as exc:
        raise CLIError(f"{exc}; geco report reads JSON Lines (.jsonl: one explanation per line, "
                       "as geco explain --out RESULTS.jsonl or --json writes them)") from exc
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


def cmd_suggest(args: argparse.Namespace) -> int:
    import pandas as pd

    from geco.laws import suggest

    if args.data is not None and args.target is None:  # no label: every column is a feature
        if not args.data.exists():
            raise CLIError(f"{args.data}: no such file")
        _refuse_duplicate_header(args.data)
        try:
            X, name = pd.read_csv(args.data), str(args.data)
        except Exception as exc:
            raise CLIError(f"{args.data}: cannot read CSV ({exc})") from exc
        for c in X.columns:
            if X[c].dtype == object or pd.api.types.is_string_dtype(X[c].dtype):
                X[c] = X[c].astype("category")
    else:
        X, _, _, _, name = _load_data(args)
    text = suggest(X, entity=args.entity, base=args.constraints, source=name)
    if args.output is None:
        print(text, end="")
    else:
        args.output.write_text(text, encoding="utf-8")
        active = sum(1 for line in text.splitlines() if line and not line.startswith("#"))
        print(f"wrote {args.output}: {active} active statements; review it before use", file=sys.stderr)
    return EXIT_OK

def cmd_serve(args: argparse.Namespace) -> int:
    """``geco serve``: the HTTP decision service (geco.serve; needs geco-cf[serve])."""
    if importlib.util.find_spec("fastapi") is None or importlib.util.find_spec("uvicorn") is None:
        raise CLIError("geco serve needs fastapi and uvicorn: pip install 'geco-cf[serve]'")
    from geco.serve import ServeSettings, serve

    settings = ServeSettings(
        str(args.explainer), host=args.host, port=args.port, workers=args.workers, max_rows=args.max_rows,
        max_body=args.max_body, keys=str(args.keys) if args.keys else None, access_log=args.access_log,
    )  # fmt: skip
    print(f"geco serve: {args.explainer} on http://{args.host}:{args.port} ({args.workers} worker(s); "
          "docs at /docs)", file=sys.stderr)  # fmt: skip
    return serve(settings)


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
    _add_data_args(p)
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
    p.add_argument("--desired-range", type=_parse_range, dest="desired_range", metavar="LO:HI",
                   help="regression: a counterfactual's prediction lies in [LO, HI] (e.g. "
                   "250000:300000; the --target column is then the predicted number)")  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
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

    p = sub.add_parser("suggest", help="draft a commented PLAF program from the laws the data obeys")
    _add_data_args(p)
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

    p = sub.add_parser("data", help="describe a bundled data set")
    p.add_argument("--dataset", choices=DATASET_NAMES, default="adult")
    p.set_defaults(func=cmd_data)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = argv  # for the command that resumes an interrupted batch
    from codegen import UnsupportedModel as UnsupportedModelError
    from plaf_grammar import PLAFError, SchemaError

    try:
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return status
    except KeyboardInterrupt:
        print("geco: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
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
