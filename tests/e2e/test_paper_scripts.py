"""Smoke test of the paper scripts (benchmarks/paper/): each runs end to end on tiny inputs,
prints its table and writes its JSON (and its PNG when matplotlib is installed)."""

import importlib.util
import json
import math
from pathlib import Path

import pytest

PAPER = Path(__file__).resolve().parents[2] / "benchmarks" / "paper"

RUNS = {
    "quality": ["--n", "2", "--tiny", "--datasets", "compas", "--models", "dt",
                "--systems", "GeCo,WIT,SimCF,CERT", "--cert-generations", "10"],
    "ground_truth": ["--n", "1", "--sizes", "1,3", "--tiny"],
    "breakdown": ["--n", "1", "--tiny", "--datasets", "compas", "--models", "rf500"],
    "hyperparams": ["--n", "1", "--tiny", "--datasets", "compas", "--models", "dt",
                    "--knobs", "norm,implications"],
}  # fmt: skip


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"paper_{name}", PAPER / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", list(RUNS))
def test_paper_script_runs(name, tmp_path, capsys):
    payload = _load(name).main([*RUNS[name], "--out", str(tmp_path)])
    printed = capsys.readouterr().out
    assert "---" in printed  # the table's rule line
    written = json.loads((tmp_path / f"{name}.json").read_text())
    assert written["results"] and written["markdown"].startswith("|")
    assert len(written["results"]) == len(payload["results"])
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not (tmp_path / f"{name}.png").exists()
    else:
        assert (tmp_path / f"{name}.png").stat().st_size > 1000
    if name == "quality":
        (setting,) = payload["results"]
        assert set(setting["systems"]) == {"GeCo", "WIT", "SimCF", "CERT"}
        for summary in setting["systems"].values():
            assert summary["n"] == 2
            assert 0.0 <= summary["success"] <= 1.0
            assert summary["violations"] == 0  # these four systems honour the program
        again = _load("quality").main(["--from-json", str(tmp_path / "quality.json"), "--out", str(tmp_path / "again")])
        assert again["markdown"] == written["markdown"]
        twice = _load("quality").main(["--from-json", *[str(tmp_path / "quality.json")] * 2, "--out", str(tmp_path / "joined")])
        assert len(twice["results"]) == 2 and twice["results"][0] == twice["results"][1]


def test_quality_refuses_to_join_runs_of_other_systems(tmp_path):
    quality = _load("quality")
    for name, systems in (("a", ["GeCo", "WIT"]), ("b", ["GeCo"])):
        (tmp_path / f"{name}.json").write_text(json.dumps({"systems": systems, "results": [], "command": name}))
    with pytest.raises(SystemExit, match=r"b\.json: ran other systems than .*a\.json"):
        quality.main(["--from-json", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--out", str(tmp_path)])


def test_breakdown_on_the_wide_table_uses_the_compiled_engines(tmp_path):
    """``--datasets wide``: make_wide's table (5,000 x 30 with --tiny; its MLP takes a one-hot of
    thousands of columns) is explained by the compiled tree and MLP engines, and every phase is
    timed."""
    payload = _load("breakdown").main(["--n", "1", "--tiny", "--datasets", "wide", "--models", "rf500,mlp100",
                                       "--out", str(tmp_path)])  # fmt: skip
    results = payload["results"]
    assert [(r["model"], r["representation"], r["engine"]) for r in results] == [
        (m, rep, eng) for m in ("rf500", "mlp100") for rep, eng in _load("breakdown").CONFIGS
    ]
    for r in results:
        assert r["dataset"] == "wide" and r["n"] == 1
        expected = {"blackbox": "blackbox", "auto": "trees-auto" if r["model"] == "rf500" else "mlp-jit"}
        assert r["engine_used"] == expected[r["engine"]]
        phases = r["ms_per_phase"]
        assert set(phases) == {*_load("breakdown").PHASES, "other", "compile"}
        assert all(math.isfinite(v) and v >= 0.0 for v in phases.values()), phases
        assert math.isfinite(r["seconds_median"]) and r["seconds_median"] > 0.0
        assert phases["scoring"] > 0.0


def test_unknown_data_set_is_named():
    breakdown = _load("breakdown")
    with pytest.raises(SystemExit, match="unknown data set 'nope'; choose from adult, compas, credit, wide"):
        breakdown.ps.load_data("nope")
    with pytest.raises(SystemExit, match="unknown data set 'nope'"):
        breakdown.main(["--n", "1", "--tiny", "--datasets", "nope", "--models", "rf500"])
