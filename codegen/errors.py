"""The exceptions of codegen: "this model cannot be used or compiled", and "no such class"."""

from __future__ import annotations

__all__ = ["UnknownClass", "UnsupportedModel"]


class UnsupportedModel(TypeError):
    """The model (or a pipeline step) cannot be used; ``reason`` is one line
    for the user.

    A ``TypeError`` because it says the model is not of a kind the caller can handle, and because
    ``geco.UnsupportedModelError`` (the same class) always was one: ``except TypeError`` keeps
    working. Under engine="auto", :func:`codegen.registry.choose_engine` falls back to the black
    box on it and keeps ``reason``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class UnknownClass(ValueError):
    """``desired_class`` names no class of the model: a bad value, not a model geco cannot use
    (so not an :class:`UnsupportedModel`, and ``engine="auto"`` does not fall back on it)."""
