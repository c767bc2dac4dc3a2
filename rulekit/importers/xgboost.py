"""XGBoost models -> rulekit Model, exactly, read from XGBoost's own JSON (or UBJSON) model.

XGBoost casts inputs to float32 and tests ``x < split_condition`` (a float32), so every split
becomes ``op="<", precision="float32"``; a missing value follows ``default_left``. Scores are
summed from the base margin in tree order (``tree_info`` says which class a tree adds to) and
linked by sigmoid (binary:logistic) or softmax (multi:softprob / multi:softmax). XGBoost stores
``base_score`` as a probability for logistic objectives and turns it into a margin in float32
the way :func:`_logit_f32` does. XGBoost sums and links in float32; by default (``arithmetic="float32"``)
the combiner says so and every backend that has a 4-byte float reproduces it (margins and
regression values bit-identical); ``arithmetic="float64"`` sums in float64 (within 2e-4 of
XGBoost's regression values).

The model is parsed from its JSON document, never by calling XGBoost, so a saved ``.json`` or
``.ubj`` file converts without XGBoost installed. An ``XGBClassifier``/``XGBRegressor`` keeps
its ``best_iteration`` (as its ``predict`` does); a ``Booster`` or a file keeps every tree (as
``Booster.predict`` does), recording any ``best_iteration`` in ``model.source``. The UBJSON
decoder and :class:`XGBoostModelError` live in :mod:`rulekit.importers.xgboost_ubjson`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Literal

import networkx as nx
import numpy as np

from rulekit import jsontext
from rulekit.errors import RulekitError
from rulekit.fileio import read_bytes
from rulekit.importers.xgboost_ubjson import XGBoostModelError, ubjson_loads  # re-exported
from rulekit.ir.model import Combiner, Feature, Model
from rulekit.ir.tree import TreeBuilder

MAX_UNNAMED_FEATURES = 1 << 20  # a feature count the file backs by no names (XGBoost's own hashing size)
Arithmetic = Literal["float32", "float64"]
_LOGISTIC = ("binary:logistic",)
_SOFTMAX = ("multi:softprob", "multi:softmax")
_IDENTITY = ("reg:squarederror", "reg:linear", "reg:squaredlogerror", "reg:pseudohubererror",
             "reg:absoluteerror", "reg:quantileerror")


# --- public entry points -----------------------------------------------------------------------


def from_xgboost(obj: Any, *, arithmetic: Arithmetic = "float32") -> Model:
    """Convert an ``XGBClassifier``/``XGBRegressor``/``XGBRFClassifier``/..., a ``Booster`` or the
    path of a model saved by ``save_model`` (``.json`` or ``.ubj``). ``arithmetic="float32"`` sums
    and links as XGBoost does (bit-identical margins in the IR and Python); SQL and ONNX sum in float64.

    >>> model = from_xgboost(xgb.XGBClassifier(n_estimators=10).fit(X, y))   # doctest: +SKIP
    >>> model.predict_proba(X)                                              # doctest: +SKIP
    """
    if isinstance(obj, (str, Path)):
        return load_file(obj, arithmetic=arithmetic)
    if hasattr(obj, "get_booster") and hasattr(obj, "get_xgb_params"):
        return _from_estimator(obj, arithmetic)
    if hasattr(obj, "save_raw") and hasattr(obj, "get_dump"):
        doc = _booster_json(obj)
        return model_from_json(doc, extra_source={"estimator": "Booster"}, arithmetic=arithmetic)
    raise RulekitError(f"cannot import {type(obj).__name__} as an XGBoost model: expected an "
                       f"XGBClassifier/XGBRegressor, a Booster or the path of a saved .json/.ubj model")


def load_file(path: str | Path, *, arithmetic: Arithmetic = "float32") -> Model:
    """Read a model file written by XGBoost's ``save_model`` (JSON or UBJSON, told apart by content)."""
    p = Path(path)
    data = read_bytes(p)
    head = data.lstrip()[:2]
    if not head:
        raise XGBoostModelError("empty file, not an XGBoost model", file=str(p))
    if head[:1] == b"{" and head[1:2] in (b'"', b"\n", b"\r", b" ", b"\t", b"}"):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise XGBoostModelError(f"not UTF-8 JSON ({err.reason} at byte {err.start})",
                                    file=str(p)) from None
        doc = jsontext.loads(text, file=str(p), error=XGBoostModelError)
    elif head[:1] == b"{":
        try:
            doc = ubjson_loads(data)
        except XGBoostModelError as err:
            raise XGBoostModelError(f"not a valid UBJSON XGBoost model: {err.message}",
                                    file=str(p)) from None
    else:
        raise XGBoostModelError("not an XGBoost JSON/UBJ model (the binary or text-dump formats "
                                "are not supported: re-save with save_model('model.json'))",
                                file=str(p))
    try:
        return model_from_json(doc, extra_source={"file": p.name}, arithmetic=arithmetic)
    except XGBoostModelError as err:
        if err.file is None:
            raise XGBoostModelError(err.message, file=str(p)) from None
        raise


