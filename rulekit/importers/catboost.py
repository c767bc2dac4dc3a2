"""CatBoost models -> rulekit Model, exactly, read from CatBoost's JSON model export.

CatBoost casts every numeric input to float32 and sets a split's bit when ``x > border`` (a float32
border); a missing value takes the side its feature's ``nan_value_treatment`` says (``AsTrue``: as
if +inf, bit 1; ``AsFalse``, and ``AsIs`` or a feature trained without NaN: bit 0), whatever
``nan_mode`` (Min, Max, Forbidden) produced it. One-hot categorical features (``one_hot_max_size``)
test ``hash(value) == h``; the export names the categories only when written with the training
pool (``save_model(f, format="json", pool=pool)`` adds ``cat_features_hash``), and they become a
nominal feature whose domain is the categories the trees test (any other category, and a missing
one, which CatBoost refuses, goes the "not equal" way). Categorical features encoded by CTRs
(target statistics) are refused, naming the feature.

Trees are summed in tree order in float64 from 0, then CatBoost computes ``scale * sum + bias``:
the bias becomes a last one-leaf tree (so the sum is the same additions in the same order, bit for
bit) and a scale other than 1 multiplies every leaf value (exact when it is a power of two, else
within a few ulps). Losses: RMSE and other identity-link regressions, Logloss/CrossEntropy
(sigmoid; label ``raw > 0``), MultiClass (softmax; one IR tree per class and CatBoost tree).
A ``.cbm`` file goes through the catboost package (loaded, then exported to JSON).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from rulekit import jsontext
from rulekit.errors import RulekitError
from rulekit.fileio import read_bytes
from rulekit.importers.catboost_trees import (
    GraphParts,
    Split,
    expand_nonsymmetric,
    expand_oblivious,
    to_graph,
)
from rulekit.ir.model import Combiner, Feature, Model

CBM_MAGIC = b"CBM1"
_IDENTITY = ("RMSE", "MAE", "Quantile", "Expectile", "Huber", "MAPE", "Lq", "LogCosh", "SurvivalAft")
_SIGMOID = ("Logloss", "CrossEntropy")
_SOFTMAX = ("MultiClass",)


class CatBoostModelError(RulekitError):
    """A document that is not a (supported) CatBoost model."""


# --- public entry points -----------------------------------------------------------------------


def from_catboost(obj: Any, *, pool: Any = None) -> Model:
    """Convert a fitted ``CatBoostClassifier``/``CatBoostRegressor``/``CatBoost`` or the path of a
    saved model (JSON export or ``.cbm``). A model with one-hot categorical features needs the
    training data as ``pool`` (a ``catboost.Pool`` or the training frame) to name its categories.

    >>> model = from_catboost(CatBoostClassifier(iterations=10).fit(X, y))   # doctest: +SKIP
    """
    if isinstance(obj, (str, Path)):
        return load_file(obj)
    if not (hasattr(obj, "save_model") and hasattr(obj, "get_cat_feature_indices")):
        raise RulekitError(f"cannot import {type(obj).__name__} as a CatBoost model: expected a fitted "
                           f"CatBoostClassifier/CatBoostRegressor/CatBoost or the path of a saved model")
    if not getattr(obj, "is_fitted", lambda: True)():
        raise RulekitError(f"{type(obj).__name__} is not fitted")
    if pool is not None and not hasattr(pool, "get_cat_feature_indices"):
        from catboost import Pool

        try:
            pool = Pool(pool, cat_features=obj.get_cat_feature_indices())
        except Exception as err:  # noqa: BLE001 - CatBoostError: one line
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise RulekitError(f"pool: catboost cannot read it as the model's training data ({first})") from None
    doc = _json_of(obj, pool)
    return model_from_json(doc, extra_source={"estimator": type(obj).__name__})


def load_file(path: str | Path) -> Model:
    """Read a CatBoost model file: its JSON export, or a ``.cbm`` (needs the catboost package)."""
    p = Path(path)
    data = read_bytes(p)
    if data.startswith(CBM_MAGIC):
        doc = _cbm_json(p)
    elif data.lstrip()[:1] == b"{":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise CatBoostModelError(f"not UTF-8 JSON ({err.reason} at byte {err.start})",
                                     file=str(p)) from None
        doc = jsontext.loads(text, file=str(p), error=CatBoostModelError)
    else:
        raise CatBoostModelError("not a CatBoost model (expected its JSON export or a .cbm file)",
                                 file=str(p))
    try:
        return model_from_json(doc, extra_source={"file": p.name})
    except CatBoostModelError as err:
        if err.file is None:
            raise CatBoostModelError(err.message, file=str(p)) from None
        raise


def _cbm_json(p: Path) -> dict:
    try:
        from catboost import CatBoost
    except ImportError:
        raise CatBoostModelError("a CatBoost binary (.cbm) model needs the catboost package to read "
                                 "(pip install 'rulekit[catboost]'), or export it to JSON with "
                                 "save_model(f, format='json')", file=str(p)) from None
    model = CatBoost()
    try:
        model.load_model(str(p))
    except Exception as err:  # noqa: BLE001 - CatBoostError and friends: one line
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise CatBoostModelError(f"catboost cannot read this .cbm file ({first})", file=str(p)) from None
    return _json_of(model, None)


def _json_of(model: Any, pool: Any) -> dict:
    """CatBoost's own JSON export of ``model`` (written to a temporary file and read back)."""
    fd, name = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        try:
            model.save_model(name, format="json", pool=pool)
        except Exception as err:  # noqa: BLE001 - CatBoostError: one line
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise RulekitError(f"catboost cannot export this model to JSON ({first})") from None
        with open(name, encoding="utf-8") as fh:
            return json.load(fh)
    finally:
        os.unlink(name)


