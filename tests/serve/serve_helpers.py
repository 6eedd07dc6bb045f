"""Helpers of the service tests (imported by conftest.py and the tests): the real service in a subprocess (``python -m geco serve`` on 127.0.0.1, a free port) over
small saved Explainers: Adult RF-20 (compiled) fitted on 3,000 rows, and the same forest behind
a model that raises for one value (black box). Without fastapi / uvicorn / httpx only
test_dependencies.py is collected, and it skips saying what is missing."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
MISSING = [m for m in ("fastapi", "uvicorn", "httpx") if importlib.util.find_spec(m) is None]
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

KEYS = {
    "alice-secret-key": {"id": "alice", "scopes": ["explain", "model"], "budget": 1000},
    "bob-secret-key": {"id": "bob", "scopes": ["model"]},
    "carol-secret-key": {"id": "carol", "scopes": ["explain"], "budget": 2},
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A running ``geco serve``: its process, base URL and access log file."""

    process: subprocess.Popen
    url: str
    log: Path
    output: Path  # the server's stdout and stderr

    def client(self, key: str | None = None):
        """An httpx.Client on the server, sending ``key`` as a bearer token."""
        import httpx

        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)

    def log_lines(self) -> list[dict]:
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def stop(self, timeout: float = 30) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def start_server(explainer: Path, tmp: Path, *extra: str, wait: float = 90) -> Server:
    import httpx

    port = free_port()
    log, output = tmp / f"access-{port}.jsonl", tmp / f"server-{port}.out"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE), os.environ.get("PYTHONPATH", "")]))
    with open(output, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "geco", "serve", str(explainer), "--port", str(port), "--access-log", str(log), *extra],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    server = Server(process, f"http://127.0.0.1:{port}", log, output)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"geco serve exited {process.returncode}:\n{output.read_text()}")
        try:
            if httpx.get(f"{server.url}/ready", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"geco serve did not get ready in {wait} s:\n{output.read_text()}")


