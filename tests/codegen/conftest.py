"""Golden IR files: ``tests/codegen/golden/<name>.ll``, compared as text.

``GECO_REGENERATE_GOLDEN=1 pytest tests/codegen`` rewrites them from the current emitters (review
the diff before committing it)."""

import os
from pathlib import Path

import pytest

GOLDEN = Path(__file__).with_name("golden")


@pytest.fixture
def golden():
    def check(name: str, text: str) -> None:
        path = GOLDEN / f"{name}.ll"
        if os.environ.get("GECO_REGENERATE_GOLDEN"):
            path.write_text(text)
        assert path.exists(), f"{path} is missing; run with GECO_REGENERATE_GOLDEN=1 to write it"
        assert text == path.read_text(), f"IR differs from {path} (GECO_REGENERATE_GOLDEN=1 rewrites it)"

    return check
