"""A self-contained HTML report for a batch of explanations.

``report(explanations, "report.html", dataset=..., model=..., plaf=...)`` writes one HTML file
with its styles, script, charts (static SVG drawn by matplotlib) and data inlined: what the
model asks of people (which features the counterfactuals change, in which direction, by how
much), how hard that is to reach (features changed, distance), each row's outcome (found, not
found - with the reason -, already desired, error; counted as ``geco explain`` counts them), the
constraints the explanations were made under, and a filterable card per instance. Needs the
``report`` extra (``pip install 'geco-cf[report]'``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from geco.report.page import render
from geco.result import Explanation, read_jsonl

__all__ = ["render", "report"]


def report(
    explanations: Iterable[Explanation] | str | os.PathLike[str],
    path: str | os.PathLike[str],
    **metadata: Any,
) -> Path:
    """Write the HTML report for ``explanations`` to ``path`` and return the path.

    ``explanations``: geco.Explanation objects, or the path of a JSONL file written by
    ``geco.result.write_jsonl`` (its header's metadata is used; keyword arguments override it).
    Metadata shown in the overview: ``title``, ``dataset``, ``model`` (text, or a fitted model
    to describe), ``engine`` (default: from the explanations' stats), ``plaf`` (the constraints'
    program text, shown with line numbers), ``constraints_file`` (its name; its text is read
    when ``plaf`` is not given), ``generated``; any other key is listed as given. Without
    ``plaf`` or a readable ``constraints_file`` the program is the one each explanation records
    (``stats["plaf"]``), and "unknown" for one that records none. ``laws`` (from
    ``geco.laws.mine(X)``) with ``data`` (that ``X``) adds a section counting, per law the data
    obeys, the answers that break it.
    Raises ImportError naming the ``report`` extra when matplotlib is missing."""
    if isinstance(explanations, (str, os.PathLike)):
        explanations, file_meta = read_jsonl(explanations)
        metadata = {**file_meta, **metadata}
    html = render(explanations, **metadata)
    out = Path(path)
    out.write_text(html, encoding="utf-8")
    return out
