"""API keys, their scopes and their query budgets.

A counterfactual service leaks the model's decision boundary one answer at a time, so a bank
meters it. The keys file is JSON::

    {"keys": {"<key>": {"id": "bank-a", "scopes": ["explain", "model"], "budget": 1000},
              "sha256:<hex digest of a key>": {"id": "ops", "scopes": ["model"]}}}

A key may be written in the clear or as ``sha256:`` and its digest; ``id`` (default: the first
12 hex digits of the digest) is what logs show, never the key. ``budget`` counts rows explained
(absent or null: unmetered). Usage lives in a SQLite file the workers share, so the budget holds
across processes and restarts.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["SCOPES", "AccessDenied", "ApiKey", "KeyRing", "UsageLedger", "digest"]

#: what a key may be allowed: ``explain`` for POST /explain, ``model`` for GET /model
SCOPES = ("explain", "model")


def digest(key: str) -> str:
    """The sha256 hex digest of a key (keys are looked up by digest, never kept in the clear)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class AccessDenied(Exception):
    """A request the keys refuse: ``status`` 401 (no or unknown key), 403 (scope) or 429
    (budget spent)."""

    def __init__(self, status: int, message: str, key_id: str | None = None):
        super().__init__(message)
        self.status = status
        self.key_id = key_id


@dataclass(frozen=True)
class ApiKey:
    """One key's id (shown in logs), scopes and budget (rows; None: unmetered)."""

    id: str
    scopes: frozenset[str]
    budget: int | None = None


class KeyRing:
    """The keys of a keys file, looked up by the key a request presents."""

    def __init__(self, keys: Mapping[str, ApiKey]):
        self._by_digest = dict(keys)

    @classmethod
    def load(cls, path: str | Path) -> KeyRing:
        """Read a keys file; ValueError names the entry that is malformed."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"keys file {path}: not JSON ({exc.msg}, line {exc.lineno})") from None
        entries = data.get("keys") if isinstance(data, dict) else None
        if not isinstance(entries, dict):
            raise ValueError(f"keys file {path}: expected {{\"keys\": {{key: {{...}}}}}}")
        keys: dict[str, ApiKey] = {}
        for key, spec in entries.items():
            hexdigest = key[len("sha256:"):].lower() if key.startswith("sha256:") else digest(key)
            keys[hexdigest] = _entry(path, hexdigest, spec)
        ids = [k.id for k in keys.values()]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"keys file {path}: key id(s) {dup} used more than once")
        return cls(keys)

    def check(self, presented: str | None, scope: str) -> ApiKey:
        """The key a request presents, if it holds ``scope``; AccessDenied (401 / 403) if not."""
        if not presented:
            raise AccessDenied(401, "an API key is required (header 'Authorization: Bearer <key>' or 'X-API-Key')")
        key = self._by_digest.get(digest(presented))
        if key is None:
            raise AccessDenied(401, "unknown API key")
        if scope not in key.scopes:
            raise AccessDenied(403, f"key {key.id!r} lacks the scope {scope!r}", key.id)
        return key


def _entry(path: Path, hexdigest: str, spec: Any) -> ApiKey:
    where = f"keys file {path}, key {hexdigest[:12]}"
    if not isinstance(spec, dict):
        raise ValueError(f"{where}: expected an object with scopes and budget")
    scopes = spec.get("scopes", list(SCOPES))
    if not isinstance(scopes, list) or not set(scopes) <= set(SCOPES):
        raise ValueError(f"{where}: scopes must be a list drawn from {list(SCOPES)}, got {scopes!r}")
    budget = spec.get("budget")
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget < 0):
        raise ValueError(f"{where}: budget must be a non-negative integer or null, got {budget!r}")
    key_id = spec.get("id", hexdigest[:12])
    if not isinstance(key_id, str) or not key_id:
        raise ValueError(f"{where}: id must be a non-empty string")
    return ApiKey(key_id, frozenset(scopes), budget)


class UsageLedger:
    """Rows explained per key id, in a SQLite file every worker shares (one atomic update per
    request, so two workers never both spend the last query)."""

    def __init__(self, path: str | Path):
        self._db = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS usage (key_id TEXT PRIMARY KEY, used INTEGER NOT NULL)")

    def charge(self, key: ApiKey, rows: int) -> int:
        """Spend ``rows`` queries of ``key``'s budget and return what it has used; AccessDenied
        (429) - nothing spent - when they do not fit in what is left."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("INSERT OR IGNORE INTO usage VALUES (?, 0)", (key.id,))
                (used,) = self._db.execute("SELECT used FROM usage WHERE key_id = ?", (key.id,)).fetchone()
                if key.budget is not None and used + rows > key.budget:
                    raise AccessDenied(
                        429, f"key {key.id!r} has spent its budget ({used} of {key.budget} rows "
                        f"used; this request needs {rows})", key.id,
                    )  # fmt: skip
                self._db.execute("UPDATE usage SET used = ? WHERE key_id = ?", (used + rows, key.id))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return used + rows

    def used(self, key_id: str) -> int:
        row = self._db.execute("SELECT used FROM usage WHERE key_id = ?", (key_id,)).fetchone()
        return 0 if row is None else int(row[0])

    def close(self) -> None:
        self._db.close()
