"""rulekit: decision trees as readable rules, Python, SQL and ONNX that agree with their source exactly.

One IR: a tree is a ``networkx.DiGraph`` (``rulekit.ir.tree``), a model wraps trees with a schema
and a combiner (``rulekit.ir.model.Model``); rule bases (``rulekit.rules``) derive from it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from rulekit.errors import RulekitError
from rulekit.util import gc_paused

if TYPE_CHECKING:
    from rulekit import dsl, export
    from rulekit.ir.model import Combiner, Feature, Model
    from rulekit.rename import rename_features
    from rulekit.rules import RuleBase, to_rules

# Loaded on first use (PEP 562), so that `rulekit --help` and `rulekit check` do not pay for numpy,
# networkx and the exporters before they need them.
_LAZY = {"dsl": ("rulekit.dsl", None), "export": ("rulekit.export", None),
         "Combiner": ("rulekit.ir.model", "Combiner"), "Feature": ("rulekit.ir.model", "Feature"),
         "Model": ("rulekit.ir.model", "Model"), "rename_features": ("rulekit.rename", "rename_features"),
         "RuleBase": ("rulekit.rules", "RuleBase"), "to_rules": ("rulekit.rules", "to_rules")}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'rulekit' has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = importlib.import_module(module)
    value = value if attr is None else getattr(value, attr)
    globals()[name] = value
    return value

__version__ = "0.1.0"
__all__ = ["Combiner", "Feature", "Model", "RuleBase", "RulekitError", "dsl", "export", "from_lightgbm",
           "diff", "from_onnx", "from_catboost", "from_spark", "from_pmml", "from_sklearn", "from_xgboost", "load", "rename_features", "stats",
           "to_rules"]


def load(path):
    """Load a rulekit model file (JSON) or rules file, by content."""
    from rulekit.commands.source import load_source

    return load_source(path)


def from_sklearn(estimator) -> Model:
    """Convert a fitted scikit-learn tree, forest or gradient-boosting estimator."""
    from rulekit.importers.sklearn import from_sklearn as _from

    with gc_paused():
        return _from(estimator)


def from_xgboost(booster_or_model, *, arithmetic: str = "float32") -> Model:
    """Convert an XGBoost ``XGBClassifier``/``XGBRegressor``/``Booster`` or a saved JSON/UBJ path;
    it sums and links in float32 as XGBoost does (``arithmetic="float64"``: in float64)."""
    from rulekit.importers.xgboost import from_xgboost as _from

    with gc_paused():
        return _from(booster_or_model, arithmetic=arithmetic)


def from_lightgbm(booster_or_model) -> Model:
    """Convert a LightGBM ``LGBMClassifier``/``LGBMRegressor``/``Booster`` or a saved text model path."""
    from rulekit.importers.lightgbm import from_lightgbm as _from

    with gc_paused():
        return _from(booster_or_model)


def from_catboost(model_or_path, *, pool=None) -> Model:
    """Convert a fitted CatBoost model or a saved one (JSON export or ``.cbm``); ``pool`` (the
    training data) names the categories of one-hot categorical features."""
    from rulekit.importers.catboost import from_catboost as _from

    with gc_paused():
        return _from(model_or_path, pool=pool)


def from_onnx(path_or_bytes_or_proto) -> Model:
    """Convert an ONNX tree ensemble (``onnx.ModelProto``, file bytes or a path): skl2onnx,
    onnxmltools and CatBoost exports, and rulekit's own; it computes what onnxruntime computes."""
    from rulekit.importers.onnx import from_onnx as _from

    with gc_paused():
        return _from(path_or_bytes_or_proto)


def from_spark(path) -> Model:
    """Convert a saved Spark ML tree model directory (``model.write().save(path)``: a decision
    tree, random forest or GBT, alone or as the last stage of a ``PipelineModel``); no JVM needed."""
    from rulekit.importers.spark import load_dir

    with gc_paused():
        return load_dir(path)


def from_pmml(path, *, assume_complete: bool = False) -> Model | RuleBase:
    """Convert a PMML 4.4 file: a ``TreeModel`` or ``MiningModel`` of trees becomes a Model, a
    ``RuleSetModel`` a RuleBase; ``assume_complete`` reads trees that give no prediction on a
    missing value."""
    from rulekit.importers.pmml import load_file

    with gc_paused():
        return load_file(path, assume_complete=assume_complete)


def stats(rb: RuleBase, X, y) -> RuleBase:
    """``rb`` with every rule's statistics (coverage, errors, confidence, ...) recomputed on ``(X, y)``."""
    from rulekit.commands.stats import refresh

    return refresh(rb, X, y)


def diff(a, b, X=None, y=None):
    """What changed from ``a`` to ``b`` (models or rule bases): rules, the exact input regions where
    their outputs differ and, with ``X`` (and target ``y``), the rows whose prediction changes."""
    from rulekit.diffing import diff as _diff

    return _diff(a, b, X, y)
