"""What the paper scripts share: the models, the instances to explain, summaries and output.

Models are fitted on the whole data set (as the paper does) and kept on disk under geco's cache
directory (``$GECO_CACHE_DIR``), keyed by data set, model and scikit-learn version, so a rerun
does not refit them. ``--tiny`` swaps in small, fast models on a subsample for smoke runs.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from collections.abc import Sequence
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
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier

import geco
from geco.models import cache_dir, cached_fit, categorical_columns, one_hot_pipeline

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

#: model name -> description
MODELS = {
    "dt": "decision tree (depth 10)",
    "rf": "random forest, 100 trees, depth 10",
    "rf500": "random forest, 500 trees, depth 10",
    "mlp": "MLP, 20 hidden units",
    "mlp100": "MLP (100,)",
    "mlp100x100": "MLP (100, 100)",
}


def _mlp(X: pd.DataFrame, hidden: tuple[int, ...], max_iter: int) -> Pipeline:
    cats = categorical_columns(X)
    nums = [c for c in X.columns if c not in cats]
    pre = ColumnTransformer(
        [("onehot", OneHotEncoder(handle_unknown="ignore"), cats), ("scale", StandardScaler(), nums)]
    )
    mlp = MLPClassifier(hidden_layer_sizes=hidden, max_iter=max_iter, random_state=0)
    return Pipeline([("encode", pre), ("model", mlp)])


def build_model(name: str, X: pd.DataFrame, tiny: bool = False):
    """An unfitted pipeline taking the user's DataFrame."""
    if name not in MODELS:
        raise SystemExit(f"unknown model {name!r}; choose from {', '.join(MODELS)}")
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
    hidden = {"mlp": (20,), "mlp100": (100,), "mlp100x100": (100, 100)}[name]
    return _mlp(X, hidden, 200)


def fitted_model(dataset: str, name: str, tiny: bool = False):
    """The model ``name`` fitted on ``dataset`` (from the disk cache when fitted before)."""
    ds = geco.datasets.load_dataset(dataset)
    X, y = ds.X, ds.y
    if tiny:
        X, y = X.iloc[:2000], y.iloc[:2000]

    def fit():
        model = build_model(name, X, tiny)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return model.fit(X, y)

    tag = "tiny-" if tiny else ""
    return cached_fit(cache_dir() / "paper-models" / f"{dataset}-{tag}{name}-sklearn{sklearn.__version__}.joblib", fit)


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
        print(f"(matplotlib not installed: no {name}.png; pip install 'geco[bench]')")
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
    parser.add_argument("--tiny", action="store_true", help="small models fitted on 2,000 rows (smoke runs)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the JSON and PNG")