# --- estimator / booster -----------------------------------------------------------------------


def _booster_json(booster: Any) -> dict:
    try:
        raw = booster.save_raw(raw_format="json")
    except Exception as err:  # an unfitted or broken booster fails in XGBoost's own ways
        raise RulekitError(f"cannot read the XGBoost booster ({type(err).__name__}: {err})") from None
    return json.loads(bytes(raw).decode("utf-8"))


def _from_estimator(est: Any, arithmetic: Arithmetic) -> Model:
    name = type(est).__name__
    try:
        booster = est.get_booster()
    except Exception:  # XGBoost raises NotFittedError (a ValueError) or its own errors
        raise RulekitError(f"{name} is not fitted") from None
    missing = getattr(est, "missing", np.nan)
    if missing is not None and not (isinstance(missing, float) and math.isnan(missing)):
        raise RulekitError(f"{name} was built with missing={missing!r}: only NaN as the missing "
                           f"value can be converted exactly")
    doc = _booster_json(booster)
    classes = None
    if hasattr(est, "classes_"):
        classes = [c.item() if isinstance(c, np.generic) else c for c in est.classes_]
    best = None
    if _attributes(doc).get("best_iteration") is not None and getattr(est, "booster", None) != "dart":
        best = int(_attributes(doc)["best_iteration"])
    names = None
    fin = getattr(est, "feature_names_in_", None)
    if fin is not None:
        names = [str(s) for s in fin]
    return model_from_json(doc, classes=classes, best_iteration=best,
                           feature_names=names, extra_source={"estimator": name},
                           arithmetic=arithmetic)


def _attributes(doc: dict) -> dict:
    learner = doc.get("learner") if isinstance(doc, dict) else None
    attrs = learner.get("attributes") if isinstance(learner, dict) else None
    return attrs if isinstance(attrs, dict) else {}


# --- the JSON document -> Model ----------------------------------------------------------------


