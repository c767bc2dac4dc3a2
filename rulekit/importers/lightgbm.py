"""LightGBM models -> rulekit Model, exactly, read from LightGBM's text model format.

LightGBM predicts in float64: a numeric split sends ``x <= threshold`` left. Before any test it
treats an input with ``|x| <= 1e-35f`` as 0 (its dense-row reader drops such values), and each
split's missing type says what NaN does: ``None`` -> NaN is 0; ``NaN`` -> NaN follows
``default_left``; ``Zero`` -> NaN and zero (``|x| <= 1e-35f``) follow ``default_left``. All of this
becomes plain ``x <= b`` / ``x < b`` IR splits; a ``Zero`` split whose default side is not the
side zero falls on needs three IR splits and one extra copy of each child subtree (zero lies in
an island between the two sides); tests the path above already decides are left out of the
copies (measured: 100 trees of 31 leaves, zero_as_missing, 4.8x LightGBM's node count). What a
split means is in :mod:`.lightgbm_splits`, reading the text format in :mod:`.lightgbm_text`; this
module turns the checked trees into IR graphs and the objective into a combiner.
Categorical splits (decision_type bit 0) send a category whose bit is set in ``cat_threshold``
left; NaN, negative values and values beyond ``int`` go right and inputs are truncated toward
zero, which is exactly how rulekit encodes an integer-domain nominal feature. Features that came
from pandas ``category`` columns keep their categories as domain.

Scores are summed from 0 in tree order (LightGBM folds its initial score into the first trees)
and linked by sigmoid (``binary``) or softmax (``multiclass``). ``sigmoid:<s>`` != 1 and
random-forest averaging are folded into the leaf values (agreeing to ~1e-15). Linear trees,
``multiclassova`` and log-link objectives are refused with a clear message.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from rulekit import semantics
from rulekit.errors import RulekitError
from rulekit.fileio import read_bytes
from rulekit.importers.lightgbm_splits import ZERO  # noqa: F401 - re-exported (tests, callers)
from rulekit.importers.lightgbm_splits import (CAT_MASK, DEFAULT_LEFT_MASK, Bounds, bitset_members, missing_type,
                                               narrow, numeric_plan)
from rulekit.importers.lightgbm_text import LightGBMModelError, ModelText, numbers
from rulekit.ir.model import Combiner, Feature, Model
from rulekit.ir.tree import TreeBuilder

_IDENTITY = ("regression", "regression_l1", "huber", "fair", "quantile", "mape", "lambdarank",
             "rank_xendcg")
MAX_TREE_NODES = 2_000_000
# a tree's IR may grow to MAX_EXPANSION times its LightGBM node count plus MIN_EXPANSION_ROOM
# (zero-island splits copy subtrees: 4.8x measured on 100 real trees; a nested chain doubles
# per level, 2**depth), so conversion stays linear in the file's size
MAX_EXPANSION, MIN_EXPANSION_ROOM = 32, 20_000


# --- public entry points -----------------------------------------------------------------------


def from_lightgbm(obj: Any) -> Model:
    """Convert an ``LGBMClassifier``/``LGBMRegressor``, a ``Booster`` or the path of a text model
    saved by ``Booster.save_model``.

    >>> model = from_lightgbm(lgb.LGBMClassifier(n_estimators=10).fit(X, y))  # doctest: +SKIP
    """
    if isinstance(obj, (str, Path)):
        return load_file(obj)
    if hasattr(obj, "booster_") or (hasattr(obj, "fit") and hasattr(obj, "get_params")):
        return _from_estimator(obj)
    if hasattr(obj, "model_to_string"):
        return parse_model(_model_string(obj), extra_source={"estimator": "Booster"})
    raise RulekitError(f"cannot import {type(obj).__name__} as a LightGBM model: expected an "
                       f"LGBMClassifier/LGBMRegressor, a Booster or the path of a saved text model")


def load_file(path: str | Path) -> Model:
    """Read a text model written by LightGBM's ``save_model`` / ``model_to_string``."""
    p = Path(path)
    data = read_bytes(p)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise LightGBMModelError(f"not a LightGBM text model (not UTF-8 at byte {err.start})",
                                 file=str(p)) from None
    return parse_model(text, file=str(p), extra_source={"file": p.name})


