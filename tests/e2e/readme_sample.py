"""The README's sample run, made by a real run and checked against one.

``python tests/e2e/readme_sample.py`` runs the README's main command and writes its output into
the README's first code block; ``test_readme_sample.py`` runs it again and compares, with the
times (which differ from run to run) and the install path masked.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
COMMAND = ["explain", "--dataset", "adult", "--row", "0"]
PROMPT = "$ geco " + " ".join(COMMAND)
_BLOCK = re.compile(r"```\n" + re.escape(PROMPT) + r"\n(.*?)```\n", re.S)


def run() -> str:
    """What a terminal shows for the command: the notes on stderr come first (they are printed
    while the model loads), then the explanation; the install path shortened to ``...``."""
    done = subprocess.run(
        [sys.executable, "-m", "geco", *COMMAND], capture_output=True, text=True, check=True, timeout=600
    )
    text = done.stderr + done.stdout
    return re.sub(r"constraints: .*?(/geco/data/)", r"constraints: ...\1", text)


def masked(text: str) -> str:
    """``text`` with every time in seconds replaced by ``T``."""
    return re.sub(r"\b\d+(\.\d+)? s\b", "T s", text)


def readme_block() -> str:
    found = _BLOCK.search(README.read_text())
    if found is None:
        raise LookupError(f"README.md has no code block starting with {PROMPT!r}")
    return found.group(1)


def write() -> None:
    text = README.read_text()
    block = "```\n" + PROMPT + "\n" + run() + "```\n"
    README.write_text(_BLOCK.sub(lambda _: block, text, count=1))


if __name__ == "__main__":
    write()
    print(f"wrote the sample run into {README}")
