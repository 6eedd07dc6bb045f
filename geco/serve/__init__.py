"""``geco serve``: an HTTP decision service over a saved Explainer (needs ``geco-cf[serve]``).

``POST /explain`` answers one row or a list with the fields of ``Explanation.to_dict()``;
``GET /health``, ``/ready`` and ``/model`` describe the service; ``/docs`` is the OpenAPI page.
Requests are checked before any search (:mod:`.validation`), optionally metered per API key
(:mod:`.access`), and logged as JSON lines (:mod:`.logs`). :func:`serve` runs the uvicorn
workers, each loading the Explainer once (:mod:`.run`); :func:`create_app` builds one worker's
ASGI app (:mod:`.app`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from geco.serve.settings import ServeSettings

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["ServeSettings", "create_app", "serve"]


def create_app(settings: ServeSettings) -> FastAPI:
    """One worker's ASGI app (FastAPI), loading the Explainer when it starts."""
    from geco.serve.app import create_app as build

    return build(settings)


def serve(settings: ServeSettings) -> int:
    """Run the service until SIGTERM / SIGINT; returns the process exit status."""
    from geco.serve.run import serve as run

    return run(settings)