# --- the JSON document -> Model ----------------------------------------------------------------


def model_from_json(doc: Any, *, extra_source: dict | None = None) -> Model:
    """The IR Model of a CatBoost JSON model document (the dict ``save_model(format="json")`` writes)."""
    try:
        return _Reader(doc).model(extra_source or {})
    except RulekitError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as err:
        raise CatBoostModelError(f"not a valid CatBoost model ({type(err).__name__}: {err})") from None


def _get(d: Any, key: str, where: str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise CatBoostModelError(f"not a CatBoost model: no {where + '.' if where else ''}{key}")
    return d[key]


def _maybe_json(v: Any) -> Any:
    """Some CatBoost versions write ``params``/``class_params`` as a JSON string."""
    if isinstance(v, str):
        try:
            return json.loads(v)
        except ValueError:
            raise CatBoostModelError("model_info holds a string that is not JSON") from None
    return v


def _f32(v: Any, what: str) -> float:
    x = float(v)
    f = float(np.float32(x))
    if math.isnan(x) or (f != x and not math.isinf(f)):
        raise CatBoostModelError(f"{what} {v!r} is not a float32 value")
    return x


class _Reader:
    """One pass over a CatBoost JSON document: features, then trees, then the combiner."""

    def __init__(self, doc: Any) -> None:
        if not isinstance(doc, dict):
            raise CatBoostModelError("not a CatBoost model (the document is not a JSON object)")
        self.doc = doc
        self.info = _get(doc, "features_info", "")
        if not isinstance(self.info, dict):
            raise CatBoostModelError("not a CatBoost model: features_info is not an object")
        model_info = doc.get("model_info") or {}
        self.params = _maybe_json(model_info.get("params")) or {}
        self.class_params = _maybe_json(model_info.get("class_params")) or {}

    # features ------------------------------------------------------------------------------------
    def _features(self) -> None:
        info = self.info
        for kind in ("text_features", "embedding_features"):
            if info.get(kind):
                raise CatBoostModelError(f"{kind.replace('_', ' ')} are not supported (numeric and "
                                         f"one-hot categorical features are)")
        floats = info.get("float_features") or []
        cats = info.get("categorical_features") or []
        flat: dict[int, tuple[str, dict]] = {}
        for kind, items in (("float", floats), ("cat", cats)):
            for pos, item in enumerate(items):
                if int(item.get("feature_index", pos)) != pos:
                    raise CatBoostModelError(f"{kind} feature {pos} has feature_index "
                                             f"{item.get('feature_index')!r}")
                j = int(_get(item, "flat_feature_index", f"{kind}_features[{pos}]"))
                if j in flat or j < 0:
                    raise CatBoostModelError(f"flat_feature_index {j} is used twice")
                flat[j] = (kind, item)
        n = max(flat) + 1 if flat else 0
        if sorted(flat) != list(range(n)):
            raise CatBoostModelError(f"the model's feature positions {sorted(flat)} leave gaps "
                                     f"(features of a kind rulekit does not read)")
        self.names = [str(flat[j][1].get("feature_id") or j) for j in range(n)]
        self.float_flat = [int(f["flat_feature_index"]) for f in floats]
        self.cat_flat = [int(c["flat_feature_index"]) for c in cats]
        # AsTrue on a feature trained with NaN: NaN compares as +inf (bit 1); otherwise bit 0
        self.float_missing = [1 if f.get("has_nans") and f.get("nan_value_treatment") == "AsTrue" else 0
                              for f in floats]
        self.hash_names: dict[int, str] = {}
        for entry in info.get("cat_features_hash") or []:
            self.hash_names[int(entry["hash"]) & 0xFFFFFFFF] = str(entry["value"])
        self.cat_codes: list[dict[int, int]] = [{} for _ in cats]  # hash -> domain code
        self.cat_domains: list[list[str]] = [[] for _ in cats]
        self.ctr_features = self._ctr_features(floats, cats)
        # split_index numbers every border, then every one-hot value: CatBoost reads a split by it
        self.split_of_index: dict[int, tuple[str, int, Any]] = {}
        index = 0
        for kind, items, key in (("float", floats, "borders"), ("cat", cats, "values")):
            for pos, item in enumerate(items):
                for v in item.get(key) or ():
                    self.split_of_index[index] = (kind, pos, v)
                    index += 1

    def _ctr_features(self, floats: list, cats: list) -> dict[int, list[str]]:
        """split_index of each CTR border -> the categorical feature names it encodes."""
        index = sum(len(f.get("borders") or ()) for f in floats)
        index += sum(len(c.get("values") or ()) for c in cats)
        out: dict[int, list[str]] = {}
        for ctr in self.info.get("ctrs") or []:
            names = [self.names[self.cat_flat[int(e["cat_feature_index"])]]
                     for e in ctr.get("elements") or () if "cat_feature_index" in e]
            for _ in ctr.get("borders") or ():
                out[index] = names
                index += 1
        return out

    def _category(self, cat: int, h: int) -> int:
        """The domain code of hash ``h`` of categorical feature ``cat`` (added on first use)."""
        h &= 0xFFFFFFFF
        codes = self.cat_codes[cat]
        if h not in codes:
            name = self.names[self.cat_flat[cat]]
            if h not in self.hash_names:
                raise CatBoostModelError(
                    f"categorical feature {name!r}: the model tests a category it names only by its "
                    f"hash ({h}); export the model with its training data: save_model(f, format='json', "
                    f"pool=train_pool) (rulekit.from_catboost(model, pool=...))")
            value = self.hash_names[h]
            if value in self.cat_domains[cat]:
                raise CatBoostModelError(f"categorical feature {name!r}: two hashes name {value!r}")
            codes[h] = len(self.cat_domains[cat])
            self.cat_domains[cat].append(value)
        return codes[h]

    # splits --------------------------------------------------------------------------------------
    def _split(self, s: Any) -> Split:
        split = self._read_split(s)
        if "split_index" in s and split[0] in ("float", "onehot"):
            kind = "float" if split[0] == "float" else "cat"
            pos = int(s["float_feature_index" if kind == "float" else "cat_feature_index"])
            value = s["border" if kind == "float" else "value"]
            known = self.split_of_index.get(int(s["split_index"]))
            if known is None or known[:2] != (kind, pos) or float(known[2]) != float(value):
                raise CatBoostModelError(f"split_index {s['split_index']} does not name the split it "
                                         f"is written with ({kind} feature {pos}, {value!r})")
        return split

    def _read_split(self, s: Any) -> Split:
        kind = _get(s, "split_type", "split")
        if kind == "FloatFeature":
            i = int(_get(s, "float_feature_index", "split"))
            if not 0 <= i < len(self.float_flat):
                raise CatBoostModelError(f"split on float feature {i}, which does not exist")
            return ("float", self.float_flat[i], _f32(_get(s, "border", "split"), "border"))
        if kind == "OneHotFeature":
            i = int(_get(s, "cat_feature_index", "split"))
            if not 0 <= i < len(self.cat_flat):
                raise CatBoostModelError(f"split on categorical feature {i}, which does not exist")
            return ("onehot", self.cat_flat[i], self._category(i, int(_get(s, "value", "split"))))
        if kind == "OnlineCtr":
            names = self.ctr_features.get(int(s.get("split_index", -1)))
            if names is None:
                names = sorted({n for ns in self.ctr_features.values() for n in ns})
            what = " x ".join(repr(n) for n in names) or "a categorical feature"
            raise CatBoostModelError(
                f"categorical feature {what} is encoded by CTRs (target statistics), which rulekit "
                f"cannot import exactly; retrain with one_hot_max_size above its number of categories "
                f"(one-hot splits import exactly)")
        raise CatBoostModelError(f"split type {kind!r} is not supported (FloatFeature and "
                                 f"OneHotFeature are)")

    def _missing(self, split: Split) -> int:
        kind, feature, _ = split
        if kind == "float":
            return self.float_missing[self.float_flat.index(feature)]
        return 0

    # trees ---------------------------------------------------------------------------------------
    def _tree_parts(self, dim: int) -> list[GraphParts]:
        doc = self.doc
        if "oblivious_trees" in doc:
            trees = doc["oblivious_trees"]
            if not isinstance(trees, list):
                raise CatBoostModelError("oblivious_trees is not a list")
            out = []
            for t, tree in enumerate(trees):
                splits = [self._split(s) for s in _get(tree, "splits", f"oblivious_trees[{t}]")]
                values = _get(tree, "leaf_values", f"oblivious_trees[{t}]")
                weights = tree.get("leaf_weights") or []
                n_leaves = 1 << len(splits)
                if len(values) != n_leaves * dim:
                    raise CatBoostModelError(f"oblivious tree {t}: {len(values)} leaf values for "
                                             f"{len(splits)} splits and {dim} output(s)")
                vals = [float(v) for v in values]

                def leaf(index: int, vals=vals, weights=weights) -> dict[str, Any]:
                    a: dict[str, Any] = {"kind": "leaf", "_leaf": tuple(vals[index * dim:(index + 1) * dim])}
                    if index < len(weights):
                        a["n_samples"] = float(weights[index])
                    return a

                out.append(expand_oblivious(splits, leaf, self._missing))
            return out
        if "trees" in doc:
            trees = doc["trees"]
            if not isinstance(trees, list):
                raise CatBoostModelError("trees is not a list")
            out = []
            for t, tree in enumerate(trees):
                def leaf(obj: dict, t=t) -> dict[str, Any]:
                    v = obj.get("value")
                    vals = v if isinstance(v, list) else [v]
                    if len(vals) != dim or any(x is None for x in vals):
                        raise CatBoostModelError(f"tree {t}: a leaf has {len(vals)} value(s), the "
                                                 f"model {dim} output(s)")
                    a: dict[str, Any] = {"kind": "leaf", "_leaf": tuple(float(x) for x in vals)}
                    if obj.get("weight") is not None:
                        a["n_samples"] = float(obj["weight"])
                    return a

                out.append(expand_nonsymmetric(tree, self._split, leaf, self._missing, f"tree {t}",
                                               CatBoostModelError))
            return out
        raise CatBoostModelError("not a CatBoost model: no oblivious_trees or trees")

    # the model -----------------------------------------------------------------------------------
    def _loss(self) -> str:
        loss = self.params.get("loss_function") if isinstance(self.params, dict) else None
        name = loss.get("type") if isinstance(loss, dict) else loss
        if name is None:
            return "RMSE"  # a bare document (no model_info): CatBoost applies it as raw values
        return str(name).split(":")[0]

    def _classes(self, loss: str, dim: int) -> list:
        names = list(self.class_params.get("class_names") or [])
        if not names:
            names = [0, 1] if loss in _SIGMOID else list(range(dim))
        return [n for n in names]

    def _scale_and_bias(self, dim: int) -> tuple[float, list[float]]:
        sb = self.doc.get("scale_and_bias", [1.0, [0.0] * dim])
        scale = float(sb[0])
        bias = sb[1] if isinstance(sb[1], list) else [sb[1]]
        bias = [float(b) for b in bias] or [0.0] * dim
        if len(bias) == 1 and dim > 1:
            bias = bias * dim
        if len(bias) != dim or not math.isfinite(scale) or not all(math.isfinite(b) for b in bias):
            raise CatBoostModelError(f"scale_and_bias {sb!r} does not fit {dim} output(s)")
        return scale, bias

    def model(self, extra_source: dict) -> Model:
        self._features()
        loss = self._loss()
        if loss in _SOFTMAX:
            task, link = "classification", "softmax"
            dim = len(self._classes(loss, 0))
        elif loss in _SIGMOID:
            task, link, dim = "classification", "sigmoid", 1
        elif loss in _IDENTITY:
            task, link, dim = "regression", "identity", 1
        else:
            raise CatBoostModelError(f"loss function {loss!r} is not supported (RMSE and other "
                                     f"raw-value regressions, Logloss, CrossEntropy, MultiClass are)")
        scale, bias = self._scale_and_bias(dim)
        parts = self._tree_parts(dim)
        trees, outputs = [], []
        for p in parts:
            for k in range(dim):
                trees.append(to_graph(p, lambda a, k=k: (a["_leaf"][k] * scale,) if scale != 1.0
                                      else (a["_leaf"][k],)))
                outputs.append(k)
        for k, b in enumerate(bias):
            if b != 0.0 or not trees:  # CatBoost adds the bias after the sum: a last one-leaf tree
                one = GraphParts()
                one.add({"kind": "leaf", "_leaf": (b,)}, None, 0)
                trees.append(to_graph(one, lambda a: a["_leaf"]))
                outputs.append(k)
        features = []
        cat_of = {j: i for i, j in enumerate(self.cat_flat)}
        for j, name in enumerate(self.names):
            if j in cat_of:
                features.append(Feature(name=name, kind="nominal", domain=tuple(self.cat_domains[cat_of[j]])))
            else:
                features.append(Feature(name=name))
        classes = self._classes(loss, dim) if task == "classification" else None
        combiner = Combiner(kind="sum", base_score=(0.0,) * dim, link=link,
                            tree_output=tuple(outputs), decision="raw>0" if task == "classification" else None)
        source: dict[str, Any] = {"library": "catboost", "loss": loss,
                                  "symmetric": "oblivious_trees" in self.doc}
        if scale != 1.0:
            source["scale"] = scale
        source.update(extra_source)
        try:
            return Model(trees, features, task=task, classes=classes, combiner=combiner, source=source)
        except CatBoostModelError:
            raise
        except RulekitError as err:
            raise CatBoostModelError(f"not a valid CatBoost model ({err.message})") from None
