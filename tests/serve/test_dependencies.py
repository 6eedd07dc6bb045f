"""The service's dependencies (the ``serve`` extra, and httpx from ``test``): without them the
other tests here are not collected and this one says what is missing."""

import pytest
from serve_helpers import MISSING


def test_serve_dependencies_installed():
    if MISSING:
        pytest.skip(f"geco serve tests need {', '.join(MISSING)}: pip install 'geco-cf[serve,test]'")
    import geco.serve.app  # imports cleanly with them

    assert callable(geco.serve.app.create_app)
