"""The service over HTTP: answers equal to the library's, the description endpoints, logs."""

from __future__ import annotations

import hashlib
import json
import re

import pandas as pd
import pytest

import geco
from geco.batch import row_seeds
from geco.search.compiled import kernels_available
from geco.serve.seeds import derived_seed

ALICE = "alice-secret-key"


def comparable(d: dict) -> dict:
    """An explanation's dict without what differs run to run (timings, which search ran and the
    rows it reused: the answers are the same) or by request (index)."""
    out = {k: v for k, v in d.items() if k != "index"}
    out["stats"] = {k: v for k, v in d["stats"].items()
                    if not k.startswith("seconds") and k not in ("compiled_search", "rows_reused")}  # fmt: skip
    return out


@pytest.fixture(scope="module")
def local(explainer_file):
    return geco.load(explainer_file)


def test_one_row_equals_explain(server, local, records):
    with server.client(ALICE) as c:
        r = c.post("/explain", json={"rows": records[0], "random_state": 7, "k": 3})
    assert r.status_code == 200, r.text
    assert re.fullmatch(r"[0-9a-f]{16}", r.headers["x-request-id"])
    want = local.explain(pd.DataFrame([records[0]]), random_state=7, k=3, native=False).to_dict()
    assert comparable(r.json()) == comparable(want)
    # the service loaded and warmed the compiled search at start-up (where numba is installed)
    assert r.json()["stats"]["compiled_search"] == kernels_available()
    ready = [line for line in server.log_lines() if line.get("event") == "ready"]
    assert ready and ready[0]["search"] == ("compiled search loaded and warmed" if kernels_available() else
                                            "numpy search (numba is not installed, or GECO_SEARCH_NATIVE=0)")
    assert ready[0]["gc_frozen"] > 10_000
    assert r.json()["success"] and len(r.json()["counterfactuals"]) <= 3
    assert r.headers.get("connection") != "close"  # one worker: the connection is kept alive


def test_list_equals_explain_many_seeds(server, local, records):
    rows = records[:3]
    with server.client(ALICE) as c:
        r = c.post("/explain", json={"rows": rows, "random_state": 11})
    assert r.status_code == 200, r.text
    got = r.json()
    assert isinstance(got, list) and len(got) == 3
    seeds = row_seeds(11, 3)
    for i, (record, answer) in enumerate(zip(rows, got)):
        want = local.explain(pd.DataFrame([record]), random_state=seeds[i]).to_dict()
        assert comparable(answer) == comparable(want)
        assert answer["index"] == i


def test_same_row_and_key_same_answer(server, local, records):
    """Without random_state the seed comes from the row and the key id: repeatable."""
    record = dict(reversed(list(records[1].items())))  # column order does not matter
    with server.client(ALICE) as c:
        a = c.post("/explain", json={"rows": record}).json()
        b = c.post("/explain", json={"rows": [records[1]]}).json()[0]
    want = local.explain(pd.DataFrame([records[1]]), random_state=derived_seed(records[1], "alice")).to_dict()
    assert comparable(a) == comparable(b) == comparable(want)


def test_health_ready_docs(server):
    with server.client() as c:  # no key needed
        health = c.get("/health")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        ready = c.get("/ready")
        assert ready.status_code == 200
        body = ready.json()
        assert set(body) == {"ready", "engine", "search", "compiling"}
        assert body["ready"] is True and body["engine"] == "trees-auto" and body["search"] in ("compiled", "numpy")
        # what the warm-up did: loaded the compiled search, or left it to a child (then the
        # worker may have switched since, on a request)
        started = next(line for line in server.log_lines() if line.get("event") == "ready")["search"]
        if started.startswith("compiled"):
            assert body["search"] == "compiled" and body["compiling"] is False
        elif not started.startswith("numpy search while a child"):
            assert body["search"] == "numpy" and body["compiling"] is False
        docs = c.get("/docs")
        assert docs.status_code == 200 and "swagger" in docs.text.lower()
        spec = c.get("/openapi.json").json()
    assert {"/explain", "/model", "/health", "/ready"} <= set(spec["paths"])
    body = spec["paths"]["/explain"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert "rows" in body["properties"] and "k" in body["properties"]


def test_model_card(server, local, explainer_file):
    with server.client(ALICE) as c:
        card = c.get("/model").json()
    assert [f["name"] for f in card["features"]] == list(local.schema.names)
    assert card["program"] == str(local.program)
    assert card["engine"] == local.engine and card["engine_reason"] == local.engine_reason
    fp = card["fingerprints"]
    assert fp["program_sha256"] == hashlib.sha256(str(local.program).encode()).hexdigest()
    assert fp["explainer_file_sha256"] == hashlib.sha256(explainer_file.read_bytes()).hexdigest()
    assert re.fullmatch(r"[0-9a-f]{64}", fp["model_sha256"])
    assert card["limits"] == {"max_rows": 5, "max_body": 20000}
    assert card["target"] == {"kind": "probability", "desired_class": local.desired_class, "threshold": 0.5}
    assert card["desired_class"] == local.desired_class


def test_model_card_of_an_open_range_is_standard_json(tmp_path):
    """A regression served for an open range: the card says the target, its open end null (the
    service's JSON encoder refuses infinity), and no class."""
    import numpy as np
    from sklearn.ensemble import RandomForestRegressor

    from geco.serve.card import model_card

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(18, 70, 200), "hours": rng.integers(10, 60, 200)})
    model = RandomForestRegressor(5, max_depth=4, random_state=0).fit(X, X["age"] * 2.5 + X["hours"] * 10.25)
    path = geco.Explainer(model, X, desired_range=(600, np.inf)).save(tmp_path / "e.joblib")
    card = model_card(geco.load(path), path)
    assert card["target"] == {"kind": "range", "desired_range": [600.0, None]} and card["desired_class"] is None
    json.dumps(card, allow_nan=False)


def test_access_log_lines(server, records):
    with server.client(ALICE) as c:
        rid = c.post("/explain", json={"rows": records[2], "random_state": 0}).headers["x-request-id"]
    lines = server.log_lines()
    line = next(x for x in lines if x.get("request_id") == rid)
    assert {"method": "POST", "path": "/explain", "status": 200, "key_id": "alice", "rows": 1}.items() <= line.items()
    assert line["latency_ms"] > 0 and isinstance(line["pid"], int)
    assert ALICE not in server.log.read_text()  # the key id, never the key
