"""What an explanation returns: counterfactual rows, the changes a person reads, and run stats."""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

__all__ = [
    "ANSWER_COLUMNS", "JSONL_FORMAT", "OUTCOMES", "RESERVED_COLUMNS", "Explanation", "JsonlWriter", "drop_partial_last_line", "json_safe",
    "json_text", "jsonl_instances", "plain", "ranked_index", "read_jsonl", "write_jsonl",
]  # fmt: skip

#: the columns an answer's counterfactuals table holds after the features
ANSWER_COLUMNS = ("probability", "distance", "n_changed", "counterfactual")
#: the names geco's tables give columns of their own besides the features: the answers', their
#: index (``rank``) and a batch table's (:func:`geco.batch.explanations_frame`); no feature may
#: take one, or a table would show geco's number in its place
RESERVED_COLUMNS = ("instance", "rank", "success", *ANSWER_COLUMNS, "x_probability", "reason")
#: what an explanation's ``outcome`` may be
OUTCOMES = ("found", "proven_none", "not_found")
_META_DTYPES = {"probability": "float64", "distance": "float64", "n_changed": "int64", "counterfactual": "bool"}
JSONL_FORMAT = 1  # version of the header line ``{"geco_meta": {...}}`` written by write_jsonl


def ranked_index(n: int) -> pd.RangeIndex:
    """The index of a counterfactuals table: ``rank`` 1..n, the number printed before each
    (``#1``), the ``rank`` column of a CSV and ``changes()``'s ``counterfactual``."""
    return pd.RangeIndex(1, n + 1, name="rank")


def plain(v: Any) -> Any:
    """A numpy scalar (or 0-d array) as the Python value JSON writes; others unchanged."""
    return v.item() if isinstance(v, np.generic) or (isinstance(v, np.ndarray) and v.ndim == 0) else v


def _column_values(column: pd.Series) -> list[Any]:
    """A column's values as Python scalars; a float32 value as the shortest decimal that reads
    back as it (1.304, not 1.3040000200271606, float64's digits of the same number)."""
    if column.dtype == np.float32:
        return [float(str(v)) for v in column.to_numpy()]
    return [plain(v) for v in column.tolist()]


def json_safe(obj: Any) -> Any:
    """``obj`` with every NaN or infinite float as None, through dicts, lists and tuples."""
    if isinstance(obj, (float, np.floating)):
        return float(obj) if np.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


def json_text(obj: Any, **kw: Any) -> str:
    """``obj`` as JSON the standard allows: a number JSON cannot write (NaN, an open end of a
    range) is null, not Python's ``NaN``/``Infinity``, which JavaScript's ``JSON.parse`` and
    most other parsers refuse; ``from_dict`` reads such a null back as it was written."""
    return json.dumps(json_safe(obj), default=str, allow_nan=False, **kw)


def _rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Each row of ``frame`` as {column: value}, read column by column: a row read as one
    Series takes the columns' common dtype (an int beside floats prints as 40.0)."""
    cols = {c: _column_values(frame[c]) for c in frame.columns}
    return [{c: v[i] for c, v in cols.items()} for i in range(len(frame))]


def _costs_text(costs: Mapping[str, Mapping[str, float]]) -> str:
    """``stats["costs"]`` as a line: ``income up 2, down 1; debt 0.5``."""
    parts = []
    for name, c in costs.items():
        up, down = c["up"], c["down"]
        parts.append(f"{name} {up:g}" if up == down else f"{name} up {up:g}, down {down:g}")
    return "; ".join(parts)


