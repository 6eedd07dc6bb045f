"""codegen's runtime front door (:mod:`codegen.runtime`): cache settings, compile statistics,
assembly of IR text, stopping the background threads - and importing codegen loads no LLVM."""

from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

import codegen
from codegen.registry import scorer_for
from codegen.trees.native_partial import NativePartial
from codegen.trees.plan import BlockRunner
from plaf_grammar import Schema

TINY_IR = """
define double @twice(double %x) {
entry:
  %y = fadd double %x, %x
  ret double %y
}
"""


def test_importing_codegen_loads_no_llvm():
    code = (
        "import sys\nimport codegen\n"
        "codegen.cache_settings()\ncodegen.shutdown()\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('llvmlite', 'geco'))\n"
        "assert not bad, bad\n"
        "codegen.compile_statistics()\nassert 'llvmlite' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_cache_settings_round_trip(tmp_path):
    before = codegen.cache_settings()
    try:
        codegen.configure_cache(directory=tmp_path, max_bytes=1 << 20)
        assert codegen.cache_settings() == {"directory": tmp_path, "max_bytes": 1 << 20}
        codegen.configure_cache(directory=False)
        assert codegen.cache_settings() == {"directory": False}
        codegen.configure_cache()
        assert codegen.cache_settings() == {}
    finally:
        codegen.configure_cache(**before)


def test_compile_statistics_keys():
    info = codegen.compile_statistics()
    for key in ("hits", "misses", "compiles", "compile_seconds", "disk_hits", "preloaded_hits",
                "load_seconds", "disk_stores", "entries"):  # fmt: skip
        assert key in info, key


def test_emit_assembly_of_a_tiny_module():
    asm = codegen.emit_assembly(TINY_IR)
    assert "twice" in asm and asm.count("\n") > 2


def _geco_threads() -> list[str]:
    return sorted(t.name for t in threading.enumerate() if t.name.startswith("geco-"))


def test_shutdown_stops_the_background_threads_and_may_be_called_twice():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60)})
    y = (X["a"] > X["b"]).astype(int).to_numpy()
    schema = Schema.from_dataframe(X)
    model = RandomForestClassifier(3, max_depth=3, random_state=0).fit(X, y)
    scorer = scorer_for(model, schema, 1, "auto")
    E = schema.encode(X)
    two_lanes = NativePartial(scorer.forest, scorer.full, lanes=2)

    def plans():  # the second lane builds every other plan on a background thread
        bx = two_lanes.bind(E[0])
        return [BlockRunner(scorer.full).run([(p, E[:8, :1])])[0] for p in two_lanes.plans(bx, [(0,), (1,)])[:1]]

    before = plans()
    assert "geco-plans" in [t.split("_")[0] for t in _geco_threads()]
    codegen.shutdown()
    assert _geco_threads() == []
    codegen.shutdown()
    # a later use starts the threads again and scores the same
    np.testing.assert_array_equal(plans()[0], before[0])
    np.testing.assert_array_equal(before[0][:, 0], scorer.bind(E[0]).score_block((0,), E[:8, :1]))
