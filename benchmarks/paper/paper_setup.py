"""What the paper scripts share: the data sets, the models, the instances to explain, summaries
and output.

Data sets: the bundled "adult", "credit" and "compas" (``geco.datasets``) and "wide", the
paper-scale synthetic table of ``benchmarks/make_wide.py`` (1,000,000 rows x 115 columns: 15
numeric, 100 categorical with 2-300 levels; label 1 desired; its own PLAF program with fixed,
monotone and grouped columns and an implication), generated once per process. ``--tiny`` makes
it 5,000 x 30.

Models are fitted on the whole data set (as the paper does; "wide": on its first
``WIDE_FIT_ROWS`` rows) and kept on disk under geco's cache directory (``$GECO_CACHE_DIR``),
keyed by data set (with its shape for "wide"), model and scikit-learn version, so a rerun does
not refit them. ``--tiny`` swaps in small, fast models on a subsample for smoke runs.
"""

from __future__ import annotations

import functools
import json
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for make_wide

from make_wide import make_wide

import geco
from geco.models import cache_dir, cached_fit, categorical_columns, one_hot_pipeline

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

#: rows x columns of the "wide" data set, and with ``--tiny``
WIDE_SHAPE = (1_000_000, 115)
WIDE_TINY_SHAPE = (5_000, 30)
#: models on "wide" are fitted on its first 100,000 rows: on all 1M, RF-500 and the two MLPs
#: would take over an hour together on a 2-core machine, and explaining does not need it
WIDE_FIT_ROWS = 100_000
#: training of the MLPs on "wide": 20 epochs (no early stopping) of batches of 1,000 rows. Each
#: Adam step updates all ~1.5M first-layer weights (~15,000 one-hot columns x 100) whatever the
#: batch, so sklearn's default batches of 200 would make fitting on WIDE_FIT_ROWS rows 5x slower;
#: this keeps the (100, 100) MLP to a few minutes
WIDE_MLP_EPOCHS = 20
WIDE_MLP_BATCH = 1000
#: rows the ``--tiny`` models are fitted on
TINY_FIT_ROWS = 2000

#: model name -> description (on "wide", trees are depth 8 behind an OrdinalEncoder: ``_wide_model``)
MODELS = {
    "dt": "decision tree (depth 10)",
    "rf": "random forest, 100 trees, depth 10",
    "rf500": "random forest, 500 trees, depth 10",
    "mlp": "MLP, 20 hidden units",
    "mlp100": "MLP (100,)",
    "mlp100x100": "MLP (100, 100)",
}
#: hidden layer sizes of the MLP models
HIDDEN = {"mlp": (20,), "mlp100": (100,), "mlp100x100": (100, 100)}


@dataclass(frozen=True)
class WideData:
    """The "wide" table as the scripts use a data set (the fields of ``geco.datasets.Dataset``
    they read); ``constraints`` is PLAF text."""

    name: str
    X: pd.DataFrame
    y: pd.Series
    constraints: str
    desired_class: int = 1


def load_data(name: str, tiny: bool = False) -> Any:
    """Data set ``name`` (``.X``, ``.y``, ``.constraints``, ``.desired_class``), loaded or
    generated once per process. ``tiny`` only changes "wide" (``WIDE_TINY_SHAPE``)."""
    names = [*sorted(geco.datasets.DATASETS), "wide"]
    if name not in names:
        raise SystemExit(f"unknown data set {name!r}; choose from {', '.join(names)}")
    return _load_data(name, name == "wide" and bool(tiny))


@functools.cache
def _load_data(name: str, tiny: bool) -> Any:
    if name != "wide":
        return geco.datasets.load_dataset(name)
    X, y, plaf = make_wide(*(WIDE_TINY_SHAPE if tiny else WIDE_SHAPE))
    return WideData("wide", X, y, plaf)


def _mlp(X: pd.DataFrame, hidden: tuple[int, ...], max_iter: int, batch_size: int | str = "auto") -> Pipeline:
    cats = categorical_columns(X)
    nums = [c for c in X.columns if c not in cats]
    pre = ColumnTransformer(
        [("onehot", OneHotEncoder(handle_unknown="ignore"), cats), ("scale", StandardScaler(), nums)]
    )
    mlp = MLPClassifier(hidden_layer_sizes=hidden, max_iter=max_iter, batch_size=batch_size, random_state=0)
    return Pipeline([("encode", pre), ("model", mlp)])


def _ordinal_pipeline(X: pd.DataFrame, estimator) -> Pipeline:
    """``estimator`` behind an OrdinalEncoder for the categorical columns, the numeric ones passed
    through (the paper's encoding of the wide table, as ``benchmarks/bench_wide.py``)."""
    pre = ColumnTransformer(
        [("ord", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1), categorical_columns(X))],
        remainder="passthrough",
    )
    return Pipeline([("encode", pre), ("model", estimator)])


def _wide_model(name: str, X: pd.DataFrame, tiny: bool) -> Pipeline:
    """Trees depth 8 (tiny: 5) behind an OrdinalEncoder, forests fitted on 2 cores (``fitted_model``
    sets them back to 1); MLPs one-hot + scaled, trained as ``WIDE_MLP_EPOCHS`` says (tiny: as
    elsewhere)."""
    if tiny and name.startswith("mlp"):
        return _mlp(X, (8,), 30)
    if name.startswith("mlp"):
        return _mlp(X, HIDDEN[name], WIDE_MLP_EPOCHS, WIDE_MLP_BATCH)
    depth = 5 if tiny else 8
    if name == "dt":
        return _ordinal_pipeline(X, DecisionTreeClassifier(max_depth=depth, random_state=0))
    trees = 10 if tiny else {"rf": 100, "rf500": 500}[name]
    return _ordinal_pipeline(X, RandomForestClassifier(trees, max_depth=depth, random_state=0, n_jobs=2))