def _get(d: Any, key: str, where: str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise XGBoostModelError(f"not an XGBoost model: no {where + '.' if where else ''}{key}")
    return d[key]


def _floats(text: Any, what: str) -> list[float]:
    """XGBoost writes numbers as strings: ``"5E-1"``, or vectors ``"[5E-1]"``/``"[0E0,0E0]"``."""
    if isinstance(text, (int, float)):
        return [float(text)]
    if isinstance(text, list):
        return [float(v) for v in text]
    s = str(text).strip()
    if s.startswith("[") and s.endswith("]"):
        s = s[1:-1]
    try:
        return [float(v) for v in s.split(",") if v.strip()]
    except ValueError:
        raise XGBoostModelError(f"{what} {text!r} is not a number") from None


def _logit_f32(p: float) -> float:
    """XGBoost's margin for a logistic base_score: ``-log(1/p - 1)`` with ``1/p - 1`` in float32
    and the logarithm rounded once to float32 (matches XGBoost 3.x on every value checked)."""
    f = np.float32
    with np.errstate(all="ignore"):
        b = f(p)
        if not 0.0 < float(b) < 1.0:
            raise XGBoostModelError(f"base_score {p!r} must be in (0, 1) for a logistic objective")
        q = f(1.0) / b - f(1.0)
    return float(f(-math.log(float(q))))


def model_from_json(doc: Any, *, classes: list | None = None,
                    best_iteration: int | None = None, feature_names: list[str] | None = None,
                    extra_source: dict | None = None, arithmetic: Arithmetic = "float32") -> Model:
    """The IR Model for an XGBoost model document (the dict of its JSON/UBJSON form)."""
    try:
        return _model_from_json(doc, classes=classes, best_iteration=best_iteration,
                                feature_names=feature_names, extra_source=extra_source,
                                arithmetic=arithmetic)
    except RulekitError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as err:
        raise XGBoostModelError(f"not a valid XGBoost model ({type(err).__name__}: {err})") from None


def _model_from_json(doc: Any, *, classes: list | None, best_iteration: int | None,
                     feature_names: list[str] | None, extra_source: dict | None,
                     arithmetic: Arithmetic) -> Model:
    learner = _get(doc, "learner", "")
    param = _get(learner, "learner_model_param", "learner")
    objective = _get(_get(learner, "objective", "learner"), "name", "learner.objective")
    gb = _get(learner, "gradient_booster", "learner")
    booster_name = _get(gb, "name", "learner.gradient_booster")
    weights = None
    if booster_name == "gbtree":
        model = _get(gb, "model", "learner.gradient_booster")
    elif booster_name == "dart":
        model = _get(_get(gb, "gbtree", "learner.gradient_booster"), "model", "gbtree")
        weights = [float(np.float32(w)) for w in _get(gb, "weight_drop", "dart")]
    elif booster_name == "gblinear":
        raise XGBoostModelError("a gblinear (linear) XGBoost model has no trees to convert")
    else:
        raise XGBoostModelError(f"unsupported XGBoost booster {booster_name!r}")
    n_targets = int(_floats(param.get("num_target", "1"), "num_target")[0] or 1)
    if n_targets > 1:
        raise XGBoostModelError(f"multi-target XGBoost models ({n_targets} targets) are not supported")
    n_class = int(_floats(param.get("num_class", "0"), "num_class")[0])
    n_feature = int(_floats(_get(param, "num_feature", "learner_model_param"), "num_feature")[0])
    base = _floats(_get(param, "base_score", "learner_model_param"), "base_score")
    if not base or any(not math.isfinite(b) for b in base):
        raise XGBoostModelError(f"base_score {param.get('base_score')!r} is not a finite number")

    ftypes = learner.get("feature_types") or []
    if any(t == "c" for t in ftypes):
        raise XGBoostModelError("categorical features (enable_categorical=True) are not supported "
                                "for XGBoost yet; one-hot or ordinal-encode them as numbers")
    stored = [str(s) for s in learner.get("feature_names") or []]
    _check_counts(n_feature, n_class, len(stored), len(_get(model, "trees", "gradient_booster.model")))
    names = feature_names
    if names is None or len(names) != n_feature:
        names = stored if len(stored) == n_feature else [f"f{i}" for i in range(n_feature)]

    trees_doc = _get(model, "trees", "gradient_booster.model")
    tree_info = [int(t) for t in _get(model, "tree_info", "gradient_booster.model")]
    if len(tree_info) != len(trees_doc):
        raise XGBoostModelError(f"tree_info has {len(tree_info)} entries for {len(trees_doc)} trees")
    if weights is not None and len(weights) != len(trees_doc):
        raise XGBoostModelError(f"dart weight_drop has {len(weights)} entries for {len(trees_doc)} trees")
    n_trees = len(trees_doc)
    if best_iteration is not None:
        indptr = model.get("iteration_indptr")
        if indptr is not None and best_iteration + 1 < len(indptr):
            n_trees = int(indptr[best_iteration + 1])
    if n_trees == 0:
        raise XGBoostModelError("the XGBoost model has no trees")

    if objective in _LOGISTIC:
        task, link, k = "classification", "sigmoid", 1
        base_score = (_logit_f32(base[0]),)
        classes = classes if classes is not None and len(classes) == 2 else [0, 1]
    elif objective in _SOFTMAX:
        if n_class < 2:
            raise XGBoostModelError(f"{objective} model with num_class={n_class}")
        task, link, k = "classification", "softmax", n_class
        if len(base) == 1:
            base = base * n_class
        if len(base) != n_class:
            raise XGBoostModelError(f"base_score has {len(base)} values for {n_class} classes")
        base_score = tuple(float(np.float32(b)) for b in base)
        classes = classes if classes is not None and len(classes) == n_class else list(range(n_class))
    elif objective in _IDENTITY:
        task, link, k = "regression", "identity", 1
        base_score = (float(np.float32(base[0])),)
        classes = None
    else:
        raise XGBoostModelError(f"XGBoost objective {objective!r} is not supported (supported: "
                                f"{', '.join(_LOGISTIC + _SOFTMAX + _IDENTITY)})")
    if any(not 0 <= g < k for g in tree_info[:n_trees]):
        raise XGBoostModelError(f"tree_info names an output outside 0..{k - 1}")

    trees = []
    for t in range(n_trees):
        w = None if weights is None else weights[t]
        trees.append(tree_graph(trees_doc[t], n_feature=n_feature, names=names, weight=w,
                                where=f"tree {t}"))
    combiner = Combiner(kind="sum", base_score=base_score, link=link,
                        tree_output=tuple(tree_info[:n_trees]) if k > 1 else None,
                        arithmetic="float32" if arithmetic == "float32" else None)
    source: dict[str, Any] = {"library": "xgboost", "objective": objective, "booster": booster_name}
    version = doc.get("version")
    if isinstance(version, list):
        source["version"] = ".".join(str(v) for v in version)
    best = _attributes(doc).get("best_iteration")
    if best is not None:
        source["best_iteration"] = int(best)
    if n_trees != len(trees_doc):
        source["n_trees_used"] = n_trees
    source.update(extra_source or {})
    try:
        return Model(trees, [Feature(name=n) for n in names], task=task, classes=classes,
                     combiner=combiner, source=source)
    except XGBoostModelError:
        raise
    except RulekitError as err:
        raise XGBoostModelError(f"not a valid XGBoost model: {err.message}") from None


def _check_counts(n_feature: int, n_class: int, n_names: int, n_trees: int) -> None:
    """Refuse counts the file cannot back before anything is allocated for them: a feature count
    beyond its stored names (or MAX_UNNAMED_FEATURES without names), more classes than trees."""
    limit = n_names if n_names else MAX_UNNAMED_FEATURES
    if not 0 <= n_feature <= limit:
        raise XGBoostModelError(f"num_feature={n_feature} is out of range (0..{limit}: "
                                + (f"the file names {n_names} features)" if n_names else
                                   "more features than rulekit reads without feature_names)"))
    if not 0 <= n_class <= max(n_trees, 2):
        raise XGBoostModelError(f"num_class={n_class} is out of range for {n_trees} trees "
                                f"(each class needs a tree)")


def tree_graph(tree: dict, *, n_feature: int, names: list[str], weight: float | None = None,
               where: str = "tree"):
    """One XGBoost tree (its JSON dict) as a rulekit tree graph, walked with an explicit stack."""
    try:
        left = [int(v) for v in tree["left_children"]]
        right = [int(v) for v in tree["right_children"]]
        index = [int(v) for v in tree["split_indices"]]
        cond = np.asarray(tree["split_conditions"], dtype=np.float64).astype(np.float32)
        dleft = [int(v) for v in tree["default_left"]]
        stype = [int(v) for v in tree.get("split_type") or [0] * len(left)]
        leaf_size = int(_floats(tree.get("tree_param", {}).get("size_leaf_vector", "1"), "size")[0])
    except (KeyError, TypeError, ValueError) as err:
        raise XGBoostModelError(f"{where}: malformed tree ({type(err).__name__}: {err})") from None
    n = len(left)
    if n == 0 or any(len(a) != n for a in (right, index, cond, dleft, stype)):
        raise XGBoostModelError(f"{where}: node arrays have different lengths")
    if leaf_size > 1:
        raise XGBoostModelError(f"{where}: vector leaves (multi_strategy='multi_output_tree') are "
                                f"not supported")
    if not np.all(np.isfinite(cond) | ~(np.asarray(left) == -1)):
        raise XGBoostModelError(f"{where}: a leaf value is not finite")
    b = TreeBuilder()
    seen = [False] * n
    ids: list[int] = []
    stack: list[tuple[int, int | None, int]] = [(0, None, 0)]  # (xgb node, IR parent, branch)
    while stack:
        i, parent, branch = stack.pop()
        if not 0 <= i < n or seen[i]:
            raise XGBoostModelError(f"{where}: child index {i} is out of range or reached twice")
        seen[i] = True
        if left[i] == -1:
            v = cond[i] if weight is None else np.float32(np.float32(weight) * cond[i])
            node = b.leaf((float(v),))
        else:
            if stype[i] != 0:
                raise XGBoostModelError(f"{where}: categorical splits are not supported for XGBoost")
            f = index[i]
            if not 0 <= f < n_feature:
                raise XGBoostModelError(f"{where}: node {i} splits on feature {f}, the model has "
                                        f"{n_feature}")
            if math.isnan(float(cond[i])):
                raise XGBoostModelError(f"{where}: node {i} has a NaN split condition")
            node = b.numeric(f, float(cond[i]), op="<", precision="float32",
                             missing=0 if dleft[i] else 1, feature_name=names[f])
            stack.append((right[i], node, 1))
            stack.append((left[i], node, 0))
        ids.append(i)
        if parent is not None:
            b.connect(parent, node, branch)
    # keep XGBoost's node ids (the builder numbered nodes in visiting order), like pred_leaf
    return nx.relabel_nodes(b.graph, dict(enumerate(ids)), copy=True)
