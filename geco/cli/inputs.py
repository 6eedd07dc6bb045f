"""What a command reads from its arguments: the data (bundled or a CSV, missing values refused
or dropped), the model (a joblib file, or the default one fitted here), the row asked for."""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Any

from geco.cli.status import DATASET_NAMES, CLIError

__all__ = [
    "add_data_args",
    "check_csv_header",
    "data_rows",
    "decimal_comma_columns",
    "default_regressor",
    "identifier_columns",
    "load_data",
    "load_model",
    "not_utf8",
    "parse_label",
    "parse_range",
    "positions",
    "read_csv_data",
    "row_frame",
    "text_as_categories",
    "without_missing",
]  # fmt: skip


def add_data_args(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--dataset", choices=DATASET_NAMES, help="a bundled data set")
    src.add_argument("--data", type=Path, help="a CSV file with a header row")
    p.add_argument("--target", help="label column of --data (removed from the features)")
    p.add_argument("--desired-class", help="favourable label (default: the data set's, else 1)")
    p.add_argument("--dropna", action="store_true", help="drop the data's rows with missing values "
                   "(rows keep their numbers; explaining a dropped row is an error)")  # fmt: skip


def load_data(args: argparse.Namespace, *, desired: bool = True):
    """(X, y, desired_class, default constraints path, name) from --dataset or --data. Rows with
    a missing value are refused (naming the first few), or dropped with ``--dropna`` (the rows
    keep their numbers: ``--row``/``--rows`` count the data as given). ``desired``: whether the
    command needs the desired class (None in its place otherwise: text labels then need no
    --desired-class)."""
    from geco import datasets

    if args.data is not None:
        df = read_csv_data(args.data)
        if args.target is None:
            raise CLIError("--data needs --target (the label column)")
        if args.target not in df.columns:
            raise CLIError(f"--target {args.target!r} is not a column of {args.data} ({list(df.columns)})")
        y = df.pop(args.target)
        df, y = without_missing(df, y, args, str(args.data))
        text_as_categories(df)
        if args.desired_class is not None:
            wanted = parse_label(args.desired_class, y)
        else:
            wanted = default_label(y, args.target) if desired else None
        return df, y, wanted, None, str(args.data)
    ds = datasets.load_dataset(args.dataset or "adult")
    X, y = without_missing(ds.X, ds.y, args, ds.name)
    desired = ds.desired_class if args.desired_class is None else parse_label(args.desired_class, y)
    return X, y, desired, ds.constraints, ds.name


def read_csv_data(path: Path) -> Any:
    """The CSV at ``path`` as pandas reads it, its header checked (:func:`check_csv_header`);
    CLIError for a missing or unreadable file, one that is not UTF-8 (naming the line) and one
    without data rows. A first column with an empty header numbered 0, 1, 2, ... is the index
    pandas writes with a frame by default (``to_csv`` without ``index=False``): it is left out,
    with a note on stderr, as it would be a feature the model reads and a counterfactual moves."""
    import pandas as pd

    if not path.exists():
        raise CLIError(f"{path}: no such file")
    check_csv_header(path)
    try:
        df = pd.read_csv(path)
    except UnicodeDecodeError as exc:
        raise CLIError(f"{path}: {not_utf8(path, exc)}") from None
    except Exception as exc:
        raise CLIError(f"{path}: cannot read CSV ({exc})") from exc
    if len(df) == 0:
        raise CLIError(f"{path}: no data rows (a header only)")
    first = df.columns[0]
    if (str(first) == "Unnamed: 0" and pd.api.types.is_integer_dtype(df[first].dtype)
            and (df[first].to_numpy() == range(len(df))).all()):  # fmt: skip
        print(f"geco: note: {path}: the first column, unnamed and numbered 0, 1, 2, ..., is the index pandas "
              "wrote with the file: left out (write files with index=False)", file=sys.stderr)  # fmt: skip
        df = df.drop(columns=first)
    return df


def not_utf8(path: Path, exc: UnicodeDecodeError) -> str:
    """What to say of a file that is not UTF-8: the first bad byte and its line, and how to
    re-encode it (the file's bytes are read again: the decoder's position is in its own chunk)."""
    from plaf_grammar.source import byte_line

    data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        exc = e
    line, _ = byte_line(data, exc.start)
    return (f"not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); save it as UTF-8, e.g. "
            "pandas.read_csv(path, encoding='latin-1').to_csv(path, index=False)")


def text_as_categories(df: Any) -> None:
    """The text columns of ``df`` made categorical, in place, with a warning on stderr for a
    column of numbers written with decimal commas (:func:`decimal_comma_columns`)."""
    import pandas as pd

    for c, example in decimal_comma_columns(df).items():
        print(f"geco: warning: column {c!r} holds numbers written with a decimal comma ({example!r}): it is "
              "read as text, i.e. as categories; write it with decimal points", file=sys.stderr)  # fmt: skip
    for c in df.columns:
        if df[c].dtype == object or pd.api.types.is_string_dtype(df[c].dtype):
            df[c] = df[c].astype("category")


def decimal_comma_columns(df: Any, sample: int = 1000) -> dict[str, str]:
    """Text columns whose values (the first ``sample``) are all numbers, some written with a
    decimal comma (``40,5``): column -> such a value. pandas reads them as text. A column whose
    first ``sample`` values are all integers is text for a later value: it is read whole."""
    import pandas as pd

    out = {}
    for c in df.columns:
        if not (df[c].dtype == object or pd.api.types.is_string_dtype(df[c].dtype)):
            continue
        values = df[c].iloc[:sample].dropna().astype(str).str.strip()
        if len(df) > sample and len(values) and values.str.fullmatch(_WHOLE).all():  # text for a later value
            values = df[c].dropna().astype(str).str.strip()
        comma = values.str.fullmatch(_DECIMAL_COMMA)
        if len(values) and comma.any() and (comma | values.str.fullmatch(_WHOLE)).all():
            out[str(c)] = str(values[comma].iloc[0])
    return out


#: a whole number and one written with a decimal comma, as text
_WHOLE, _DECIMAL_COMMA = r"[+-]?\d+", r"[+-]?\d+,\d+"


def check_csv_header(path: Path) -> None:
    """Refuse a header pandas would misread: a repeated column name (pandas renames it ``a.1``)
    or one column whose name holds semicolons or tabs (a file separated by them: its rows would
    read as one text column each)."""
    import csv

    try:
        with open(path, encoding="utf-8", newline="") as fh:
            header = next(csv.reader(fh), [])
            first = fh.readline()
    except (OSError, UnicodeDecodeError, csv.Error):
        return  # pandas says what is wrong with the file
    if len(header) == 1:
        sep = next((s for s in (";", "\t") if s in header[0]), None)
        if sep is not None:
            shown = header[0] if len(header[0]) <= 60 else header[0][:57] + "..."
            decimal = ", decimal=','" if re.search(r"\d,\d", first) else ""  # 40,5: a decimal comma
            raise CLIError(f"{path}: the header reads as one column ({shown!r}): geco reads comma-separated files "
                           f"and this one looks separated by {sep!r}; write it with commas, e.g. "
                           f"pandas.read_csv(path, sep={sep!r}{decimal}).to_csv(path, index=False)")  # fmt: skip
    seen: set[str] = set()
    dup = [name for name in header if name in seen or seen.add(name)]
    if dup:
        raise CLIError(f"{path}: duplicate column name(s) {sorted(set(dup))} in the header; "
                       "give each column its own name")  # fmt: skip


def without_missing(X, y, args: argparse.Namespace, name: str):
    """``(X, y)`` when no value is missing; else, with ``--dropna``, both without those rows
    (the rest keep their labels), else a CLIError naming the first few rows and the columns;
    a column without any value is a CLIError either way (dropping rows cannot mend it)."""
    missing = (X.isna().any(axis=1) | y.isna()).to_numpy()
    if not missing.any():
        return X, y
    empty = [str(c) for c in X.columns[X.isna().all(axis=0).to_numpy()]]
    if empty:  # --dropna would drop every row
        raise CLIError(f"{name}: column(s) {empty} hold no value on any row; remove them from the file (or fill them in)")
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


def data_rows(args, X) -> int:
    """How many rows the data had as given (before ``--dropna``)."""
    return getattr(args, "rows_given", len(X))


def positions(args, X, rows: list[int]) -> list[int]:
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


def default_label(y, target: str) -> Any:
    """The desired class when --desired-class is not given: 1 where the labels are 0 and 1 (True
    for bool labels); else a CLIError listing the labels to choose from."""
    import numpy as np
    import pandas as pd

    labels = [v.item() if isinstance(v, np.generic) else v for v in pd.unique(y)]
    if True in labels and all(isinstance(v, bool) for v in labels):
        return True
    if 1 in labels and not any(isinstance(v, str) for v in labels):
        return 1
    shown = sorted(map(str, labels))
    if len(shown) > 10:  # a number column: the target of a regression, most likely
        raise CLIError(f"--desired-class is needed: {target!r} holds {len(shown):,} labels ({', '.join(shown[:5])}, ...); "
                       "for a regression model give --desired-range LO:HI instead")  # fmt: skip
    raise CLIError(f"--desired-class is needed: the labels of {target!r} are {shown}; e.g. --desired-class {shown[0]}")


def parse_label(text: str, y) -> Any:
    """The label of ``y`` written ``text`` (a bool label also as true / false, any case)."""
    import numpy as np
    import pandas as pd

    for v in pd.unique(y):
        if str(v) == text or (isinstance(v, (bool, np.bool_)) and str(v).lower() == text.lower()):
            return v.item() if isinstance(v, np.generic) else v
    raise CLIError(f"--desired-class {text!r} is not a label in the data ({sorted(map(str, pd.unique(y)))})")


def parse_range(text: str) -> tuple[float, float]:
    """``--desired-range LO:HI`` (either side may be empty: unbounded) as (lo, hi)."""
    lo, sep, hi = text.partition(":")
    try:
        if not sep:
            raise ValueError
        return (float(lo) if lo.strip() else float("-inf"), float(hi) if hi.strip() else float("inf"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected LO:HI, e.g. 250000:300000") from None


def default_regressor(X, y):
    """The regressor fitted when --desired-range comes without --model: a 100-tree, depth-10
    random forest behind a one-hot encoder, as the default classifier."""
    from sklearn.ensemble import RandomForestRegressor

    from geco.models import one_hot_pipeline

    t0 = time.perf_counter()
    model = one_hot_pipeline(X, RandomForestRegressor(100, max_depth=10, random_state=0, n_jobs=1)).fit(X, y)
    print(f"(default model: random forest regressor, 100 trees, depth 10, one-hot encoding; "
          f"{time.perf_counter() - t0:.1f} s)", file=sys.stderr)  # fmt: skip
    return model


def identifier_columns(X: Any) -> list[str]:
    """Text columns holding a different value on every row (of at least 20): customer ids,
    timestamps. A default model would one-hot encode each value as a column seen once - noise
    it fits, and a counterfactual would "change the customer id" - so it leaves them out."""
    import pandas as pd

    if len(X) < 20:
        return []
    return [str(c) for c in X.columns
            if not (pd.api.types.is_numeric_dtype(X[c].dtype) or pd.api.types.is_bool_dtype(X[c].dtype))
            and X[c].nunique(dropna=False) == len(X)]  # fmt: skip


def load_model(args, X, y):
    """The fitted model: --model's file, else the default one fitted on the data (a regressor
    with --desired-range), which leaves out :func:`identifier_columns` (the Explainer then
    ignores them: the answers never change them)."""
    from geco.models import default_model

    if args.model is None:
        ids = identifier_columns(X)
        if ids:
            print(f"(the default model leaves out {', '.join(map(repr, ids))}: a different text on every row, "
                  "an identifier; --model gives a model of your own)", file=sys.stderr)  # fmt: skip
            X = X.drop(columns=ids)
    if args.model is None and getattr(args, "desired_range", None) is not None:
        return default_regressor(X, y)
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


def row_frame(args, X) -> Any:
    """The one-row frame of ``--row`` (a row number of the data as given)."""
    n = data_rows(args, X)
    if not 0 <= args.row < n:
        raise CLIError(f"--row {args.row} is out of range (the data has {n} rows)")
    return X.iloc[positions(args, X, [args.row])]
