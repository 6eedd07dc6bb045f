"""API keys: 401 without or with an unknown key, 403 for a scope the key lacks, 429 when its
budget is spent (shared by the workers through the usage file); the keys file's checks."""

from __future__ import annotations

import json
import threading

import pytest

from geco.serve.access import AccessDenied, ApiKey, KeyRing, UsageLedger, digest


def test_no_key_401(server, records):
    with server.client() as c:
        r = c.post("/explain", json={"rows": records[0]})
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        assert c.get("/model").status_code == 401
    with server.client("not-a-key") as c:
        assert c.post("/explain", json={"rows": records[0]}).status_code == 401


def test_x_api_key_header(server):
    with server.client() as c:
        assert c.get("/model", headers={"X-API-Key": "alice-secret-key"}).status_code == 200


def test_wrong_scope_403(server, records):
    with server.client("bob-secret-key") as c:
        assert c.get("/model").status_code == 200
        r = c.post("/explain", json={"rows": records[0]})
    assert r.status_code == 403 and "'explain'" in r.json()["detail"]
    with server.client("carol-secret-key") as c:
        assert c.get("/model").status_code == 403


def test_budget_spent_429(server, records):
    with server.client("carol-secret-key") as c:  # budget: 2 rows
        assert c.post("/explain", json={"rows": records[:2], "random_state": 0}).status_code == 200
        r = c.post("/explain", json={"rows": records[3], "random_state": 0})
        assert r.status_code == 429 and "budget" in r.json()["detail"]
        # a bad request is refused before it is metered
        assert c.post("/explain", json={"rows": {"age": 1}}).status_code == 422
    assert [x["status"] for x in server.log_lines() if x.get("key_id") == "carol" and x.get("path") == "/explain"][-3:] == [200, 429, 422]


def write_keys(tmp_path, keys) -> str:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps({"keys": keys}))
    return str(path)


def test_keys_file_by_digest_and_defaults(tmp_path):
    ring = KeyRing.load(write_keys(tmp_path, {f"sha256:{digest('k1')}": {"id": "one", "scopes": ["model"]},
                                              "k2": {}}))  # fmt: skip
    assert ring.check("k1", "model") == ApiKey("one", frozenset({"model"}), None)
    k2 = ring.check("k2", "explain")
    assert k2.id == digest("k2")[:12] and k2.scopes == {"explain", "model"}
    with pytest.raises(AccessDenied) as exc:
        ring.check("k1", "explain")
    assert exc.value.status == 403 and exc.value.key_id == "one"


@pytest.mark.parametrize(
    "keys, words",
    [
        ({"k": {"scopes": ["admin"]}}, "scopes"),
        ({"k": {"budget": -1}}, "budget"),
        ({"k": {"budget": "10"}}, "budget"),
        ({"a": {"id": "x"}, "b": {"id": "x"}}, "more than once"),
        ({"k": []}, "expected an object"),
    ],
)
def test_bad_keys_file(tmp_path, keys, words):
    with pytest.raises(ValueError, match=words):
        KeyRing.load(write_keys(tmp_path, keys))


def test_ledger_is_atomic_across_connections(tmp_path):
    """Two ledgers on one file (two workers) never spend more than the budget between them."""
    key = ApiKey("k", frozenset({"explain"}), 50)
    ledgers = [UsageLedger(tmp_path / "usage.sqlite") for _ in range(2)]
    granted = []

    def spend(ledger):
        for _ in range(40):
            try:
                ledger.charge(key, 1)
                granted.append(1)
            except AccessDenied as exc:
                assert exc.status == 429

    threads = [threading.Thread(target=spend, args=(ledger,)) for ledger in ledgers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(granted) == 50 and ledgers[0].used("k") == 50
    reopened = UsageLedger(tmp_path / "usage.sqlite")  # kept across restarts
    with pytest.raises(AccessDenied):
        reopened.charge(key, 1)
    for ledger in [*ledgers, reopened]:
        ledger.close()
