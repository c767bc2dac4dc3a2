"""A fitted scikit-learn ``Pipeline`` (preprocessing, then a tree model) -> one rulekit Model on raw columns.

The preprocessing (``ColumnTransformer``, ``SimpleImputer``, the four scalers, ``OneHotEncoder``,
``OrdinalEncoder``, ``FunctionTransformer()``, passthrough, drop, nested ``Pipeline``s) is walked
with an explicit stack into column states (:mod:`pipeline_steps`); the final estimator is imported
as usual, and its trees are folded onto the raw columns (:mod:`folding`): features keep the
input's names and units, one-hot and ordinal columns become nominal splits on the original column,
imputation becomes missing-value routing. Whatever cannot be folded exactly is refused, naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulekit.errors import RulekitError
from rulekit.importers.folding import fold_trees
from rulekit.importers.pipeline_columns import Coded, Column, Num
from rulekit.importers.pipeline_steps import apply_step
from rulekit.ir.model import Feature, Model

Instruction = tuple


def is_pipeline(est: Any) -> bool:
    return type(est).__name__ == "Pipeline" and hasattr(est, "steps")


def _kind(t: Any) -> str:
    return type(t).__name__ if type(t).__module__.startswith("sklearn.") else ""


def program(steps: list[tuple[str, Any]]) -> list[Instruction]:
    """Nested Pipelines and ColumnTransformers as a flat list of instructions (explicit stack)."""
    out: list[Instruction] = []
    todo: list[tuple] = [("expand", name, t) for name, t in reversed(steps)]
    while todo:
        item = todo.pop()
        if item[0] == "emit":
            out.append(item[1])
            continue
        _, name, t = item
        kind = _kind(t)
        if kind == "Pipeline":
            todo.extend(("expand", f"{name}.{n}", s) for n, s in reversed(t.steps))
        elif kind == "ColumnTransformer":
            if not hasattr(t, "transformers_"):
                raise RulekitError(f"pipeline step {name!r}: ColumnTransformer is not fitted")
            seq: list[tuple] = [("emit", ("begin", name, t))]
            for sub, tr, _ in t.transformers_:
                where = f"{name}.{sub}"
                seq += [("emit", ("select", t._transformer_to_input_indices[sub])),
                        ("expand", where, tr),
                        ("emit", ("place", t.output_indices_[sub], where))]
            seq.append(("emit", ("end", name, t)))
            todo.extend(reversed(seq))
        else:
            out.append(("apply", name, t))
    return out


def run(instructions: list[Instruction], cols: list[Column], names: list[str]) -> list[Column]:
    """Column states after the instructions, starting from ``cols`` (one per raw input column)."""
    values: list[tuple[list[Column], bool]] = [(cols, False)]
    frames: list[tuple[list[Column], bool, list]] = []
    for ins in instructions:
        op = ins[0]
        if op == "apply":
            cur, sparse = values.pop()
            values.append(apply_step(ins[2], ins[1], cur, sparse, names))
        elif op == "begin":
            cur, sparse = values.pop()
            ct = ins[2]
            if ct.n_features_in_ != len(cur):
                raise RulekitError(f"pipeline step {ins[1]!r}: reads {ct.n_features_in_} columns, "
                                   f"the pipeline gives it {len(cur)}")
            width = max((s.stop for s in ct.output_indices_.values()), default=0)
            frames.append((cur, sparse, [None] * width))
        elif op == "select":
            cur, sparse, _ = frames[-1]
            values.append(([cur[i] for i in ins[1]], sparse))
        elif op == "place":
            got, _ = values.pop()
            where = ins[1]
            if len(got) != where.stop - where.start:
                raise RulekitError(f"pipeline step {ins[2]!r}: gives {len(got)} columns, the "
                                   f"ColumnTransformer placed {where.stop - where.start}")
            frames[-1][2][where] = got
        else:  # end
            _, _, out = frames.pop()
            if any(c is None for c in out):
                raise RulekitError(f"pipeline step {ins[1]!r}: output columns not accounted for")
            values.append((out, bool(getattr(ins[2], "sparse_output_", False))))
    (cols, _), = values
    return cols


def _raw_names(pipe: Any) -> list[str]:
    names = getattr(pipe, "feature_names_in_", None)
    if names is not None:
        return [str(s) for s in names]
    n = getattr(pipe, "n_features_in_", None)
    if n is None:
        raise RulekitError("the Pipeline is not fitted")
    return [f"x{i}" for i in range(int(n))]


def _features(cols: list[Column], names: list[str],
              source: list[Feature]) -> tuple[list[Feature], dict[int, int]]:
    """One feature per raw input column, in the pipeline's order. A column the preprocessing drops
    stays an input (the pipeline wants it too) that no split reads: nominal with no categories,
    so any value, text or number, is accepted. A raw column passed untouched to a categorical
    feature of the model (``source``: the model's features) keeps that feature's categories."""
    kinds: dict[int, Any] = {}
    for c, f in zip(cols, source):
        if isinstance(c, Num) and c.missing_only:
            continue  # fits a numeric and a nominal column alike
        prev = kinds.get(c.col)
        if isinstance(c, Coded):
            this = ("nominal", c.domain, None)
        elif f.kind == "nominal":
            if c.fns:
                raise RulekitError(f"input column {names[c.col]!r}: a categorical feature of the "
                                   f"model after {c.fns[-1].step!r} cannot be folded")
            this = ("nominal", f.domain, f.match)
        else:
            this = ("numeric", None, None)
        if prev is not None and prev != this:
            raise RulekitError(f"input column {names[c.col]!r} is used both as "
                               f"{prev[0]} and as {this[0]} (or with two category lists); "
                               f"one rulekit feature cannot be both")
        kinds[c.col] = this
    features: list[Feature] = []
    feature_of: dict[int, int] = {}
    for i, name in enumerate(names):
        kind = kinds.get(i)
        feature_of[i] = len(features)
        if kind is None:
            features.append(Feature(name=name, kind="nominal", domain=()))
        elif kind[0] == "nominal":
            domain = kind[1]
            ints = all(isinstance(v, int) for v in domain)
            match = kind[2] if kind[2] is not None else ("exact" if ints and domain else None)
            features.append(Feature(name=name, kind="nominal", domain=domain, match=match))
        else:
            features.append(Feature(name=name))
    return features, feature_of


def from_pipeline(pipe: Any, import_estimator: Callable[[Any], Model]) -> Model:
    """Fold ``pipe``'s preprocessing into the model ``import_estimator`` makes of its last step."""
    steps = list(pipe.steps)
    name, final = steps[-1]
    if final is None or isinstance(final, str):
        raise RulekitError(f"the Pipeline's last step {name!r} is {final!r}, not a tree model")
    names = _raw_names(pipe)
    cols = run(program(steps[:-1]), [Num(i) for i in range(len(names))], names)
    model = import_estimator(final)
    if model.n_features != len(cols):
        raise RulekitError(f"pipeline step {name!r} reads {model.n_features} columns, the "
                           f"preprocessing gives {len(cols)}")
    features, feature_of = _features(cols, names, model.features)
    cols = [c.as_coded(features[feature_of[c.col]].domain)
            if isinstance(c, Num) and c.missing_only and features[feature_of[c.col]].kind == "nominal"
            else c for c in cols]
    trees = fold_trees(model.trees, cols, feature_of, [f.domain for f in model.features])
    source = dict(model.source)
    source["pipeline"] = [f"{n}: {type(t).__name__ if not isinstance(t, str) else t}"
                          for n, t in steps[:-1]]
    return Model(trees, features, task=model.task, classes=model.classes, combiner=model.combiner,
                 target=model.target, source=source)
