"""``to_rules``: a model (or rule base) through extraction and the rule passes, as the ``rules`` command runs them.

    [tree reduced-error] -> extract -> simplify -> [prune] -> [select] -> [dnf] -> [order] -> [statistics]

Without pruning or DNF merging the result predicts exactly what the model predicts, probabilities
included. Pruning and DNF merging trade that for readability (C4.5rules, seed 002): they keep the
labels of the cases they were tuned on as well as they can and choose a default class.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from rulekit.errors import RulekitError
from rulekit.ir.model import Model
from rulekit.rules import engine
from rulekit.rules import prune as _prune
from rulekit.rules.agree import agreeing_labels
from rulekit.rules.base import RuleBase
from rulekit.rules.boxes import LiteralSchema, TooComplex, condition_boxes
from rulekit.rules.candidates import KINDS as CANDIDATE_KINDS
from rulekit.rules.candidates import bootstrap_models, codes, pool, regrowable, supported
from rulekit.rules.dnf import dnf as _dnf
from rulekit.rules.extract import extract
from rulekit.rules.noise_note import may_fit_noise
from rulekit.rules.rep_choice import most_accurate
from rulekit.rules.simplify import simplify as _simplify
from rulekit.rules.stats import annotate
from rulekit.rules.steps import Steps
from rulekit.rules.tree_prune import reduced_error as _tree_rep
from rulekit.rules.vote import vote_weights
from rulekit.util import count


def to_rules(model: Model | RuleBase, *, simplify: bool = True,
             prune: Literal["pessimistic", "reduced-error"] | None = None, prune_data: Any = None,
             dnf: bool = False, order: Literal["first-hit", "vote"] = "first-hit", mdl: bool | None = None,
             cf: float = 0.25, positive: Any = None, stats: bool = True, name: str | None = None,
             tree_prune: bool = False, steps: Steps | None = None, min_rules: int = 0,
             train_data: Any = None, candidates: Literal["tree", "pool"] = "tree") -> RuleBase:
    """A rule base from ``model``.

    ``simplify``    exact condition simplification (one interval per feature, merged sets, ...);
                    ``False`` gives the raw root-to-leaf paths (``predict --explain``).
    ``prune``       ``"pessimistic"`` (C4.5rules' upper confidence bound, works on training data) or
                    ``"reduced-error"`` (accuracy on a held-out pruning set); needs ``prune_data``.
    ``prune_data``  ``(X, y)``, or a DataFrame / mapping of columns holding the model's target column.
    ``dnf``         one rule per class (a disjunction of conjunctions) plus a default class.
    ``order``       ``"first-hit"`` decision list, or ``"vote"``: an unordered set voting by confidence.
    ``mdl``         choose each class's rules by minimum description length (C4.5rules); by default
                    on when pruning, off otherwise.
    ``positive``    keep only the rules of this class; every other case takes the default.
    ``stats``       with data, store coverage/errors/confidence/... in each rule's ``stats``.
    ``tree_prune``  first prune the tree by reduced error on ``prune_data`` (never more errors there),
                    so that C4.5rules starts from paths the data supports (the ``rules`` command's
                    default with pruning data); skipped for trees without class counts on splits.
    ``steps``       a :class:`~rulekit.rules.steps.Steps` that records what each pass did.
    ``min_rules``   when pruning and the MDL choice leave fewer rules, the rules are chosen without
                    MDL and deleting rules stops at this many (before DNF merging).
    ``train_data``  the rows the tree was grown on (same forms as ``prune_data``): with pruning, each
                    class's rules are chosen (MDL, order, default, deletion) on these rows and the
                    pruning rows together, as C4.5rules chooses them on its training rows; tree
                    pruning and generalisation stay on the pruning rows, and a rule that no pruning
                    row meets is not a candidate (:func:`met_rules`). A few dozen pruning rows
                    cannot tell a condition the tree found from none (docs/rules.md, session 4).
    ``candidates``  ``"tree"``: the model's rules only; ``"pool"`` (with ``train_data``) adds the rules
                    of trees regrown on bootstrap samples of the training rows that their held-out
                    rows support (:mod:`rulekit.rules.candidates`; a tree no rulekit learner grew:
                    its own alone). Not the default: measured in docs/rules.md, session 7.
    """
    if mdl is None:
        mdl = prune is not None
    if not 0.0 < cf < 1.0:
        raise RulekitError(f"the confidence factor must be between 0 and 1 (got {cf})")
    if min_rules < 0:
        raise RulekitError(f"the minimum number of rules cannot be negative (got {min_rules})")
    if prune not in (None, "pessimistic", "reduced-error"):
        raise RulekitError(f"unknown pruning method {prune!r} (use pessimistic or reduced-error)")
    if order not in ("first-hit", "vote"):
        raise RulekitError(f"unknown rule order {order!r} (use first-hit or vote)")
    if train_data is not None and not prune:
        raise RulekitError("training rows (train_data / --train-data) choose pruned rules: they need pruning data")
    if candidates not in CANDIDATE_KINDS:
        raise RulekitError(f"unknown candidates {candidates!r} (use tree or pool)")
    if candidates == "pool" and train_data is None:
        raise RulekitError("pooled candidates are grown on the training rows: they need train_data / --train-data")
    if candidates == "pool" and (prune != "pessimistic" or not tree_prune):
        raise RulekitError("pooled candidates are made as the default path makes the tree's rules: they need "
                           "tree pruning and pessimistic generalisation (no --prune)")
    grown = model
    X = y = None
    if prune_data is not None and tree_prune and isinstance(model, Model) and _prunable(model):

        X, y = split_data(prune_data, model)
        if steps is not None:
            steps.model("tree", model, X, y)
        model, _ = _tree_rep(model, X, y)
        if steps is not None:
            steps.model("tree reduced-error pruning", model, X, y)
    if isinstance(model, RuleBase):
        rb = model
    else:
        try:
            rb = extract(model, simplify=simplify, name=name)
        except RulekitError as err:
            if simplify or "unsimplified" not in str(err):
                raise
            rb = extract(model, simplify=True, name=name)
            rb = rb.model_copy(update={"comments": rb.comments + (
                "paths simplified: the raw paths of this tree are too long to list",)})
    if simplify:

        rb = _simplify(rb)
    if prune_data is not None and X is None:
        X, y = split_data(prune_data, rb)
    reshaping = bool(prune or dnf or positive is not None or mdl)
    if reshaping and rb.combiner is not None:
        raise RulekitError(f"pruning and DNF merging need a single tree; this model is an ensemble: prune "
                           f"one tree's rules (rulekit fit without --ensemble), or leave out --prune-data and "
                           f"--dnf to list every tree's rules ({len(rb.rules):,} rules)")
    if reshaping and rb.task != "classification":
        raise RulekitError("pruning and DNF merging need a classification tree; this one is a regression")
    if prune:
        if X is None:
            raise RulekitError(f"{prune} pruning needs data (prune_data / --prune-data)")
        if steps is not None:
            steps.rules("rules from the tree", rb, X, y)
        if prune == "pessimistic":
            rb = _prune.pessimistic(rb, X, y, cf=cf)
        else:
            rb = _prune.reduced_error(rb, X, y)
        if steps is not None:
            steps.rules(f"{prune} pruning of each rule", rb, X, y)
        train = None if train_data is None else split_data(train_data, rb)
        pooled = False
        if train is not None:
            before = len(rb.rules)
            rb = met_rules(rb, X)
            if steps is not None and len(rb.rules) < before:
                steps.note(f"{before - len(rb.rules)} of {before} rules left out of the choice: no pruning "
                           "row meets them")
            if candidates == "pool" and isinstance(grown, Model) and regrowable(grown):
                pooled = True
                rb, said = pooled_candidates(grown, rb, X, y, train, cf=cf, simplify=simplify)
                if steps is not None:
                    steps.note(said)
            elif candidates == "pool" and steps is not None:
                steps.note("candidates: the tree's rules alone (--candidates pool regrows trees of rulekit's "
                           "own learners; this model was not grown by one)")
        pruned = rb
        Xs, ys = (X, y) if train is None else _pooled((X, y), train)
        # on the default path (tree pruning, then pessimistic generalisation) the rows the tree grew on
        # count pessimistically in the MDL choice (docs/rules.md, session 7b); not with pooled
        # candidates (the two together lost 1-2 pt on real data, session 7), nor on the paths 7b did
        # not measure
        default_path = tree_prune and prune == "pessimistic"
        grown_from = len(y) if train is not None and not pooled and default_path else None
        rb = _prune.organize(rb, Xs, ys, mdl=mdl, positive=positive, min_rules=min_rules,
                             grown_from=grown_from)
        if mdl and len(rb.rules) < min_rules:
            rb = _prune.organize(pruned, Xs, ys, mdl=False, positive=positive, min_rules=min_rules,
                                 grown_from=grown_from)
            if steps is not None:
                steps.note(f"MDL left fewer than {count(min_rules, 'rule')}: chosen without it (--min-rules), "
                           f"{count(len(rb.rules), 'rule')} kept" + ("" if rb.rules else
                                                                     " (no rule was left to choose from)"))
        name = ("classes ordered, default chosen" + (", MDL subset per class" if mdl else "")
                + (" (on the training and pruning rows)" if train_data is not None else ""))
        if prune == "reduced-error" and positive is None:
            rb, name, said = most_accurate(rb, name, pruned, X, y, min_rules=min_rules)
            if said is not None and steps is not None:
                steps.note(said)
        rb = _prune.drop_unseen_missing(rb, X, y)
        if steps is not None:
            steps.rules(name, rb, X, y)
    if dnf or (positive is not None and not prune):

        rb = _dnf(rb, X, y, mdl=bool(mdl and not prune), positive=positive, merge=dnf)
        if steps is not None and X is not None:
            steps.rules("one rule per class (DNF)" if dnf else f"rules of class {positive!r}", rb, X, y)
    rb = drop_catch_all(rb)
    if reshaping and X is not None and positive is None:
        rb, relabelled = agreeing_labels(rb)
        if relabelled and steps is not None:
            steps.rules(f"labels from the shares ({count(relabelled, 'conclusion')} chosen on other rows now "
                        + ("concludes the most frequent class of the rows its shares count)" if relabelled == 1
                           else "conclude the most frequent class of the rows their shares count)"), rb, X, y)
        said = may_fit_noise(rb, X, y) if prune and steps is not None else None
        if said is not None:
            steps.note(said)
    if order == "vote" and rb.semantics != "vote":
        rb = rb.model_copy(update={"semantics": "vote"})
    if order == "vote" and X is not None:
        # weights from the rules' evidence, not raw confidence (every error-free rule 1): rules that
        # overlap after pruning or merging must not tie; extracted paths are disjoint, cannot tie
        rb = vote_weights(rb, X, y, resolve_ties=reshaping)
    if stats and X is not None:

        rb = annotate(rb, X, y)
    return rb


def pooled_candidates(grown: Model, rb: RuleBase, X: Any, y: np.ndarray, train: tuple[Any, np.ndarray], *,
                      cf: float, simplify: bool = True) -> tuple[RuleBase, str]:
    """``rb`` (the model's generalised rules) with the rules of trees regrown on bootstrap samples
    of the training rows, each tree pruned and its rules generalised on the pruning rows ``(X, y)``
    as the model's tree was, kept when the rows that did not grow them support them
    (:func:`rulekit.rules.candidates.supported`); and the line that says what was added."""

    Xt, yt = train
    yc_t, yc_p = codes(rb, yt), codes(rb, y)
    Mt, Mp = engine.matrix(rb, Xt), engine.matrix(rb, X)
    share = np.bincount(yc_t[yc_t >= 0], minlength=len(engine.outcomes(rb).classes)) / max(1, int((yc_t >= 0).sum()))
    others, offered = [], 0
    models = bootstrap_models(grown, Xt, yt)
    for m, oob in models:
        m, _ = _tree_rep(m, X, y)
        o = extract(m, simplify=simplify)
        o = met_rules(_prune.pessimistic(_simplify(o) if simplify else o, X, y, cf=cf), X)
        offered += len(o.rules)
        others.append(supported(o, [(Mt[oob], yc_t[oob]), (Mp, yc_p)], share))
    out = pool(rb, others)
    added = len(out.rules) - len(rb.rules)
    return out, (f"candidates: {added} of {offered} rules from {len(models)} trees regrown on bootstrap samples "
                 f"of the training rows join the tree's {len(rb.rules)} (those their out-of-bag and pruning "
                 f"rows support; --candidates tree: the tree's alone)")


def met_rules(rb: RuleBase, X: Any) -> RuleBase:
    """The rules that at least one row of ``X`` (the pruning rows) meets. With training rows in the
    rule choice, a rule no held-out row reaches would be chosen on the rows that grew it alone (a
    5-condition rule right on 6 of its 7 noisy training rows); on the pruning rows alone such a rule
    changes no prediction and rule deletion removes it. Measured in docs/rules.md (session 5)."""
    if not rb.rules:
        return rb
    ev = engine.Evaluator(LiteralSchema(rb), engine.matrix(rb, X))
    kept = tuple(r for r in rb.rules if ev.true(r.condition).any())
    return rb if len(kept) == len(rb.rules) else rb.model_copy(update={"rules": kept})


def _pooled(a: tuple[Any, np.ndarray], b: tuple[Any, np.ndarray]) -> tuple[Any, np.ndarray]:
    """The rows of ``a`` then those of ``b``: DataFrames, mappings of columns or 2-d arrays."""
    (Xa, ya), (Xb, yb) = a, b
    if hasattr(Xa, "iloc") and hasattr(Xb, "iloc"):
        import pandas as pd  # noqa: PLC0415 - only for DataFrames, which bring pandas anyway

        X = pd.concat([Xa, Xb[list(Xa.columns)]], ignore_index=True)
    elif isinstance(Xa, np.ndarray) and isinstance(Xb, np.ndarray):
        X = np.vstack([Xa, Xb])
    else:
        cols = list(Xa.columns) if hasattr(Xa, "columns") else list(Xa)
        missing = [c for c in cols if c not in Xb]
        if missing:
            raise RulekitError(f"the training data has no column {missing[0]!r}")
        X = {c: list(Xa[c]) + list(Xb[c]) for c in cols}
    y = np.concatenate([np.asarray(ya, dtype=object), np.asarray(yb, dtype=object)])
    return X, y


def _prunable(model: Model) -> bool:
    """A single classification tree whose splits carry their training class distribution."""
    if model.task != "classification" or len(model.trees) != 1:
        return False
    K = len(model.classes or ())
    return all(len(a.get("value") or ()) == K for _, a in model.graph.nodes(data=True))


def drop_catch_all(rb: RuleBase) -> RuleBase:
    """A first-hit rule whose condition always holds becomes the default; rules after it go (they
    could never fire): no ``if true`` rule in front of an unreachable default."""
    if rb.semantics != "first-hit" or rb.combiner is not None:
        return rb

    schema = LiteralSchema(rb)
    for i, r in enumerate(rb.rules):
        try:
            boxes = condition_boxes(r.condition, schema, limit=64)
        except TooComplex:
            continue
        if any(not b.items for b in boxes):
            return rb.model_copy(update={"rules": rb.rules[:i], "default": r.conclusion})
    return rb


def split_data(data: Any, rb: RuleBase) -> tuple[Any, np.ndarray]:
    """``(X, y)`` from ``(X, y)`` or from a table holding the target column."""
    if isinstance(data, tuple) and len(data) == 2:
        X, y = data
        return X, _labels(y, rb)
    target = rb.target
    cols = list(data.columns) if hasattr(data, "columns") else list(data) if isinstance(data, dict) else None
    if cols is None:
        raise RulekitError("prune data must be (X, y) or a table with the target column")
    if target not in cols:
        feats = {f.name for f in rb.features}
        rest = [c for c in cols if c not in feats]
        if len(rest) != 1:
            raise RulekitError(f"prune data has no target column {target!r}")
        target = rest[0]
    y = data[target]
    y = y.to_numpy() if hasattr(y, "to_numpy") else np.asarray(y, dtype=object)
    return data, _labels(y, rb)


def _labels(y: Any, rb: RuleBase) -> np.ndarray:
    """Targets as class labels of the rule base (CSV text '1' -> 1, 'yes' -> 'yes'), or floats."""
    y = np.asarray(y)
    if rb.task == "regression":
        try:
            return y.astype(np.float64)
        except (TypeError, ValueError):
            raise RulekitError("the target column of a regression must hold numbers") from None
    classes = list(rb.classes or ())
    if not classes:
        return y
    lookup: dict = {}
    for c in classes:
        lookup.setdefault((type(c), c), c)
        lookup.setdefault(("str", str(c)), c)
    out = np.empty(len(y), object)
    for i, v in enumerate(y.tolist()):
        hit = lookup.get((type(v), v))
        if hit is None:
            hit = lookup.get(("str", str(v)))
        if hit is None and isinstance(v, str):
            try:
                fv = float(v)
                hit = lookup.get((int, int(fv))) if fv.is_integer() else lookup.get((float, fv))
            except ValueError:
                hit = None
        out[i] = hit if hit is not None else v
    kinds = {type(c) for c in classes}
    if len(kinds) == 1 and all(type(v) in kinds for v in out.tolist()):
        return np.asarray(out.tolist())
    return out
