"""PLAF: the constraint language of geco (grammar, AST, checks, grounding, predicates)."""

from plaf_grammar.schema import Feature, Schema, SchemaError

__all__ = ["Feature", "Schema", "SchemaError"]
