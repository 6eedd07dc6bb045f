"""An error inside an explanation is a 500 with a request id, logged with its traceback, and the
worker goes on; SIGTERM lets the requests in flight finish, then the service exits 0."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from faulty_model import FAILING_AGE
from serve_helpers import start_server


@pytest.fixture(scope="module")
def faulty(faulty_file, tmp_path_factory):
    s = start_server(faulty_file, tmp_path_factory.mktemp("faulty"))
    yield s
    s.stop()


def test_error_in_explanation_500_worker_alive(faulty, records):
    with faulty.client() as c:
        pid = c.get("/health").json()["pid"]
        r = c.post("/explain", json={"rows": [records[0], dict(records[1], age=FAILING_AGE)]})
        assert r.status_code == 500, r.text
        rid = r.json()["request_id"]
        assert rid == r.headers["x-request-id"] and rid in r.json()["detail"] and "rows[1]" in r.json()["detail"]
        assert c.get("/health").json()["pid"] == pid
        ok = c.post("/explain", json={"rows": records[0], "random_state": 0, "max_generations": 5})
        assert ok.status_code == 200 and ok.json()["x"]["age"] == records[0]["age"]
    error = next(x for x in faulty.log_lines() if x.get("event") == "error")
    assert error["request_id"] == rid and "RuntimeError" in error["error"] and "Traceback" in error["traceback"]
    assert any(x.get("request_id") == rid and x.get("status") == 500 for x in faulty.log_lines())


def test_sigterm_finishes_in_flight_requests(faulty, records):
    answers, done = [], []

    def ask():
        with faulty.client() as c:
            answers.append(c.post("/explain", json={"rows": records[:5], "random_state": 0, "min_generations": 60}))
        done.append(time.monotonic())

    t = threading.Thread(target=ask)
    t.start()
    time.sleep(0.5)  # five black-box searches of 60 generations or more take seconds, compiled or not
    sigterm = time.monotonic()
    status = faulty.stop()
    t.join(30)
    assert status == 0
    assert len(answers) == 1 and answers[0].status_code == 200 and len(answers[0].json()) == 5
    assert done[0] > sigterm  # it was in flight when SIGTERM came
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{faulty.url}/health", timeout=2)
    assert faulty.log_lines()[-1]["event"] == "stopped"
