"""``geco serve`` on the command line: bad arguments and files are refused with the CLI's exit
status 2 before the workers start."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import joblib
from serve_helpers import HERE, ROOT, free_port

from geco.cli import EXIT_BAD_USAGE, main


def test_missing_file(tmp_path, capsys):
    assert main(["serve", str(tmp_path / "none.joblib")]) == EXIT_BAD_USAGE
    assert "no such file" in capsys.readouterr().err


def test_bad_workers_and_keys(explainer_file, tmp_path, capsys):
    assert main(["serve", str(explainer_file), "--workers", "0"]) == EXIT_BAD_USAGE
    assert "workers" in capsys.readouterr().err
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": {"k": {"scopes": ["root"]}}}))
    assert main(["serve", str(explainer_file), "--keys", str(keys)]) == EXIT_BAD_USAGE
    assert "scopes" in capsys.readouterr().err


def test_not_an_explainer(forest, tmp_path):
    """A model saved instead of an Explainer, or no pickle at all: refused before any worker
    starts, in one line, without a traceback."""
    path = tmp_path / "model.joblib"
    joblib.dump(forest, path)
    junk = tmp_path / "rules.joblib"
    junk.write_text("fixed age\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE)]))
    for given, said in ((path, "not a geco Explainer"), (junk, "not a file written by Explainer.save")):
        done = subprocess.run(
            [sys.executable, "-m", "geco", "serve", str(given), "--port", str(free_port())],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == EXIT_BAD_USAGE
        assert said in done.stderr and "Traceback" not in done.stderr, done.stderr
