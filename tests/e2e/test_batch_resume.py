"""A long ``geco explain`` batch as a user runs it: every finished row is on disk while the batch
runs, Ctrl-C (a real SIGINT to a real process) stops it cleanly keeping those rows, and
``--resume`` explains the rest, giving the file one uninterrupted run writes."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import joblib
import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

import geco
from geco.cli import EXIT_INTERRUPTED, main

ROOT = Path(__file__).resolve().parents[2]
N_ROWS = 120


@pytest.fixture(scope="module")
def credit_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("resume")
    ds = geco.datasets.load_credit()
    frame = ds.X.iloc[:3000].assign(label=ds.y.iloc[:3000])
    frame.to_csv(d / "credit.csv", index=False)
    model = DecisionTreeClassifier(max_depth=6, random_state=0).fit(frame.drop(columns="label"), frame["label"])
    joblib.dump(model, d / "model.joblib")
    return d


def _argv(d, out):
    return ["explain", "--data", str(d / "credit.csv"), "--target", "label", "--model", str(d / "model.joblib"),
            "--k", "3", "--seed", "7", "--rows", f"0:{N_ROWS}", "--out", str(out), "--no-progress"]  # fmt: skip


def _run(argv):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    # a job started in the background (``cmd &``) inherits SIGINT ignored, and Python then
    # installs no KeyboardInterrupt handler: give the batch the default, as a terminal would
    return subprocess.Popen([sys.executable, "-m", "geco", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=env, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip


def _rows_in(path: Path, fmt: str) -> int:
    if not path.exists():
        return 0
    text = path.read_text(encoding="utf-8")
    if fmt == "jsonl":
        return max(0, text.count("\n") - 1)  # the header line
    return len({line.split(",", 1)[0] for line in text.splitlines()[1:]})


def _comparable(line: str) -> dict:
    data = json.loads(line)
    data.pop("stats", None)  # timings differ from run to run
    if "geco_meta" in data:
        data["geco_meta"].pop("dataset", None)
    return data


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_interrupted_batch_keeps_its_rows_and_resumes_to_the_same_file(credit_files, tmp_path, fmt, capsys):
    d = credit_files
    out = tmp_path / f"results.{fmt}"
    proc = _run(_argv(d, out))
    deadline = time.monotonic() + 120
    while _rows_in(out, fmt) < 8 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)  # the rows appear while the batch runs: streamed and flushed
    assert proc.poll() is None, "the batch ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_INTERRUPTED == 130, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    held = _rows_in(out, fmt)
    assert 8 <= held < N_ROWS
    assert last.startswith(f"geco: interrupted: {out} holds {held} of {N_ROWS} rows"), last
    command = last.split("resume with: ", 1)[1]
    assert command.startswith("geco explain ") and command.endswith(" --resume")

    resumed = _run([*_argv(d, out), "--resume"])
    _, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert f"--resume: {held} of {N_ROWS} rows already in {out}; {N_ROWS - held} to explain" in err

    whole = tmp_path / f"whole.{fmt}"
    assert main(_argv(d, whole)) == 0
    capsys.readouterr()
    if fmt == "csv":  # no timings in the CSV: the very same bytes
        assert out.read_bytes() == whole.read_bytes()
    else:
        got = [_comparable(line) for line in out.read_text(encoding="utf-8").splitlines()]
        want = [_comparable(line) for line in whole.read_text(encoding="utf-8").splitlines()]
        assert [g.get("index") for g in got[1:]] == list(range(N_ROWS))
        assert got == want

    # resuming a finished file explains nothing and keeps it
    before = out.read_bytes()
    assert main([*_argv(d, out), "--resume"]) == 0
    assert f"{N_ROWS} of {N_ROWS} rows already in" in capsys.readouterr().err
    assert out.read_bytes() == before


def test_resume_refuses_what_it_cannot_continue(credit_files, tmp_path, capsys):
    d = credit_files
    assert main([*_argv(d, tmp_path / "r.parquet"), "--resume"]) == 2
    assert "--resume needs --out with a .jsonl or .csv file" in capsys.readouterr().err
    other = tmp_path / "other.jsonl"
    argv = _argv(d, other)
    argv[argv.index("--rows") + 1] = "200:203"
    assert main(argv) == 0
    assert main([*_argv(d, other), "--resume"]) == 2  # rows 200-202 are not in 0:120
    assert "holds row(s) [200, 201, 202] that this batch does not explain" in capsys.readouterr().err


def test_a_line_cut_short_is_dropped_on_resume(credit_files, tmp_path, capsys):
    """A batch killed while writing (power cut, SIGKILL) leaves half a line: --resume drops it
    and explains that row again."""
    d = credit_files
    out = tmp_path / "cut.jsonl"
    argv = _argv(d, out)
    argv[argv.index("--rows") + 1] = "0:4"
    assert main(argv) == 0
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(lines[:3]) + lines[3][:40], encoding="utf-8")  # header, rows 0-1, half of 2
    assert main([*argv, "--resume"]) == 0
    assert "2 of 4 rows already in" in capsys.readouterr().err
    indexes = [json.loads(line)["index"] for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    assert indexes == [0, 1, 2, 3]
    assert np.all(np.diff(indexes) == 1)