def _model_string(booster: Any) -> str:
    try:
        return booster.model_to_string()
    except Exception as err:  # an unfitted or broken booster fails in LightGBM's own ways
        raise RulekitError(f"cannot read the LightGBM booster ({type(err).__name__}: {err})") from None


def _from_estimator(est: Any) -> Model:
    name = type(est).__name__
    try:
        booster = est.booster_
    except Exception:  # LightGBM raises LGBMNotFittedError
        raise RulekitError(f"{name} is not fitted") from None
    if callable(getattr(est, "objective", None)):
        raise RulekitError(f"{name} was trained with a custom objective function: its raw scores "
                           f"have no known link, so it cannot be converted")
    classes = None
    if hasattr(est, "classes_"):
        classes = [c.item() if isinstance(c, np.generic) else c for c in est.classes_]
    names = None
    try:
        fin = est.feature_names_in_
        names = [str(s) for s in fin]
    except (AttributeError, ValueError, TypeError):
        names = None
    return parse_model(_model_string(booster), classes=classes, feature_names=names,
                       extra_source={"estimator": name})


def parse_model(text: str, *, file: str | None = None,
                classes: list | None = None, feature_names: list[str] | None = None,
                extra_source: dict | None = None) -> Model:
    """The IR Model for a LightGBM text model (``Booster.model_to_string()``)."""
    try:
        return _parse_model(text, file=file, classes=classes, feature_names=feature_names,
                            extra_source=extra_source)
    except RulekitError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as err:
        raise LightGBMModelError(f"not a valid LightGBM model ({type(err).__name__}: {err})",
                                 file=file) from None


