"""One way to walk a PLAF tree: dispatch on the node's class name, as lark's visitors do.

Why one base: printing, type checking, grounding, compiling to numpy and the reference evaluator
all walk the same node types. Each is a subclass with one method per node class it handles
(``def BinOp(self, node)``); a node without a method goes to :meth:`Visitor.__default__`, which
raises, so a pass that forgets a node kind fails loudly instead of returning ``None``.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

__all__ = ["Visitor"]

R = TypeVar("R")


class Visitor(Generic[R]):
    """Calls ``self.<NodeClassName>(node)`` for a node; unhandled classes go to ``__default__``."""

    def visit(self, node: Any) -> R:
        return getattr(self, type(node).__name__, self.__default__)(node)

    def __default__(self, node: Any) -> R:
        raise TypeError(f"{type(self).__name__} does not handle {type(node).__name__} nodes")
