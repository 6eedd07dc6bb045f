"""``geco explain`` on a batch: output files read back, ``geco --version``, a closed pipe."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

import geco
from geco.batch import shutdown_pool
from geco.cli import main
from geco.result import read_jsonl

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def credit_files(tmp_path_factory):
    """A CSV of 3000 Credit rows, a fitted tree saved with joblib, and the rows it declines."""
    d = tmp_path_factory.mktemp("batch-cli")
    ds = geco.datasets.load_credit()
    frame = ds.X.iloc[:3000].assign(label=ds.y.iloc[:3000])
    frame.to_csv(d / "credit.csv", index=False)
    X = frame.drop(columns="label")
    model = DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, frame["label"])
    joblib.dump(model, d / "model.joblib")
    declined = np.flatnonzero(model.predict_proba(X)[:, 1] <= 0.5)
    return d, declined


def _argv(d, *extra):
    return ["explain", "--data", str(d / "credit.csv"), "--target", "label", "--model",
            str(d / "model.joblib"), "--k", "3", *extra]  # fmt: skip


def test_batch_to_jsonl_reads_back_and_reports(credit_files, capsys):
    d, declined = credit_files
    rows = ",".join(map(str, declined[:4]))
    out = d / "results.jsonl"
    assert main(_argv(d, "--rows", f"{rows},0:2", "--out", str(out))) == 0
    assert "wrote" in capsys.readouterr().err
    explanations, meta = read_jsonl(out)
    assert [e.x.index[0] for e in explanations] == [*declined[:4], 0, 1]
    assert all(e.success for e in explanations[:4])
    assert meta["engine"] == "trees-auto" and "credit.csv" in meta["dataset"]
    assert main(["report", str(out), "-o", str(d / "report.html")]) == 0
    assert (d / "report.html").stat().st_size > 10_000


def test_batch_to_csv_with_two_workers(credit_files, capsys):
    d, declined = credit_files
    lo, hi = int(declined[0]), int(declined[0]) + 6
    out = d / "results.csv"
    try:
        assert main(_argv(d, "--rows", f"{lo}:{hi}", "--n-jobs", "2", "--out", str(out))) == 0
    finally:
        shutdown_pool()
    frame = pd.read_csv(out)
    assert set(frame["instance"]) == set(range(lo, hi))
    assert frame["instance"].is_monotonic_increasing  # the rows' order
    assert frame.columns[:3].tolist() == ["instance", "rank", "success"]
    found = frame[frame["counterfactual"]]
    assert len(found) >= 1 and (found["probability"] > 0.5).all()
    # the same rows explained in-process, one by one, with the seeds the batch derives
    explanations, _ = read_jsonl(_jsonl_of(d, lo, hi, capsys))
    n_cf = sum(len(e.counterfactuals) or 1 for e in explanations)
    assert len(frame) == n_cf


def _jsonl_of(d, lo, hi, capsys):
    out = d / f"rows-{lo}-{hi}.jsonl"
    assert main(_argv(d, "--rows", f"{lo}:{hi}", "--out", str(out))) == 0
    capsys.readouterr()
    return out


def test_all_undesired_and_row_errors(credit_files, capsys, monkeypatch):
    d, declined = credit_files
    assert main(_argv(d, "--rows", "5000", "--out", str(d / "x.csv"))) == 2
    assert "out of range" in capsys.readouterr().err
    assert main(_argv(d, "--rows", "a:b")) == 2
    assert "not a row number" in capsys.readouterr().err
    assert main(_argv(d, "--rows", "0:2", "--out", str(d / "x.txt"))) == 2
    assert "must end in .csv, .jsonl, .parquet" in capsys.readouterr().err
    assert main(_argv(d, "--n-jobs", "2", "--row", "0")) == 2
    assert "need a batch" in capsys.readouterr().err
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "pyarrow" else real_find_spec(n, *a))
    assert main(_argv(d, "--rows", "0:2", "--out", str(d / "x.parquet"))) == 2
    assert "Parquet needs pyarrow" in capsys.readouterr().err
    monkeypatch.undo()
    # --all-undesired on a model that declines only a few rows of a small file
    small = pd.read_csv(d / "credit.csv").iloc[declined[0] - 3 : declined[0] + 3]
    small.to_csv(d / "small.csv", index=False)
    argv = _argv(d, "--all-undesired", "--json")
    argv[2] = str(d / "small.csv")
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    model = joblib.load(d / "model.joblib")
    n_declined = int((model.predict_proba(small.drop(columns="label"))[:, 1] <= 0.5).sum())
    assert len(lines) == 1 + n_declined >= 2  # the header, then one line per declined row


def test_parquet_round_trip(credit_files, capsys):
    pytest.importorskip("pyarrow")
    d, declined = credit_files
    out = d / "results.parquet"
    assert main(_argv(d, "--rows", f"{declined[0]}:{declined[0] + 2}", "--out", str(out))) == 0
    frame = pd.read_parquet(out)
    assert frame["instance"].iloc[0] == declined[0]


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"geco {geco.__version__}"


def test_closed_pipe_ends_quietly(credit_files):
    """``geco explain ... | head -1``: the reader goes away after one line; geco stops without a
    BrokenPipeError traceback."""
    d, _ = credit_files
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    argv = [sys.executable, "-m", "geco.cli", *_argv(d, "--rows", "0:400", "--json")]  # > a pipe buffer
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    first = proc.stdout.readline()
    proc.stdout.close()  # as head does after its line
    _, err = proc.communicate(timeout=120)
    assert first.startswith(b'{"geco_meta"')
    assert "Traceback" not in err.decode() and "Error" not in err.decode(), err.decode()
    assert proc.returncode == 141