def build_model(name: str, X: pd.DataFrame, tiny: bool = False, dataset: str = ""):
    """An unfitted pipeline taking the user's DataFrame (``dataset`` "wide": see ``_wide_model``)."""
    if name not in MODELS:
        raise SystemExit(f"unknown model {name!r}; choose from {', '.join(MODELS)}")
    if dataset == "wide":
        return _wide_model(name, X, tiny)
    if tiny:
        if name.startswith("mlp"):
            return _mlp(X, (8,), 30)
        trees = 1 if name == "dt" else 10
        est = DecisionTreeClassifier(max_depth=5, random_state=0) if name == "dt" else (
            RandomForestClassifier(trees, max_depth=5, random_state=0, n_jobs=1))
        return one_hot_pipeline(X, est)
    if name == "dt":
        return one_hot_pipeline(X, DecisionTreeClassifier(max_depth=10, random_state=0))
    if name in ("rf", "rf500"):
        trees = 100 if name == "rf" else 500
        return one_hot_pipeline(X, RandomForestClassifier(trees, max_depth=10, random_state=0, n_jobs=1))
    return _mlp(X, HIDDEN[name], 200)


def fitted_model(dataset: str, name: str, tiny: bool = False):
    """The model ``name`` fitted on ``dataset`` (from the disk cache when fitted before)."""
    ds = load_data(dataset, tiny)
    fit_rows = TINY_FIT_ROWS if tiny else WIDE_FIT_ROWS if dataset == "wide" else len(ds.X)
    X, y = ds.X.iloc[:fit_rows], ds.y.iloc[:fit_rows]

    def fit():
        model = build_model(name, X, tiny, dataset)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
        if "n_jobs" in model[-1].get_params():
            model[-1].set_params(n_jobs=1)  # explaining scores small batches: threads cost more
        return model

    tag = "tiny-" if tiny else ""
    data = f"wide{len(ds.X)}x{ds.X.shape[1]}-fit{fit_rows}" if dataset == "wide" else dataset
    return cached_fit(cache_dir() / "paper-models" / f"{data}-{tag}{name}-sklearn{sklearn.__version__}.joblib", fit)


def undesired_rows(model: Any, ds: Any, n: int, seed: int = 0) -> np.ndarray:
    """``n`` rows (a seeded random sample, in sample order) the model does not score as the
    desired class."""
    column = list(model.classes_).index(ds.desired_class)
    order = np.random.default_rng(seed).permutation(len(ds.X))
    out: list[int] = []
    for start in range(0, len(order), 4096):  # score in chunks until n are found
        chunk = order[start : start + 4096]
        p = model.predict_proba(ds.X.iloc[chunk])[:, column]
        out.extend(int(r) for r in chunk[p <= 0.5])
        if len(out) >= n:
            break
    return np.array(out[:n], dtype=np.intp)


def timed(fn, *args, **kwargs) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) if len(values) else float("nan")


def mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def fmt(v: Any, spec: str = ".2f") -> str:
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "-"
    return format(v, spec) if isinstance(v, (int, float, np.floating)) else str(v)


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain-text table (also returned, for the README)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    text = "\n".join(lines)
    print(text)
    return text


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    out = ["| " + " | ".join(map(str, headers)) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(map(str, r)) + " |" for r in rows]
    return "\n".join(out)


def write_outputs(name: str, payload: dict[str, Any], plot, out_dir: Path | None = None) -> list[Path]:
    """``<name>.json`` always; ``<name>.png`` via ``plot(plt)`` when matplotlib is installed."""
    out_dir = Path(out_dir) if out_dir is not None else RESULTS
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / f"{name}.json"]
    written[0].write_text(json.dumps(payload, indent=1, default=_plain) + "\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"(matplotlib not installed: no {name}.png; pip install 'geco-cf[bench]')")
    else:
        fig = plot(plt)
        fig.tight_layout()
        fig.savefig(out_dir / f"{name}.png", dpi=110)
        plt.close(fig)
        written.append(out_dir / f"{name}.png")
    for p in written:
        print(f"wrote {p}")
    return written


def settings(args) -> list[tuple[str, str]]:
    """(data set, model) pairs of the ``--datasets`` and ``--models`` arguments, in order."""
    return [(d, m) for d in args.datasets.split(",") for m in args.models.split(",")]


def command_line(name: str, argv) -> str:
    """How script ``name`` was run (``argv`` None: this process's own arguments)."""
    args = sys.argv[1:] if argv is None else list(argv)
    return " ".join(["python", f"benchmarks/paper/{name}.py", *args])


def publish(name: str, headers: Sequence[str], rows, plot, out_dir: Path, command: str, **fields: Any) -> dict[str, Any]:
    """Print the table, write ``<name>.json`` (``command``, ``fields`` and the table as Markdown)
    and ``<name>.png``; return what was written."""
    print_table(headers, rows)
    payload = {"command": command, **fields, "markdown": markdown_table(headers, rows)}
    write_outputs(name, payload, plot, out_dir)
    return payload


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return str(v)


def common_arguments(parser, n: int, datasets: str, models: str) -> None:
    parser.add_argument("--n", type=int, default=n, help=f"instances per setting (default {n})")
    parser.add_argument("--datasets", default=datasets, help=f"comma-separated (default {datasets})")
    parser.add_argument("--models", default=models, help=f"comma-separated from {', '.join(MODELS)} (default {models})")
    parser.add_argument("--tiny", action="store_true",
                        help="small models fitted on 2,000 rows, wide table 5,000 x 30 (smoke runs)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the JSON and PNG")
