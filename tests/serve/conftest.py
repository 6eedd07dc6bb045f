"""The real service in a subprocess (``python -m geco serve`` on 127.0.0.1, a free port) over
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

import pytest

HERE = Path(__file__).parent
MISSING = [m for m in ("fastapi", "uvicorn", "httpx") if importlib.util.find_spec(m) is None]
collect_ignore = [p.name for p in HERE.glob("test_*.py") if p.name != "test_dependencies.py"] if MISSING else []
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


@pytest.fixture(scope="session")
def adult_small():
    import geco

    ds = geco.datasets.load_adult()
    return ds, ds.X.iloc[:3000], ds.y.iloc[:3000]


@pytest.fixture(scope="session")
def forest(adult_small):
    from sklearn.ensemble import RandomForestClassifier

    from geco.models import one_hot_pipeline

    _, X, y = adult_small
    return one_hot_pipeline(X, RandomForestClassifier(20, max_depth=6, random_state=0)).fit(X, y)


@pytest.fixture(scope="session")
def explainer_file(adult_small, forest, tmp_path_factory) -> Path:
    import geco

    ds, X, _ = adult_small
    path = tmp_path_factory.mktemp("serve") / "rf20.joblib"
    geco.Explainer(forest, X, ds.constraints, ds.desired_class).save(path)
    return path


@pytest.fixture(scope="session")
def faulty_file(adult_small, forest, tmp_path_factory) -> Path:
    from faulty_model import FaultyModel

    import geco

    ds, X, _ = adult_small
    X = X.astype({"age": "float64"})
    path = tmp_path_factory.mktemp("serve") / "faulty.joblib"
    geco.Explainer(FaultyModel(forest), X, ds.constraints, ds.desired_class, engine="blackbox").save(path)
    return path


@pytest.fixture(scope="session")
def keys_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("keys") / "keys.json"
    path.write_text(json.dumps({"keys": KEYS}))
    return path


@pytest.fixture(scope="session")
def server(explainer_file, keys_file, tmp_path_factory):
    """The RF-20 service with API keys (alice: everything; bob: /model; carol: 2 rows)."""
    s = start_server(explainer_file, tmp_path_factory.mktemp("srv"), "--keys", str(keys_file),
                     "--max-rows", "5", "--max-body", "20000")  # fmt: skip
    yield s
    s.stop()


@pytest.fixture(scope="session")
def records(adult_small):
    """The first rows of the data as JSON records (plain Python values)."""
    _, X, _ = adult_small
    return [{k: (v.item() if hasattr(v, "item") else v) for k, v in X.iloc[i].items()} for i in range(10)]
