"""Open a report in headless Chromium: load time, rendered charts, console errors, screenshots.

Used by the browser test and ``examples/report_adult.py``. Needs the ``playwright`` package
(its pip wheel carries the driver; no browser download) and a Chromium binary such as Debian's
``/usr/bin/chromium`` (or the one named by the ``GECO_CHROMIUM`` environment variable)."""

from __future__ import annotations

import io
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM_ARGS", "PageCheck", "find_chromium", "open_report", "save_screenshot"]

CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def find_chromium() -> str | None:
    """Path of a Chromium binary, or None when there is none."""
    given = os.environ.get("GECO_CHROMIUM")
    if given:
        return given if Path(given).is_file() else None
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class PageCheck:
    """What opening the page showed."""

    load_seconds: float  # navigation start to the end of the load event (the page's own timing)
    wall_seconds: float  # the whole navigation as the driver saw it
    svg_count: int
    console_errors: list[str] = field(default_factory=list)


@contextmanager
def open_report(
    path: str | os.PathLike[str], *, executable: str | None = None, width: int = 1280, height: int = 900
) -> Iterator[tuple[Any, PageCheck]]:
    """Open the HTML file ``path`` in headless Chromium; yields the playwright page and the
    check made on load. ``check.console_errors`` keeps collecting while the page is open."""
    from playwright.sync_api import sync_playwright

    exe = executable or find_chromium()
    if exe is None:
        raise FileNotFoundError("no Chromium binary found (install Debian's chromium or set GECO_CHROMIUM)")
    url = Path(path).resolve().as_uri()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=list(CHROMIUM_ARGS), headless=True)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
            t0 = time.perf_counter()
            page.goto(url, wait_until="load")
            wall = time.perf_counter() - t0
            load = page.evaluate(
                "() => { const n = performance.getEntriesByType('navigation')[0];"
                " return (n.loadEventEnd - n.startTime) / 1000; }"
            )
            check = PageCheck(float(load), wall, page.locator("svg").count(), errors)
            yield page, check
        finally:
            browser.close()


def save_screenshot(page: Any, out: str | os.PathLike[str], *, height: int | None = None, colors: int = 256) -> int:
    """Screenshot the top ``height`` pixels of the page (the viewport when None) to the PNG
    ``out``, reduced to ``colors`` colours with Pillow when it is installed (a report is mostly
    flat colour, so this keeps the file small). Returns the file size in bytes."""
    width = page.viewport_size["width"]
    clip = {"x": 0, "y": 0, "width": width, "height": height} if height else None
    png = page.screenshot(full_page=bool(height), clip=clip)
    try:
        from PIL import Image
    except ImportError:
        data = png
    else:
        img = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=colors)
        buf = io.BytesIO()
        img.save(buf, format="PNG", optimize=True)
        data = buf.getvalue()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    return len(data)
