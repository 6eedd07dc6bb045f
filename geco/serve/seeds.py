"""The seed of each row a request explains.

With ``random_state`` the service follows the library: one record is explained with that seed
(as ``Explainer.explain``), a list with ``geco.batch.row_seeds`` (as ``explain_many``). Without
it the seed is derived from the record's content and the key id, so the same row asked with the
same key gets the same answer from any worker, at any time."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from geco.batch import row_seeds

__all__ = ["derived_seed", "request_seeds"]


def derived_seed(record: dict[str, Any], key_id: str | None) -> int:
    """A 128-bit seed from the record (column order does not matter) and the key id."""
    text = json.dumps([key_id or "", record], sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return int.from_bytes(hashlib.sha256(text.encode("ascii")).digest()[:16], "big")


def request_seeds(
    records: Sequence[dict[str, Any]], single: bool, random_state: int | None, key_id: str | None
) -> list[Any]:
    """One seed per record (see the module docstring)."""
    if random_state is None:
        return [derived_seed(r, key_id) for r in records]
    if single:
        return [random_state]
    return list(row_seeds(random_state, len(records)))
