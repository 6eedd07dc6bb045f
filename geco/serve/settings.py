"""What one ``geco serve`` runs with: the saved Explainer, where to listen, the request limits and
the access files. Passed to every worker process through one environment variable as JSON."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path

__all__ = ["ENV_VAR", "ServeSettings"]

#: the environment variable carrying the settings (JSON) from ``geco serve`` to its workers
ENV_VAR = "GECO_SERVE_SETTINGS"


@dataclass(frozen=True)
class ServeSettings:
    """The service's configuration.

    ``explainer``: a file written by ``Explainer.save``. ``max_rows``: rows per request;
    ``max_body``: request body bytes. ``keys``: a JSON keys file (see :mod:`geco.serve.access`),
    None for an open service; ``usage``: the SQLite file counting each key's queries (default:
    beside the keys file), shared by the workers and kept across restarts. ``access_log``: a file
    for the JSON-lines access log (None: stderr). ``graceful_seconds``: how long SIGTERM waits
    for requests in flight."""

    explainer: str
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    max_rows: int = 100
    max_body: int = 1_000_000
    keys: str | None = None
    usage: str | None = None
    access_log: str | None = None
    graceful_seconds: float = 30.0

    def __post_init__(self) -> None:
        for name in ("port", "workers", "max_rows", "max_body"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < (0 if name == "port" else 1):
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.keys is not None and self.usage is None:
            object.__setattr__(self, "usage", f"{self.keys}.usage.sqlite")

    @property
    def close_after_explain(self) -> bool:
        """Whether ``/explain`` answers close their connection: with several workers behind one
        socket a kept-alive connection stays with the worker that accepted it, and a burst of
        clients connecting at once can all land on one worker while the other idles. Closing
        after each explanation (a loopback reconnect costs far less than one search) lets the
        next request go to whichever worker accepts first - an idle one, since a busy worker's
        event loop waits for the search thread's GIL."""
        return self.workers > 1

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ServeSettings:
        data = json.loads(text)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def from_env(cls) -> ServeSettings:
        """The settings ``geco serve`` left in the environment for its workers."""
        text = os.environ.get(ENV_VAR)
        if not text:
            raise RuntimeError(f"{ENV_VAR} is not set: start the service with `geco serve`")
        return cls.from_json(text)

    def check_files(self) -> None:
        """Refuse (FileNotFoundError) an explainer or keys file that is not there, before any
        worker starts."""
        for what, path in (("explainer", self.explainer), ("keys file", self.keys)):
            if path is not None and not Path(path).is_file():
                raise FileNotFoundError(f"{what} {path}: no such file")
