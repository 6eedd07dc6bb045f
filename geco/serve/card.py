"""What ``GET /model`` says about the served Explainer: its schema, the PLAF program, the engine
and why, its knobs, and sha256 fingerprints of the model, the program and the file served, so a
client can tell which decision function answered."""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from pathlib import Path
from typing import Any

from geco.explainer import Explainer
from geco.result import json_safe, plain

__all__ = ["file_sha256", "model_card"]


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def model_card(explainer: Explainer, path: str | Path) -> dict[str, Any]:
    """The JSON-ready description of ``explainer``, loaded from ``path``."""
    program = str(explainer.program)
    knobs = dataclasses.asdict(explainer.config)
    return json_safe({  # an open end of a range (in the target and the knobs) as null
        "model": type(explainer.model).__name__,
        "desired_class": plain(explainer.desired_class) if explainer.target.is_probability else None,
        "target": explainer.target.to_dict(),  # as answers' stats say it
        "features": [
            {
                "name": f.name,
                "kind": f.kind,
                "dtype": f.dtype,
                **({"categories": [plain(c) for c in f.categories]} if f.categories is not None else {}),
            }
            for f in explainer.schema.features
        ],
        "ignored_columns": list(explainer.ignored_columns),
        "rows": len(explainer.table),
        "program": program,
        "groups": [list(g) for g in explainer.groups],
        "engine": explainer.engine,
        "engine_reason": explainer.engine_reason,
        "knobs": {k: list(v) if isinstance(v, tuple) else plain(v) for k, v in knobs.items()},
        "fingerprints": {
            "model_sha256": hashlib.sha256(pickle.dumps(explainer.model, protocol=5)).hexdigest(),
            "program_sha256": hashlib.sha256(program.encode("utf-8")).hexdigest(),
            "explainer_file_sha256": file_sha256(path),
        },
    })
