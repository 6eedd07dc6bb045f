"""The one exception every codegen reader raises for a model it cannot compile."""

from __future__ import annotations

__all__ = ["UnsupportedModel"]


class UnsupportedModel(Exception):
    """The model (or a pipeline step) cannot be compiled; ``reason`` is one line for the user.

    The Explainer catches it and falls back to the black-box path, showing ``reason``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason
