"""Which compiled engine serves which model: one table, model class -> engine factory.

Keys name a class as ``"<top-level package>.<ClassName>"`` (``"sklearn.RandomForestClassifier"``,
``"xgboost.XGBClassifier"``), so a family whose package is not installed can be registered
without importing it. A model matches the first key along its class's MRO (subclasses of a
supported estimator are served too); for a ``Pipeline`` the final estimator decides.

A new family plugs in with one call::

    register("lightgbm.LGBMClassifier", gbm_scorer, read_input=read_gbm_input)

where ``gbm_scorer(model_input, desired_class, engine) -> ModelScorer`` receives the pipeline
already read (:class:`codegen.pipeline.ModelInput`: the final estimator plus how each of its input
columns derives from the user's features) and raises :class:`UnsupportedModel` for what it cannot
compile. ``read_input(model, schema)`` reads it (default :func:`codegen.pipeline.read_model_input`;
a family whose models read the user's DataFrame in their own way - XGBoost's and LightGBM's pandas
categoricals - brings its own).

A family declares what it can score beyond one class's probability (``outputs``: "classes" for
a set of classes, "margin", "prediction"; :mod:`codegen.outputs`); for anything else it is not
asked, and ``engine="auto"`` falls back to the black box with the reason.

A ``Booster`` (XGBoost's, LightGBM's) has no ``classes_``: ``desired_class`` is then the column of
its class probabilities (``1`` for the positive class of a binary model), as for any model without
classes (:func:`codegen.class_index`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codegen.blackbox import BlackBoxScorer
from codegen.choice import EngineChoice, describe_engine
from codegen.errors import UnsupportedModel
from codegen.estimator import split_pipeline
from codegen.mlp.reader import LINEAR_CLASSIFIERS, LINEAR_REGRESSORS
from codegen.mlp.scorer import mlp_scorer
from codegen.outputs import output_of
from codegen.pipeline import ModelInput, read_model_input
from codegen.protocol import COMPILED_ENGINES, ENGINES, ModelScorer, checked_engine
from codegen.trees.gbm.input import read_gbm_input
from codegen.trees.gbm.scorer import gbm_scorer
from codegen.trees.scorer import tree_scorer
from plaf_grammar import Schema

__all__ = [
    "EngineFactory",
    "InputReader",
    "choose_engine",
    "factory_for",
    "model_key",
    "register",
    "scorer_for",
    "supported_models",
]

#: ``factory(model_input, desired_class, engine) -> ModelScorer``
EngineFactory = Callable[[ModelInput, Any, str], ModelScorer]
#: ``read_input(model, schema) -> ModelInput``
InputReader = Callable[[Any, Schema], ModelInput]

_FACTORIES: dict[str, EngineFactory] = {}
_INPUT_READERS: dict[str, InputReader] = {}
_OUTPUTS: dict[str, frozenset[str]] = {}

#: what every tree family scores: a set of classes, a margin, a regressor's prediction
TREE_OUTPUTS = frozenset({"classes", "margin", "prediction"})


def model_key(cls: type) -> str:
    """The registry key of a class: ``"<top-level package>.<ClassName>"``."""
    return f"{cls.__module__.split('.')[0]}.{cls.__name__}"


def register(
    model_class: str | type, factory: EngineFactory, read_input: InputReader = read_model_input,
    outputs: frozenset[str] = frozenset(),
) -> None:  # fmt: skip
    """Serve ``model_class`` (a key such as ``"xgboost.XGBClassifier"``, or the class itself) and
    its subclasses with ``factory``, fed by ``read_input``; ``outputs`` names what it scores
    besides one class's probability ("classes", "margin", "prediction"). A later registration of
    the same key replaces the earlier."""
    key = model_class if isinstance(model_class, str) else model_key(model_class)
    package, _, name = key.rpartition(".")
    if not package or not name:
        raise ValueError(f"a model key is '<package>.<ClassName>', got {key!r}")
    _FACTORIES[key] = factory
    _INPUT_READERS[key] = read_input
    _OUTPUTS[key] = frozenset(outputs)


def supported_models() -> tuple[str, ...]:
    """Every registered key, sorted."""
    return tuple(sorted(_FACTORIES))


def _key_for(estimator: Any) -> str:
    for cls in type(estimator).__mro__:
        key = model_key(cls)
        if key in _FACTORIES:
            return key
    raise UnsupportedModel(
        f"{type(estimator).__name__} has no compiled engine; supported: {', '.join(supported_models())}"
    )


def factory_for(estimator: Any) -> EngineFactory:
    """The factory serving ``estimator`` (a final estimator, not a Pipeline)."""
    return _FACTORIES[_key_for(estimator)]


def scorer_for(model: Any, schema: Schema, desired_class: Any, engine: str = "auto") -> ModelScorer:
    """The compiled scorer for ``model`` (a fitted estimator or a Pipeline ending in one) fed
    ``schema``-encoded rows; raises :class:`UnsupportedModel` with one reason otherwise."""
    checked_engine(engine, COMPILED_ENGINES)
    _, estimator = split_pipeline(model)
    key = _key_for(estimator)
    needs = output_need(desired_class)
    if needs and needs not in _OUTPUTS[key]:
        raise UnsupportedModel(f"the compiled engine for {type(estimator).__name__} scores one class's probability, not {output_of(desired_class)!r}")
    return _FACTORIES[key](_INPUT_READERS[key](model, schema), desired_class, engine)


def output_need(desired_class: Any) -> str:
    """What a factory must score for ``desired_class`` beyond one class's probability: "" (just
    that), "classes", "margin" or "prediction"."""
    output = output_of(desired_class)
    if output.kind == "proba":
        return "classes" if len(output.classes) > 1 else ""
    return output.kind


def choose_engine(model: Any, schema: Schema, desired_class: Any, engine: str = "auto") -> EngineChoice:
    """The engine that scores ``model`` (fed ``schema``-encoded rows) under ``engine``, one of
    :data:`codegen.ENGINES`: "blackbox" is the model's own ``predict_proba``; "auto" compiles when
    a registered engine serves the model and falls back to the black box otherwise (the
    choice's ``fallback_reason`` says why); "jit" and "numpy" compile or raise
    :class:`UnsupportedModel` naming the model and the reason. Raises ValueError for any other
    ``engine``, and :class:`UnsupportedModel` for a model without probabilities."""
    checked_engine(engine, ENGINES)
    reference = BlackBoxScorer(model, schema, desired_class)
    scorer: ModelScorer = reference
    fallback_reason = ""
    if engine != reference.name:
        try:
            scorer = scorer_for(model, schema, desired_class, engine)
        except UnsupportedModel as exc:
            if engine != "auto":
                raise UnsupportedModel(
                    f"engine={engine!r} cannot compile {type(model).__name__}: {exc.reason}"
                ) from None
            fallback_reason = exc.reason
    description = describe_engine(model, scorer, engine, fallback_reason)
    return EngineChoice(scorer, reference, fallback_reason, description)


# ---------------------------------------------------------------------------- built-in families
for _key in (
    "sklearn.DecisionTreeClassifier",  # ExtraTreeClassifier is a subclass
    "sklearn.RandomForestClassifier",
    "sklearn.ExtraTreesClassifier",
    "sklearn.GradientBoostingClassifier",
    "sklearn.HistGradientBoostingClassifier",
    "sklearn.DecisionTreeRegressor",  # ExtraTreeRegressor is a subclass
    "sklearn.RandomForestRegressor",
    "sklearn.ExtraTreesRegressor",
    "sklearn.GradientBoostingRegressor",
    "sklearn.HistGradientBoostingRegressor",
):
    register(_key, tree_scorer, outputs=TREE_OUTPUTS)
register("sklearn.MLPClassifier", mlp_scorer, outputs=frozenset({"classes"}))
register("sklearn.MLPRegressor", mlp_scorer, outputs=frozenset({"prediction"}))
# linear models are networks without a hidden layer (codegen.mlp.reader.read_linear)
for _name in LINEAR_CLASSIFIERS:
    register(f"sklearn.{_name}", mlp_scorer, outputs=frozenset({"classes"}))
for _name in LINEAR_REGRESSORS:
    register(f"sklearn.{_name}", mlp_scorer, outputs=frozenset({"prediction"}))
# XGBRFClassifier subclasses XGBClassifier; neither library is imported here
for _key in ("xgboost.XGBClassifier", "xgboost.Booster", "lightgbm.LGBMClassifier", "lightgbm.Booster",
             "xgboost.XGBRegressor", "lightgbm.LGBMRegressor"):  # fmt: skip
    register(_key, gbm_scorer, read_input=read_gbm_input, outputs=TREE_OUTPUTS)