@dataclass
class Explanation:
    """The result of ``Explainer.explain`` for one instance.

    ``counterfactuals``: one row per counterfactual (best first; the index is the ``rank``, 1 for
    the best, as printed) with the features in the user's
    form plus ``probability`` (of the desired class, from the model's own ``predict_proba``),
    ``distance``, ``n_changed`` and ``counterfactual`` (False only for the best non-counterfactual
    candidates reported when the search failed). ``success`` is True iff at least one
    counterfactual was found; ``reason`` says why not, or notes anything worth knowing.

    ``outcome``: "found" (``success``), "proven_none" (no counterfactual exists within the rules:
    ``bound`` is below the threshold, or the rules leave no row to change to) or "not_found"
    (none found, none proven; also an instance already desired, or an error). ``bound``: a sound
    upper bound on the model's P(desired) over every change the rules allow (None where the
    engine cannot bound the model - the black box - or nothing was searched). ``gap``: how far
    the first counterfactual's distance may be above the smallest possible (None: not known); with
    ``explain(exact=True)`` relative to that distance, ``(distance - lower bound) / distance``,
    and 0.0 once exact mode proved it the closest."""

    x: pd.DataFrame
    counterfactuals: pd.DataFrame
    success: bool
    reason: str
    desired_class: Any
    x_probability: float
    stats: dict[str, Any] = field(default_factory=dict)
    outcome: str = ""
    bound: float | None = None
    gap: float | None = None

    def __post_init__(self) -> None:
        if not self.outcome:
            self.outcome = "found" if self.success else "not_found"
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}, got {self.outcome!r}")

    @classmethod
    def empty(
        cls, x: pd.DataFrame, reason: str, desired_class: Any, x_probability: float = float("nan"),
        stats: dict[str, Any] | None = None, features: pd.DataFrame | None = None,
    ) -> Explanation:  # fmt: skip
        """An explanation without counterfactuals (``success`` False): the table has the
        features' columns with their dtypes (those of ``features``, a frame of the features, else
        of ``x``) and the meta columns with theirs, and no row."""
        table = (x if features is None else features).iloc[:0].copy()
        for c, dtype in _META_DTYPES.items():
            table[c] = pd.Series(dtype=dtype)
        table.index = ranked_index(0)
        return cls(x, table, False, reason, desired_class, x_probability, dict(stats or {}))

    @property
    def features(self) -> list[str]:
        return list(self.x.columns)

    def changes(self) -> pd.DataFrame:
        """Per counterfactual, each changed feature with its value in ``x`` and in the
        counterfactual: columns ``counterfactual, feature, from, to``. ``counterfactual`` is the
        number printed before it (#1 is the first row of ``counterfactuals``)."""
        recs = []
        xrow = _rows(self.x)[0]
        for i, row in enumerate(_rows(self.counterfactuals)):
            for f in self.features:
                if row[f] != xrow[f]:
                    recs.append({"counterfactual": i + 1, "feature": f, "from": xrow[f], "to": row[f]})
        out = pd.DataFrame(recs, columns=["counterfactual", "feature", "from", "to"])
        for c in ("from", "to"):  # ints beside floats would be made floats (debt 28.0 -> 24.0)
            values = [rec[c] for rec in recs]
            if out[c].dtype.kind == "f" and any(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
                out[c] = pd.Series(values, index=out.index, dtype=object)
        return out

    def __len__(self) -> int:
        return len(self.counterfactuals)

    # ------------------------------------------------------------------ rendering
    @property
    def score_name(self) -> str:
        """What the ``probability`` column holds for this explanation's target
        (``stats["target"]``): ``p``, or a regression's ``prediction``, or a ``margin``."""
        kind = (self.stats.get("target") or {}).get("kind", "probability")
        return {"probability": "p", "margin": "margin"}.get(kind, "prediction")

    def _goal_text(self) -> str:
        """What the counterfactuals reach, and x's own score: a class's probability, or the
        margin / prediction interval of ``stats["target"]``."""
        name = self.score_name
        if name == "p":
            return f"desired class {self.desired_class!r} (instance p = {self.x_probability:.3f}"
        target = self.stats.get("target") or {}
        key = "margin_range" if name == "margin" else "desired_range"
        lo, hi = target.get(key, [float("nan"), float("nan")])
        lo, hi = -np.inf if lo is None else lo, np.inf if hi is None else hi  # open ends, read from JSON
        return f"{name} in [{lo:g}, {hi:g}] (instance {name} = {self.x_probability:.6g}"

    def _header(self) -> str:
        if not self.success:
            proven = "; proven: none exists within the rules" if self.outcome == "proven_none" else ""
            return f"No counterfactual for {self._goal_text()}{proven})"
        n = int(self.counterfactuals["counterfactual"].sum())
        return f"Counterfactuals found: {n} for {self._goal_text()})"

    def __str__(self) -> str:
        lines = [self._header()]
        if self.reason:
            lines.append(f"  note: {self.reason}")
        if self.stats.get("costs"):
            lines.append(f"  costs: {_costs_text(self.stats['costs'])}")
        xrow = _rows(self.x)[0]
        name = self.score_name
        for i, row in enumerate(_rows(self.counterfactuals)):
            tag = "" if row["counterfactual"] else "  (not a counterfactual)"
            score = f"p={row['probability']:.3f}" if name == "p" else f"{name}={row['probability']:.6g}"
            lines.append(
                f"#{i + 1}  {score}  distance={row['distance']:.4f}  "
                f"changes={int(row['n_changed'])}{tag}"
            )
            changed = [f for f in self.features if row[f] != xrow[f]]
            width = max((len(f) for f in changed), default=0)
            for f in changed:
                lines.append(f"    {f:<{width}}  {xrow[f]!s:>14} -> {row[f]!s}")
        if self.stats:
            s = self.stats
            lines.append(
                f"({s.get('generations', '?')} generations, {s.get('candidates_scored', '?')} "
                f"candidates scored, {s.get('seconds_total', 0.0):.3f} s, engine {s.get('engine', '?')})"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        parts = [f"<p><b>{html.escape(self._header())}</b></p>"]
        if self.reason:
            parts.append(f"<p><i>{html.escape(self.reason)}</i></p>")
        xrow = _rows(self.x)[0]
        head = "<tr><th></th>" + "".join(f"<th>{html.escape(f)}</th>" for f in self.features)
        head += "".join(f"<th>{m}</th>" for m in ANSWER_COLUMNS) + "</tr>"
        body = ["<tr><td><b>x</b></td>"
                + "".join(f"<td>{html.escape(str(xrow[f]))}</td>" for f in self.features)
                + f"<td>{self.x_probability:.3f}</td><td></td><td></td><td></td></tr>"]  # fmt: skip
        for i, row in enumerate(_rows(self.counterfactuals)):
            cells = []
            for f in self.features:
                v = html.escape(str(row[f]))
                cells.append(f"<td><b>{v}</b></td>" if row[f] != xrow[f] else f"<td style='color:#999'>{v}</td>")
            meta = (f"<td>{row['probability']:.3f}</td><td>{row['distance']:.4f}</td>"
                    f"<td>{int(row['n_changed'])}</td><td>{bool(row['counterfactual'])}</td>")  # fmt: skip
            body.append(f"<tr><td>#{i + 1}</td>{''.join(cells)}{meta}</tr>")
        parts.append(f"<table>{head}{''.join(body)}</table>")
        return "".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (used by ``geco explain --json``)."""
        xrow = _rows(self.x)[0]
        cfs = []
        for row in _rows(self.counterfactuals):
            cfs.append(
                {
                    "probability": float(row["probability"]),
                    "distance": float(row["distance"]),
                    "n_changed": int(row["n_changed"]),
                    "counterfactual": bool(row["counterfactual"]),
                    "changes": {f: {"from": xrow[f], "to": row[f]} for f in self.features if row[f] != xrow[f]},
                    "values": {f: row[f] for f in self.features},
                }
            )
        stats = {k: (plain(v) if not isinstance(v, dict) else {a: plain(b) for a, b in v.items()})
                 for k, v in self.stats.items()}  # fmt: skip
        return {
            "success": self.success,
            "reason": self.reason,
            "desired_class": plain(self.desired_class),
            "x": {f: xrow[f] for f in self.features},
            "x_probability": self.x_probability,
            "counterfactuals": cfs,
            "stats": stats,
            "outcome": self.outcome,
            "bound": None if self.bound is None else float(self.bound),
            "gap": None if self.gap is None else float(self.gap),
            "index": plain(self.x.index[0]),
            "dtypes": {f: str(self.x[f].dtype) for f in self.features},
        }

    def to_json(self, **kw: Any) -> str:
        """:meth:`to_dict` as standard JSON (:func:`json_text`: NaN and infinity as null)."""
        return json_text(self.to_dict(), **kw)

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], categories: Mapping[str, Mapping[str, Any]] | None = None
    ) -> Explanation:
        """The inverse of ``to_dict``: rebuilds ``x`` (with its row index) and the
        counterfactuals with the features' dtypes. A categorical feature takes its categories
        from ``categories`` (``{feature: {"values": [...], "ordered": bool}}``, as in a JSONL
        header), else the values seen in this explanation. Raises ValueError naming a missing
        key."""
        missing = [k for k in ("x", "counterfactuals", "success", "x_probability") if k not in data]
        if missing:
            raise ValueError(f"not an explanation: missing key(s) {missing}")
        features = list(data["x"])
        dtypes = data.get("dtypes", {})
        rows = data["counterfactuals"]
        x_cols, cf_cols = {}, {}
        for f in features:  # one column at a time, built with its dtype (no casts afterwards)
            xv, cv = [data["x"][f]], [cf["values"][f] for cf in rows]
            dtype = dtypes.get(f)
            if dtype == "category":
                given = (categories or {}).get(f)
                values = list(given["values"]) if given else list(dict.fromkeys(xv + cv))
                dtype = pd.CategoricalDtype(values, ordered=bool(given and given.get("ordered")))
                x_cols[f], cf_cols[f] = pd.Categorical(xv, dtype=dtype), pd.Categorical(cv, dtype=dtype)
            elif dtype is not None:
                x_cols[f], cf_cols[f] = pd.array(xv, dtype=dtype), pd.array(cv, dtype=dtype)
            else:  # written without dtypes: as pandas infers x's value
                xs = pd.Series(xv)
                x_cols[f], cf_cols[f] = xs.array, pd.array(cv, dtype=xs.dtype)
        for m, dtype in _META_DTYPES.items():
            cf_cols[m] = np.asarray([cf[m] for cf in rows], dtype=dtype)
        x = pd.DataFrame(x_cols, index=[data.get("index", 0)])
        cfs = pd.DataFrame(cf_cols, index=ranked_index(len(rows)))
        return cls(
            x=x,
            counterfactuals=cfs,
            success=bool(data["success"]),
            reason=str(data.get("reason", "")),
            desired_class=data.get("desired_class"),
            x_probability=float("nan") if data["x_probability"] is None else float(data["x_probability"]),
            stats=dict(data.get("stats", {})),
            outcome=str(data.get("outcome") or ""),
            bound=None if data.get("bound") is None else float(data["bound"]),
            gap=None if data.get("gap") is None else float(data["gap"]),
        )


def _categories(explanation: Explanation) -> dict[str, dict[str, Any]]:
    """The categorical features' full category lists, for a JSONL header."""
    out = {}
    for f in explanation.features:
        dtype = explanation.x[f].dtype
        if isinstance(dtype, pd.CategoricalDtype):
            out[f] = {"values": [plain(v) for v in dtype.categories], "ordered": bool(dtype.ordered)}
    return out


def write_jsonl(
    explanations: Iterable[Explanation],
    path: str | os.PathLike[str] | IO[str],
    meta: Mapping[str, Any] | None = None,
) -> int:
    """Write a batch of explanations as JSON Lines (UTF-8); returns how many were written.

    Line 1 is a header ``{"geco_meta": {"format": 1, "categories": {...}, **meta}}``:
    ``categories`` maps each categorical feature to ``{"values": [...], "ordered": bool}`` (so
    reading restores the dtypes exactly); ``meta`` describes the batch once (keys the report
    reads: ``dataset``, ``model``, ``engine``, ``plaf`` - the program text - and
    ``constraints_file``; any other JSON-ready keys are kept). Each further line is one
    ``Explanation.to_dict()``: ``success``, ``reason``, ``desired_class``, ``x`` (feature ->
    value), ``x_probability``, ``counterfactuals`` (best first; each with ``probability``,
    ``distance``, ``n_changed``, ``counterfactual``, ``changes`` and ``values``), ``stats``,
    ``index`` (x's row label) and ``dtypes``. Explanations are written (and flushed) one by one
    as the iterable yields them, so a generator streams a long batch to disk and an interrupted
    batch keeps every finished row. ``path`` may be an open text file."""
    writer = JsonlWriter(path, meta)
    try:
        for e in explanations:
            writer.write(e)
    finally:
        writer.close()
    return writer.written


class JsonlWriter:
    """A JSON Lines file of explanations (the format of :func:`write_jsonl`) written one
    explanation at a time, each line flushed as it is written. The header goes out with the
    first explanation (its categories come from it). ``append``: add to the explanations an
    existing file holds (its header is kept; an empty or missing file gets one)."""

    def __init__(
        self, path: str | os.PathLike[str] | IO[str], meta: Mapping[str, Any] | None = None,
        *, append: bool = False,
    ) -> None:  # fmt: skip
        self.meta = dict(meta or {})
        reserved = {"format", "categories"} & set(self.meta)
        if reserved:
            raise ValueError(f"meta keys {sorted(reserved)} are reserved for the JSONL header")
        self._own = not hasattr(path, "write")
        if self._own:
            path = Path(path)
            has_lines = append and path.is_file() and path.stat().st_size > 0
            self._fh: IO[str] = open(path, "a" if append else "w", encoding="utf-8")  # noqa: SIM115
            self._header_due = not has_lines
        else:
            self._fh, self._header_due = path, True  # type: ignore[assignment]
        self.written = 0

    def write(self, explanation: Explanation) -> None:
        text = explanation.to_json() + "\n"
        if self._header_due:
            header = {"format": JSONL_FORMAT, "categories": _categories(explanation), **self.meta}
            text = json_text({"geco_meta": header}) + "\n" + text
            self._header_due = False
        self._fh.write(text)  # one write per explanation: an interruption never splits a line
        self._fh.flush()
        self.written += 1

    def close(self) -> None:
        """Finish the file (a header alone when nothing was written) and close it if it was
        opened here."""
        if self._header_due:
            header = {"format": JSONL_FORMAT, "categories": {}, **self.meta}
            self._fh.write(json_text({"geco_meta": header}) + "\n")
            self._header_due = False
        self._fh.flush()
        if self._own:
            self._fh.close()


def jsonl_instances(path: str | os.PathLike[str]) -> list[Any]:
    """The row labels (``index``) of the explanations a JSON Lines file holds, in file order,
    for resuming the batch that writes it. A last line cut short (a batch killed while writing)
    is removed from the file. Raises ValueError naming a line that is not an explanation."""
    path = Path(path)
    drop_partial_last_line(path)
    labels = []
    for lineno, data in _json_lines(path):
        if not isinstance(data, dict) or ("geco_meta" not in data and "index" not in data):
            raise ValueError(f"{path}, line {lineno}: not an explanation with an index")
        if "geco_meta" not in data:
            labels.append(data["index"])
    return labels


def _json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, decoded value) of every non-blank line of a JSON Lines file; raises
    ValueError naming the first line that is not JSON."""
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}, line {lineno}: not JSON ({exc.msg})") from None
            yield lineno, data


def drop_partial_last_line(path: Path) -> None:
    """Cut a file after its last newline (what a writer killed mid-line leaves)."""
    size = path.stat().st_size
    if size == 0:
        return
    with open(path, "rb+") as fh:
        fh.seek(max(0, size - 1))
        if fh.read(1) == b"\n":
            return
        data = fh.seek(0) or fh.read()
        fh.truncate(data.rfind(b"\n") + 1)


def read_jsonl(path: str | os.PathLike[str]) -> tuple[list[Explanation], dict[str, Any]]:
    """Read a file written by ``write_jsonl`` (or any file of ``to_json`` lines, header
    optional): the explanations and the header's metadata (``{}`` without a header). Blank lines
    are skipped. Raises FileNotFoundError, or ValueError naming the line that is not an
    explanation."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    explanations: list[Explanation] = []
    meta: dict[str, Any] = {}
    for lineno, data in _json_lines(path):
        if not isinstance(data, dict):
            raise ValueError(f"{path}, line {lineno}: expected a JSON object, got {type(data).__name__}")
        if "geco_meta" in data:
            if explanations or meta:
                raise ValueError(f"{path}, line {lineno}: the geco_meta header must be the first line")
            meta = dict(data["geco_meta"])
            continue
        try:
            explanations.append(Explanation.from_dict(data, meta.get("categories")))
        except KeyError as exc:
            raise ValueError(f"{path}, line {lineno}: not an explanation (missing key {exc})") from None
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{path}, line {lineno}: {exc}") from None
    return explanations, meta
