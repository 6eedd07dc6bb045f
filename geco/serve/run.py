"""The process model of ``geco serve``: uvicorn serving the app of :mod:`geco.serve.app`.

With ``workers`` > 1 a supervisor process holds the listening socket and starts that many
worker processes; each loads the Explainer once before it accepts a connection, and a worker
that dies is replaced (its requests in flight fail, the others go on). SIGTERM or SIGINT stops
accepting connections and lets the requests in flight finish (up to ``graceful_seconds``) before
the workers exit. The settings reach the workers through the ``GECO_SERVE_SETTINGS`` variable."""

from __future__ import annotations

import os
import signal

from geco.serve.access import KeyRing
from geco.serve.settings import ENV_VAR, ServeSettings

__all__ = ["STARTUP_FAILED", "serve"]

#: the exit status when a worker could not start (e.g. the file is not an Explainer): the CLI's
#: status for bad usage or data
STARTUP_FAILED = 2


def serve(settings: ServeSettings) -> int:
    """Run the service until SIGTERM / SIGINT; 0 after a clean stop. Refuses (FileNotFoundError,
    ValueError) missing files and a malformed keys file before any worker starts."""
    import uvicorn

    settings.check_files()
    if settings.keys is not None:
        KeyRing.load(settings.keys)
    os.environ[ENV_VAR] = settings.to_json()
    # uvicorn re-raises the SIGTERM it handled once it has stopped; with this handler in place
    # that ends in a return (exit status 0), a stop asked for and done cleanly
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    try:
        uvicorn.run(
            "geco.serve.app:app_from_env", factory=True, host=settings.host, port=settings.port,
            workers=settings.workers, access_log=False, log_level="warning", lifespan="on",
            timeout_graceful_shutdown=settings.graceful_seconds,
        )  # fmt: skip
    except SystemExit as exc:  # uvicorn exits so when a worker fails to start
        return int(exc.code or 0) and STARTUP_FAILED
    return 0
