"""Bad requests never reach the search: each kind is answered 4xx naming the field, and the
service goes on serving."""

from __future__ import annotations

import json

import pytest

ALICE = "alice-secret-key"


def bad(records, **change):
    row = dict(records[0])
    for k, v in change.items():
        if v is KeyError:
            del row[k]
        else:
            row[k] = v
    return row


CASES = {
    "malformed JSON": (dict(content=b'{"rows": {"age": 39,'), 400, "body"),
    "NaN": (dict(content=b'{"rows": {"age": NaN}}'), 400, "body"),
    "Infinity": (dict(content=b'{"rows": {"age": -Infinity}}'), 400, "body"),
    "not an object": (dict(json=[1, 2]), 422, "body"),
    "no rows": (dict(json={"k": 3}), 422, "rows"),
    "rows not records": (dict(json={"rows": [1]}), 422, "rows[0]"),
    "empty list": (dict(json={"rows": []}), 422, "rows"),
    "unknown option": (dict(json={"rows": {}, "generations": 3}), 422, "generations"),
    "option of the wrong type": (dict(json={"rows": {}, "k": "5"}), 422, "k"),
    "option out of range": (dict(json={"rows": {}, "q": 10**9}), 422, "q"),
    "bad seed": (dict(json={"rows": {}, "random_state": -1}), 422, "random_state"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_with_the_field(server, name):
    kwargs, status, field = CASES[name]
    with server.client(ALICE) as c:
        r = c.post("/explain", **kwargs)
    assert r.status_code == status, r.text
    assert r.json()["field"] == field
    assert field.split("[")[0] in r.json()["detail"]


@pytest.mark.parametrize(
    "change, field, words",
    [
        (dict(age="39"), "rows.age", "expected number, got string"),
        (dict(age=True), "rows.age", "expected number, got boolean"),
        (dict(age=None), "rows.age", "got null"),
        (dict(age=39.5), "rows.age", "expected an integer"),
        (dict(workclass="Astronaut"), "rows.workclass", "unknown category 'Astronaut'"),
        (dict(workclass=3), "rows.workclass", "expected string, got number"),
        (dict(sex=KeyError), "rows.sex", "missing column 'sex'"),
        (dict(shoe_size=44), "rows.shoe_size", "unknown column 'shoe_size'"),
    ],
)
def test_bad_values_named(server, records, change, field, words):
    with server.client(ALICE) as c:
        r = c.post("/explain", json={"rows": bad(records, **change)})
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field and words in r.json()["detail"]


def test_number_beyond_float_named(server, records):
    body = json.dumps({"rows": bad(records, age=12345)}).replace("12345", "1e999")
    with server.client(ALICE) as c:
        r = c.post("/explain", content=body.encode())
    assert r.status_code == 422 and r.json()["field"] == "rows.age" and "non-finite" in r.json()["detail"]


def test_bad_row_in_a_list_named_by_position(server, records):
    with server.client(ALICE) as c:
        r = c.post("/explain", json={"rows": [records[0], bad(records, race="Martian")]})
    assert r.status_code == 422 and r.json()["field"] == "rows[1].race"


def test_too_many_rows_and_oversized_body(server, records):
    with server.client(ALICE) as c:
        r = c.post("/explain", json={"rows": records[:6]})  # --max-rows 5
        assert r.status_code == 413 and r.json()["field"] == "rows" and "at most 5" in r.json()["detail"]
        r = c.post("/explain", content=b" " * 30000)  # --max-body 20000
        assert r.status_code == 413 and "20000" in r.json()["detail"]

        def chunks():  # no Content-Length: refused while it streams in
            for _ in range(30):
                yield b" " * 1000

        r = c.post("/explain", content=chunks())
        assert r.status_code == 413


def test_still_serving_after_bad_requests(server, records):
    with server.client(ALICE) as c:
        for _ in range(3):
            c.post("/explain", content=b"{{{")
        r = c.post("/explain", json={"rows": records[0], "random_state": 0})
    assert r.status_code == 200 and r.json()["success"]
    refused = [x for x in server.log_lines() if x.get("status") in (400, 413, 422)]
    assert refused and all(x["rows"] is None for x in refused)  # none reached the search
