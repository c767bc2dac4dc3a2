"""scikit-learn ``HistGradientBoosting{Classifier,Regressor}`` -> rulekit Model, exactly.

How scikit-learn predicts (``_predictor.pyx``, ``_raw_predict``), and what the model becomes:

* ``raw = baseline`` (``_baseline_prediction``), then per iteration and per class
  ``raw[:, k] += leaf.value`` (learning rate already folded into the leaves): a ``sum`` combiner.
* Numeric splits compare the float64 input: ``x <= num_threshold`` (``precision="float64"``);
  NaN follows ``missing_go_to_left``, which is set on every split (trained without NaN, it names
  the child that saw more samples).
* Categorical features go through an ``OrdinalEncoder`` first (a ``ColumnTransformer`` that puts
  the categorical columns first, so node feature indices are mapped back to input columns). Its
  categories (sorted values seen in training, not pandas' category order) become the nominal
  feature's domain, so the same DataFrame or array predicts the same. A value outside the domain
  is encoded NaN, and NaN follows ``missing_go_to_left``; the node's left bitset holds domain
  codes. In the IR the branch on the missing side is the "other" branch (unseen values and
  missing go there) and the other branch lists its codes.
* Links: identity (regression), sigmoid (binary), softmax (multiclass). The log-link losses
  (``poisson``, ``gamma``) are refused: the IR has no exp link.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rulekit.errors import RulekitError
from rulekit.importers.sklearn_tree import class_labels, sklearn_version
from rulekit.importers.sklearn_categories import domain_value as _domain_value
from rulekit.ir.model import Combiner, Feature, Model
from rulekit.ir.tree import TreeBuilder


def _column_map(est: Any, n: int) -> np.ndarray:
    """Input column index of each column the trees see (identity without a preprocessor)."""
    pre = getattr(est, "_preprocessor", None)
    if pre is None:
        return np.arange(n)
    out = np.full(n, -1, dtype=np.int64)
    for name, _, cols in pre.transformers_:
        where = pre.output_indices_.get(name)
        if where is None or where.stop == where.start:
            continue
        idx = np.arange(n)[cols] if not isinstance(cols, str) else None
        if idx is None or len(idx) != where.stop - where.start:
            raise RulekitError(f"{type(est).__name__}: unexpected preprocessor layout "
                               f"(transformer {name!r}); cannot map features back")
        out[where] = idx
    if (out < 0).any() or len(set(out.tolist())) != n:
        raise RulekitError(f"{type(est).__name__}: unexpected preprocessor layout; cannot map "
                           f"features back to input columns")
    return out


def _categorical_domains(est: Any, colmap: np.ndarray, names: list[str]) -> dict[int, tuple]:
    """Input column index -> domain (OrdinalEncoder categories without the trailing NaN)."""
    pre = getattr(est, "_preprocessor", None)
    is_cat = getattr(est, "is_categorical_", None)
    if is_cat is None or not np.any(is_cat):
        return {}
    if pre is None:
        raise RulekitError(f"{type(est).__name__} with categorical features and no ordinal "
                           f"encoder: this scikit-learn version is not supported")
    encoder = pre.named_transformers_["encoder"]
    where = pre.output_indices_["encoder"]
    domains: dict[int, tuple] = {}
    for pos, cats in zip(range(where.start, where.stop), encoder.categories_):
        col = int(colmap[pos])
        cats = list(cats)
        if cats and isinstance(cats[-1], float) and math.isnan(cats[-1]):
            cats = cats[:-1]
        dom = tuple(_domain_value(c, names[col]) for c in cats)
        if len(set(map(repr, dom))) != len(dom):
            raise RulekitError(f"categorical feature {names[col]!r}: categories {cats!r} collide "
                               f"once written as text or whole numbers")
        domains[col] = dom
    return domains


def _in_bitset(bitset: np.ndarray, code: int) -> bool:
    return bool((int(bitset[code // 32]) >> (code % 32)) & 1)


def predictor_graph(predictor: Any, colmap: np.ndarray, domain_size: dict[int, int]):
    """One ``TreePredictor`` as a rulekit tree graph (node ids kept)."""
    b = TreeBuilder()
    nodes = predictor.nodes
    bitsets = predictor.raw_left_cat_bitsets
    sides: dict[int, tuple] = {}
    for i in range(len(nodes)):
        nd = nodes[i]
        extra = {"n_samples": float(nd["count"])}
        if nd["is_leaf"]:
            b.leaf((float(nd["value"]),), **extra)
            continue
        col = int(colmap[int(nd["feature_idx"])])
        missing = 0 if nd["missing_go_to_left"] else 1
        if nd["is_categorical"]:
            size = domain_size[col]
            bits = bitsets[int(nd["bitset_idx"])]
            left = tuple(c for c in range(size) if _in_bitset(bits, c))
            right = tuple(c for c in range(size) if not _in_bitset(bits, c))
            b.nominal(col, missing=missing, **extra)
            # unseen categories are encoded NaN by scikit-learn: they take the missing side
            sides[i] = (None, right) if missing == 0 else (left, None)
        else:
            b.numeric(col, float(nd["num_threshold"]), op="<=", precision="float64",
                      missing=missing, **extra)
    for i in range(len(nodes)):
        nd = nodes[i]
        if nd["is_leaf"]:
            continue
        lv, rv = sides.get(i, (None, None))
        b.connect(i, int(nd["left"]), 0, values=lv)
        b.connect(i, int(nd["right"]), 1, values=rv)
    return b.graph


def _link(est: Any) -> str:
    loss = getattr(est, "_loss", None)
    link = type(getattr(loss, "link", None)).__name__
    want = {"IdentityLink": "identity", "LogitLink": "sigmoid", "MultinomialLogit": "softmax"}
    if link not in want:
        raise RulekitError(f"cannot convert {type(est).__name__}(loss={est.loss!r}): its "
                           f"{link} link (prediction = inverse link of the raw score) has no "
                           f"exact rulekit combiner")
    return want[link]


def from_hist_gradient_boosting(est: Any) -> Model:
    """Convert a fitted ``HistGradientBoostingClassifier`` or ``HistGradientBoostingRegressor``."""
    name = type(est).__name__
    if not hasattr(est, "_predictors") or not hasattr(est, "n_features_in_"):
        raise RulekitError(f"{name} is not fitted")
    n = int(est.n_features_in_)
    names_in = getattr(est, "feature_names_in_", None)
    names = [str(s) for s in names_in] if names_in is not None else [f"x{i}" for i in range(n)]
    colmap = _column_map(est, n)
    domains = _categorical_domains(est, colmap, names)
    features = [Feature(name=nm, kind="nominal", domain=domains[j], match="exact") if j in domains
                else Feature(name=nm) for j, nm in enumerate(names)]
    sizes = {j: len(d) for j, d in domains.items()}
    link = _link(est)
    k = int(est.n_trees_per_iteration_)
    trees, outputs = [], []
    for iteration in est._predictors:
        if len(iteration) != k:
            raise RulekitError(f"{name}: an iteration has {len(iteration)} trees, expected {k}")
        for j, predictor in enumerate(iteration):
            trees.append(predictor_graph(predictor, colmap, sizes))
            outputs.append(j)
    if not trees:
        raise RulekitError(f"{name} has no trees (max_iter reached 0?)")
    # raw starts as zeros + baseline: 0.0 + b is what scikit-learn adds the trees to
    base = tuple(0.0 + float(b) for b in np.asarray(est._baseline_prediction, np.float64).ravel())
    source = {"library": "scikit-learn", "estimator": name, "version": sklearn_version(),
              "loss": str(est.loss)}
    if link == "identity":
        if hasattr(est, "classes_"):
            raise RulekitError(f"{name}: a classifier with an identity link")
        return Model(trees, features, task="regression", source=source,
                     combiner=Combiner(kind="sum", base_score=base, link="identity"))
    classes = class_labels(est)
    if (link == "sigmoid") != (k == 1) or len(base) != k:
        raise RulekitError(f"{name}: {len(classes)} classes but {k} tree(s) per iteration")
    combiner = Combiner(kind="sum", base_score=base, link=link, decision="raw>0",
                        tree_output=tuple(outputs) if k > 1 else None)
    return Model(trees, features, task="classification", classes=classes, combiner=combiner,
                 source=source)
