"""Which compiled engine serves which model: one table, model class -> engine factory.

Keys name a class as ``"<top-level package>.<ClassName>"`` (``"sklearn.RandomForestClassifier"``,
``"xgboost.XGBClassifier"``), so a family whose package is not installed can be registered
without importing it. A model matches the first key along its class's MRO (subclasses of a
supported estimator are served too); for a ``Pipeline`` the final estimator decides.

A new family plugs in with one call::

    register("lightgbm.LGBMClassifier", lgbm_scorer)

where ``lgbm_scorer(model_input, desired_class, engine) -> ModelScorer`` receives the pipeline
already read (:class:`codegen.pipeline.ModelInput`: the final estimator plus how each of its input
columns derives from the user's features) and raises :class:`UnsupportedModel` for what it cannot
compile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codegen.errors import UnsupportedModel
from codegen.estimator import split_pipeline
from codegen.mlp.scorer import mlp_scorer
from codegen.pipeline import ModelInput, read_model_input
from codegen.protocol import ENGINES, ModelScorer
from codegen.trees.scorer import tree_scorer
from plaf_grammar import Schema

__all__ = ["EngineFactory", "factory_for", "model_key", "register", "scorer_for", "supported_models"]

#: ``factory(model_input, desired_class, engine) -> ModelScorer``
EngineFactory = Callable[[ModelInput, Any, str], ModelScorer]

_FACTORIES: dict[str, EngineFactory] = {}


def model_key(cls: type) -> str:
    """The registry key of a class: ``"<top-level package>.<ClassName>"``."""
    return f"{cls.__module__.split('.')[0]}.{cls.__name__}"


def register(model_class: str | type, factory: EngineFactory) -> None:
    """Serve ``model_class`` (a key such as ``"xgboost.XGBClassifier"``, or the class itself) and
    its subclasses with ``factory``; a later registration of the same key replaces the earlier."""
    key = model_class if isinstance(model_class, str) else model_key(model_class)
    package, _, name = key.rpartition(".")
    if not package or not name:
        raise ValueError(f"a model key is '<package>.<ClassName>', got {key!r}")
    _FACTORIES[key] = factory


def supported_models() -> tuple[str, ...]:
    """Every registered key, sorted."""
    return tuple(sorted(_FACTORIES))


def factory_for(estimator: Any) -> EngineFactory:
    """The factory serving ``estimator`` (a final estimator, not a Pipeline)."""
    for cls in type(estimator).__mro__:
        factory = _FACTORIES.get(model_key(cls))
        if factory is not None:
            return factory
    raise UnsupportedModel(
        f"{type(estimator).__name__} has no compiled engine; supported: {', '.join(supported_models())}"
    )


def scorer_for(model: Any, schema: Schema, desired_class: Any, engine: str = "auto") -> ModelScorer:
    """The compiled scorer for ``model`` (a fitted estimator or a Pipeline ending in one) fed
    ``schema``-encoded rows; raises :class:`UnsupportedModel` with one reason otherwise."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    _, estimator = split_pipeline(model)
    factory = factory_for(estimator)
    return factory(read_model_input(model, schema), desired_class, engine)


# ---------------------------------------------------------------------------- built-in families
register("sklearn.DecisionTreeClassifier", tree_scorer)  # ExtraTreeClassifier is a subclass
register("sklearn.RandomForestClassifier", tree_scorer)
register("sklearn.ExtraTreesClassifier", tree_scorer)
register("sklearn.GradientBoostingClassifier", tree_scorer)
register("sklearn.HistGradientBoostingClassifier", tree_scorer)
register("sklearn.MLPClassifier", mlp_scorer)
