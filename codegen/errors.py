"""The one exception for "this model cannot be compiled"."""

from __future__ import annotations

__all__ = ["UnsupportedModel"]


class UnsupportedModel(TypeError):
    """The model (or a pipeline step, or the desired class) cannot be used; ``reason`` is one line
    for the user.

    A ``TypeError`` because it says the model is not of a kind the caller can handle, and because
    ``geco.UnsupportedModelError`` (the same class) always was one: ``except TypeError`` keeps
    working. Under engine="auto", :func:`codegen.registry.choose_engine` falls back to the black
    box on it and keeps ``reason``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason
