"""``--workers 2``: two processes behind one socket, each with the Explainer loaded; a worker
killed is replaced and the service goes on answering."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from serve_helpers import start_server

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")


def children(pid: int) -> set[int]:
    """The live child processes of ``pid`` that are uvicorn workers (not multiprocessing
    helpers, not a killed worker its parent has not reaped yet)."""
    out = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
                state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:  # gone meanwhile
                continue
            if b"resource_tracker" not in cmdline and state != "Z":
                out.add(int(child))
    return out


def ready_pids(server) -> set[int]:
    """The workers that have loaded the Explainer (their "ready" log line)."""
    return {x["pid"] for x in server.log_lines() if x.get("event") == "ready"}


def test_killed_worker_is_replaced(explainer_file, tmp_path, records):
    server = start_server(explainer_file, tmp_path, "--workers", "2")
    try:
        parent = server.process.pid
        deadline = time.monotonic() + 60
        while len(ready_pids(server)) < 2 and time.monotonic() < deadline:  # both loaded
            time.sleep(0.1)
        workers = children(parent)
        assert len(workers) == 2 and ready_pids(server) == workers
        with server.client() as c:  # an explanation closes its connection: the next may go elsewhere
            r = c.post("/explain", json={"rows": records[0], "random_state": 0})
            assert r.status_code == 200 and r.headers["connection"] == "close"
            assert c.get("/health").headers.get("connection") != "close"
        victim = min(workers)
        os.kill(victim, signal.SIGKILL)
        with server.client() as c:  # the other worker answers meanwhile
            assert c.post("/explain", json={"rows": records[0], "random_state": 0}).status_code == 200
        while (victim in children(parent) or len(children(parent)) < 2) and time.monotonic() < deadline:
            time.sleep(0.1)
        replaced = children(parent)
        assert len(replaced) == 2 and victim not in replaced
        while len(ready_pids(server)) < 3 and time.monotonic() < deadline:  # the replacement loaded
            time.sleep(0.1)
        assert ready_pids(server) == workers | replaced
        with server.client() as c:
            pids = {c.get("/health").json()["pid"] for _ in range(20)}
            assert pids <= replaced
    finally:
        assert server.stop() == 0
