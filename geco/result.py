"""What an explanation returns: counterfactual rows, the changes a person reads, and run stats."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Explanation"]

_META = ("probability", "distance", "n_changed", "counterfactual")


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    return v


@dataclass
class Explanation:
    """The result of ``Explainer.explain`` for one instance.

    ``counterfactuals``: one row per counterfactual (best first) with the features in the user's
    form plus ``probability`` (of the desired class, from the model's own ``predict_proba``),
    ``distance``, ``n_changed`` and ``counterfactual`` (False only for the best non-counterfactual
    candidates reported when the search failed). ``success`` is True iff at least one
    counterfactual was found; ``reason`` says why not, or notes anything worth knowing."""

    x: pd.DataFrame
    counterfactuals: pd.DataFrame
    success: bool
    reason: str
    desired_class: Any
    x_probability: float
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def features(self) -> list[str]:
        return list(self.x.columns)

    def changes(self) -> pd.DataFrame:
        """Per counterfactual, each changed feature with its value in ``x`` and in the
        counterfactual: columns ``counterfactual, feature, from, to``. ``counterfactual`` is the
        number printed before it (#1 is the first row of ``counterfactuals``)."""
        recs = []
        xrow = self.x.iloc[0]
        for i, (_, row) in enumerate(self.counterfactuals.iterrows()):
            for f in self.features:
                if row[f] != xrow[f]:
                    recs.append(
                        {"counterfactual": i + 1, "feature": f, "from": _plain(xrow[f]), "to": _plain(row[f])}
                    )
        return pd.DataFrame(recs, columns=["counterfactual", "feature", "from", "to"])

    def __len__(self) -> int:
        return len(self.counterfactuals)

    # ------------------------------------------------------------------ rendering
    def _header(self) -> str:
        if not self.success:
            return (
                f"No counterfactual for desired class {self.desired_class!r} "
                f"(instance p = {self.x_probability:.3f})"
            )
        n = int(self.counterfactuals["counterfactual"].sum())
        return (
            f"Counterfactuals found: {n} for desired class {self.desired_class!r} "
            f"(instance p = {self.x_probability:.3f})"
        )

    def __str__(self) -> str:
        lines = [self._header()]
        if self.reason:
            lines.append(f"  note: {self.reason}")
        xrow = self.x.iloc[0]
        for i, (_, row) in enumerate(self.counterfactuals.iterrows()):
            tag = "" if row["counterfactual"] else "  (not a counterfactual)"
            lines.append(
                f"#{i + 1}  p={row['probability']:.3f}  distance={row['distance']:.4f}  "
                f"changes={int(row['n_changed'])}{tag}"
            )
            changed = [f for f in self.features if row[f] != xrow[f]]
            width = max((len(f) for f in changed), default=0)
            for f in changed:
                lines.append(f"    {f:<{width}}  {_plain(xrow[f])!s:>14} -> {_plain(row[f])!s}")
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
        xrow = self.x.iloc[0]
        head = "<tr><th></th>" + "".join(f"<th>{html.escape(f)}</th>" for f in self.features)
        head += "".join(f"<th>{m}</th>" for m in _META) + "</tr>"
        body = ["<tr><td><b>x</b></td>"
                + "".join(f"<td>{html.escape(str(_plain(xrow[f])))}</td>" for f in self.features)
                + f"<td>{self.x_probability:.3f}</td><td></td><td></td><td></td></tr>"]  # fmt: skip
        for i, (_, row) in enumerate(self.counterfactuals.iterrows()):
            cells = []
            for f in self.features:
                v = html.escape(str(_plain(row[f])))
                cells.append(f"<td><b>{v}</b></td>" if row[f] != xrow[f] else f"<td style='color:#999'>{v}</td>")
            meta = (f"<td>{row['probability']:.3f}</td><td>{row['distance']:.4f}</td>"
                    f"<td>{int(row['n_changed'])}</td><td>{bool(row['counterfactual'])}</td>")  # fmt: skip
            body.append(f"<tr><td>#{i + 1}</td>{''.join(cells)}{meta}</tr>")
        parts.append(f"<table>{head}{''.join(body)}</table>")
        return "".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (used by ``geco explain --json``)."""
        xrow = self.x.iloc[0]
        cfs = []
        for _, row in self.counterfactuals.iterrows():
            cfs.append(
                {
                    "probability": float(row["probability"]),
                    "distance": float(row["distance"]),
                    "n_changed": int(row["n_changed"]),
                    "counterfactual": bool(row["counterfactual"]),
                    "changes": {
                        f: {"from": _plain(xrow[f]), "to": _plain(row[f])}
                        for f in self.features
                        if row[f] != xrow[f]
                    },
                    "values": {f: _plain(row[f]) for f in self.features},
                }
            )
        stats = {k: (_plain(v) if not isinstance(v, dict) else {a: _plain(b) for a, b in v.items()})
                 for k, v in self.stats.items()}  # fmt: skip
        return {
            "success": self.success,
            "reason": self.reason,
            "desired_class": _plain(self.desired_class),
            "x": {f: _plain(xrow[f]) for f in self.features},
            "x_probability": self.x_probability,
            "counterfactuals": cfs,
            "stats": stats,
        }

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), default=str, **kw)