def _parse_model(text: str, *, file: str | None, classes: list | None,
                 feature_names: list[str] | None, extra_source: dict | None) -> Model:
    t = ModelText(text, file)
    h = t.header
    n_class = numbers(t, t.get(h, "num_class", "header"), int, "num_class", 1)[0]
    per_iter = numbers(t, t.get(h, "num_tree_per_iteration", "header"), int,
                        "num_tree_per_iteration", 1)[0]
    max_feature = numbers(t, t.get(h, "max_feature_idx", "header"), int, "max_feature_idx", 1)[0]
    n_features = max_feature + 1
    stored_names = t.get(h, "feature_names", "header")[0].split()
    if len(stored_names) != n_features:
        raise t.fail(f"feature_names has {len(stored_names)} names for {n_features} features",
                     t.get(h, "feature_names", "header")[1])
    infos = t.get(h, "feature_infos", "header")[0].split()
    if len(infos) != n_features:
        raise t.fail(f"feature_infos has {len(infos)} entries for {n_features} features",
                     t.get(h, "feature_infos", "header")[1])
    objective, obj_line = h.get("objective", ("", 0))
    task, link, scale, n_out = _objective(t, objective.split(), obj_line, n_class, per_iter)
    if not t.trees:
        raise t.fail("the LightGBM model has no trees")
    if len(t.trees) % per_iter:
        raise t.fail(f"{len(t.trees)} trees is not a multiple of num_tree_per_iteration={per_iter}")
    if "average_output" in t.flags:
        scale = scale / (len(t.trees) // per_iter)

    names = feature_names if feature_names and len(feature_names) == n_features else stored_names
    parsed = [_Tree(t, block, line, n_features, scale, f"tree {k}")
              for k, (line, block) in enumerate(t.trees)]
    used: dict[int, set[int]] = {}
    for tree in parsed:
        for i, members in tree.members.items():
            used.setdefault(tree.feature[i], set()).update(members)
    features, cat_codes = _features(t, names, infos, used)
    trees = [_build(tree, features, cat_codes, tree.where, t) for tree in parsed]

    if task == "classification":
        classes = classes if classes is not None and len(classes) == max(2, n_out) else \
            list(range(max(2, n_out)))
    else:
        classes = None
    combiner = Combiner(kind="sum", base_score=(0.0,) * n_out, link=link,
                        tree_output=tuple(i % per_iter for i in range(len(trees))) if n_out > 1 else None)
    source: dict[str, Any] = {"library": "lightgbm", "objective": objective}
    if h.get("version"):
        source["format"] = h["version"][0]
    if "average_output" in t.flags:
        source["average_output"] = True
    source.update(extra_source or {})
    try:
        return Model(trees, features, task=task, classes=classes, combiner=combiner, source=source)
    except LightGBMModelError:
        raise
    except RulekitError as err:
        raise t.fail(f"not a valid LightGBM model: {err.message}") from None


def _objective(t: ModelText, parts: list[str], line: int, n_class: int, per_iter: int):
    """(task, link, leaf scale, number of outputs) for LightGBM's objective line."""
    name = parts[0] if parts else ""
    params = dict(p.split(":", 1) for p in parts[1:] if ":" in p)
    if name == "binary":
        try:
            s = float(params.get("sigmoid", "1"))
        except ValueError:
            raise t.fail(f"bad sigmoid parameter {params.get('sigmoid')!r}", line) from None
        if not math.isfinite(s) or s <= 0:
            raise t.fail(f"bad sigmoid parameter {s!r}", line)
        if per_iter != 1:
            raise t.fail(f"binary model with num_tree_per_iteration={per_iter}", line)
        return "classification", "sigmoid", s, 1
    if name in ("multiclass", "softmax"):
        if n_class < 2 or per_iter != n_class:
            raise t.fail(f"multiclass model with num_class={n_class}, "
                         f"num_tree_per_iteration={per_iter}", line)
        return "classification", "softmax", 1.0, n_class
    if name in _IDENTITY:
        if "sqrt" in parts[1:]:
            raise t.fail(f"objective '{' '.join(parts)}' (reg_sqrt squares the raw score) is not "
                         f"supported", line)
        if per_iter != 1:
            raise t.fail(f"{name} model with num_tree_per_iteration={per_iter}", line)
        return "regression", "identity", 1.0, 1
    what = " ".join(parts) or "none (custom objective)"
    raise t.fail(f"LightGBM objective '{what}' is not supported (supported: binary, multiclass, "
                 f"{', '.join(_IDENTITY)})", line or None)


def _features(t: ModelText, names: list[str], infos: list[str], used: dict[int, set[int]]):
    """Numeric features, and nominal ones for categorical columns: the pandas categories as the
    domain when the model recorded them (LightGBM's category c is then the c-th of them), else
    the integer categories LightGBM saw or splits on. Also: per feature, category -> domain code."""
    cat_idx = [j for j, info in enumerate(infos) if info != "none" and not info.startswith("[")]
    for j in used:
        if j not in cat_idx:
            raise t.fail(f"categorical split on {names[j]!r}, which feature_infos describes as "
                         f"numeric", t.get(t.header, "feature_infos", "header")[1])
    pandas = t.pandas_categorical or []
    if not isinstance(pandas, list) or not all(isinstance(c, list) for c in pandas):
        raise t.fail("pandas_categorical must be a list of category lists", t.pandas_line)
    from_pandas = _match_pandas(t, pandas, cat_idx, infos, used, names)
    features: list[Feature] = []
    codes: dict[int, dict[int, int]] = {}
    for j, name in enumerate(names):
        if j not in cat_idx:
            features.append(Feature(name=name))
            continue
        if j in from_pandas:  # a category value must equal one of the pandas categories
            domain = _domain_values(pandas[from_pandas[j]])
            codes[j] = {c: c for c in range(len(domain))}
            match = "exact" if all(isinstance(v, int) for v in domain) else None
        else:
            try:
                seen = {int(v) for v in infos[j].split(":")}
            except ValueError:
                raise t.fail(f"feature_infos of {name!r} is neither a range nor categories",
                             t.get(t.header, "feature_infos", "header")[1]) from None
            domain = tuple(sorted(c for c in seen | used.get(j, set()) if c >= 0))
            codes[j] = {c: i for i, c in enumerate(domain)}
            match = "truncate"  # LightGBM casts the number to int
        try:
            features.append(Feature(name=name, kind="nominal", domain=domain, match=match))
        except ValueError as err:
            raise t.fail(f"categories of {name!r}: {err}", t.pandas_line or None) from None
    return features, codes


def _match_pandas(t: ModelText, pandas: list[list], cat_idx: list[int], infos: list[str],
                  used: dict[int, set[int]], names: list[str]) -> dict[int, int]:
    """Which categorical feature each pandas category list belongs to: {feature: list index}.

    LightGBM lists the categories of the DataFrame's ``category`` columns in column order; other
    columns may also be categorical (``categorical_feature=``). A list of n categories fits a
    feature whose categories are all below n; the in-order assignment must be unique."""
    p, k = len(pandas), len(cat_idx)
    if p == 0:
        return {}
    top = []
    for j in cat_idx:
        try:
            seen = {int(v) for v in infos[j].split(":")}
        except ValueError:
            raise t.fail(f"feature_infos of {names[j]!r} is neither a range nor categories",
                         t.get(t.header, "feature_infos", "header")[1]) from None
        top.append(max(seen | used.get(j, set()) | {-1}))

    def fits(i: int, c: int) -> bool:
        return top[c] < len(pandas[i])

    ways = [[0] * (k + 1) for _ in range(p + 1)]  # ways[i][c]: lists i.. onto features c.. (cap 2)
    for c in range(k + 1):
        ways[p][c] = 1
    for i in range(p - 1, -1, -1):
        for c in range(k - 1, -1, -1):
            ways[i][c] = min(2, (ways[i + 1][c + 1] if fits(i, c) else 0) + ways[i][c + 1])
    if ways[0][0] != 1:
        raise t.fail(f"the model has {p} pandas category column(s) and {k} categorical "
                     f"feature(s), and they cannot be matched "
                     f"{'unambiguously' if ways[0][0] else 'at all'}", t.pandas_line)
    out, c = {}, 0
    for i in range(p):
        while not (fits(i, c) and ways[i + 1][c + 1] == 1):
            c += 1
        out[cat_idx[c]] = i
        c += 1
    return out


def _domain_values(cats: list) -> tuple:
    """pandas category values as a Feature domain (ints stay ints; everything else is text)."""
    out: list[Any] = []
    for c in cats:
        if isinstance(c, bool) or c is None:
            out.append(str(c))
        elif isinstance(c, int):
            out.append(c)
        elif isinstance(c, float) and c.is_integer():
            out.append(int(c))
        else:
            out.append(str(c))
    return tuple(out)


# --- one tree ----------------------------------------------------------------------------------


class _Tree:
    """One tree block's arrays, checked: every node has one parent and is reachable from the root."""

    def __init__(self, t: ModelText, block: dict, line: int, n_features: int, scale: float, where: str):
        self.where, self.line = where, line
        get = t.get
        self.n_leaves = numbers(t, get(block, "num_leaves", where), int, f"{where}: num_leaves", 1)[0]
        if self.n_leaves < 1:
            raise t.fail(f"{where}: num_leaves={self.n_leaves}", line)
        if block.get("is_linear", ("0", 0))[0].strip() not in ("0", ""):
            raise t.fail(f"{where}: linear trees (linear_tree=True) are not supported: their "
                         f"leaves are linear models, not constants", block["is_linear"][1])
        lv = numbers(t, get(block, "leaf_value", where), float, f"{where}: leaf_value", self.n_leaves)
        if any(not math.isfinite(v) for v in lv):
            raise t.fail(f"{where}: a leaf value is not finite", block["leaf_value"][1])
        self.leaf_value = [v * scale for v in lv] if scale != 1.0 else lv
        self.leaf_count = None
        if "leaf_count" in block:
            self.leaf_count = numbers(t, block["leaf_count"], float, f"{where}: leaf_count",
                                       self.n_leaves)
        n = self.n = self.n_leaves - 1
        self.feature: list[int] = []
        self.threshold: list[float] = []
        self.dtype: list[int] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.count = None
        self.members: dict[int, list[int]] = {}  # categorical node -> categories sent left
        if n == 0:
            return
        self.feature = numbers(t, get(block, "split_feature", where), int, f"{where}: split_feature", n)
        self.threshold = numbers(t, get(block, "threshold", where), float, f"{where}: threshold", n)
        self.dtype = numbers(t, get(block, "decision_type", where), int, f"{where}: decision_type", n)
        self.left = numbers(t, get(block, "left_child", where), int, f"{where}: left_child", n)
        self.right = numbers(t, get(block, "right_child", where), int, f"{where}: right_child", n)
        if "internal_count" in block:
            self.count = numbers(t, block["internal_count"], float, f"{where}: internal_count", n)
        for i in range(n):
            if not 0 <= self.feature[i] < n_features:
                raise t.fail(f"{where}: node {i} splits on feature {self.feature[i]}, the model has "
                             f"{n_features}", block["split_feature"][1])
            if math.isnan(self.threshold[i]):
                raise t.fail(f"{where}: node {i} has a NaN threshold", block["threshold"][1])
        if any(d & CAT_MASK for d in self.dtype):
            bounds = numbers(t, get(block, "cat_boundaries", where), int, f"{where}: cat_boundaries")
            words = numbers(t, get(block, "cat_threshold", where), int, f"{where}: cat_threshold")
            for i in range(n):
                if not self.dtype[i] & CAT_MASK:
                    continue
                k = int(self.threshold[i])
                if not 0 <= k < len(bounds) - 1 or not 0 <= bounds[k] <= bounds[k + 1] <= len(words):
                    raise t.fail(f"{where}: node {i}: categorical threshold {self.threshold[i]!r} "
                                 f"has no bitset", block["cat_threshold"][1])
                self.members[i] = bitset_members(words[bounds[k]:bounds[k + 1]])
        self._check_shape(t)

    def _check_shape(self, t: ModelText) -> None:
        refs = self.left + self.right
        internal = sorted(r for r in refs if r >= 0)
        leaves = sorted(~r for r in refs if r < 0)
        if internal != list(range(1, self.n)) or leaves != list(range(self.n_leaves)):
            raise t.fail(f"{self.where}: left_child/right_child do not form a tree (each node "
                         f"needs exactly one parent)", self.line)
        reached, stack = 0, [0]
        while stack:  # one parent each: this walk cannot loop, and reaches all iff no cycle
            i = stack.pop()
            reached += 1
            stack.extend(c for c in (self.left[i], self.right[i]) if c >= 0)
        if reached != self.n:
            raise t.fail(f"{self.where}: {self.n - reached} split node(s) unreachable from the root "
                         f"(a cycle)", self.line)


def _build(tree: _Tree, features: list[Feature], cat_codes: dict[int, dict[int, int]], where: str,
           t: ModelText):
    """The IR graph of a checked tree (explicit stack). A zero-island split becomes three IR tests
    with its children copied; a test that the path above already decides is left out, which
    keeps those copies small."""
    b = TreeBuilder()
    if tree.n == 0:
        b.leaf((tree.leaf_value[0],), **({} if tree.leaf_count is None else
                                         {"n_samples": tree.leaf_count[0]}))
        return b.graph
    edge_values: dict[int, tuple[int, ...]] = {}  # nominal IR node -> codes of its branch 0

    def attach(parent: int | None, child: int, branch: int) -> None:
        if parent is None:
            return
        values = None
        if parent in edge_values:
            values = edge_values[parent] if branch == 0 else None
        b.connect(parent, child, branch, values)

    # work items: (spec, IR parent, branch, bounds); spec is a LightGBM child reference (>= 0 a
    # split, < 0 the leaf ~ref) or an IR test ("test", f, op, t, missing, spec0, spec1, extra)
    limit = min(MAX_TREE_NODES, MAX_EXPANSION * (2 * tree.n_leaves - 1) + MIN_EXPANSION_ROOM)
    stack: list[tuple[Any, int | None, int, Bounds]] = [(0, None, 0, {})]
    while stack:
        spec, parent, branch, bounds = stack.pop()
        if b.graph.number_of_nodes() > limit:
            raise t.fail(f"{where}: its zero-as-missing splits expand to more than {limit} IR nodes "
                         f"({2 * tree.n_leaves - 1} in LightGBM; each such split nested under "
                         f"another on a different feature doubles the copies); too large to "
                         f"convert exactly", tree.line)
        if isinstance(spec, tuple):
            _, f, op, th, missing, spec0, spec1, extra = spec
            can, below = narrow(bounds, f, semantics.boundary(op, th, "float64"), missing)
            if can[0] != can[1]:  # decided by the path above: no test needed
                stack.append((spec0 if can[0] else spec1, parent, branch,
                              below[0] if can[0] else below[1]))
                continue
            node = b.numeric(f, th, op=op, precision="float64", missing=missing, **extra)
            attach(parent, node, branch)
            stack.append((spec1, node, 1, below[1]))
            stack.append((spec0, node, 0, below[0]))
            continue
        ref = spec
        if ref < 0:
            leaf = ~ref
            extra = {} if tree.leaf_count is None else {"n_samples": tree.leaf_count[leaf]}
            attach(parent, b.leaf((tree.leaf_value[leaf],), **extra), branch)
            continue
        f = tree.feature[ref]
        extra = {"feature_name": features[f].name}
        if tree.count is not None:
            extra["n_samples"] = tree.count[ref]
        kids = (tree.left[ref], tree.right[ref])
        if tree.dtype[ref] & CAT_MASK:
            if features[f].kind != "nominal":
                raise t.fail(f"{where}: categorical split on {features[f].name!r}, which "
                             f"feature_infos describes as numeric", tree.line)
            codes = cat_codes[f]
            node = b.nominal(f, missing=1, **extra)  # NaN goes right
            edge_values[node] = tuple(sorted(codes[m] for m in tree.members[ref] if m in codes))
            attach(parent, node, branch)
            stack.append((kids[1], node, 1, bounds))
            stack.append((kids[0], node, 0, bounds))
            continue
        if features[f].kind != "numeric":
            raise t.fail(f"{where}: numeric split on categorical feature {features[f].name!r}",
                         tree.line)
        plan, tests, missing = numeric_plan(tree.threshold[ref], missing_type(tree.dtype[ref]),
                                             bool(tree.dtype[ref] & DEFAULT_LEFT_MASK))
        if plan == "one":
            (op, th), = [tests]
            test = ("test", f, op, th, missing, kids[0], kids[1], extra)
        else:  # the middle cut on top; the first and third cut below, each left | right
            (op1, b1), (op2, b2), (op3, b3) = tests
            test = ("test", f, op2, b2, missing,
                    ("test", f, op1, b1, missing, kids[0], kids[1], extra),
                    ("test", f, op3, b3, missing, kids[0], kids[1], extra), extra)
        stack.append((test, parent, branch, bounds))
    return b.graph
