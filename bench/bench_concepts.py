"""Planted concepts and real data: does a rule learner find the concept? (issue #17)

    python bench/bench_concepts.py [--quick] [--paths default,best,induce,scorecard] [--peers "RIPPER,imodels FIGS"]

Concepts (``rulekit.testing.concepts``): nominal DNF (2-6 terms of 1-4 literals, negated literals,
overlapping terms, 2-6 values per feature, 5-20 irrelevant features, 0-15% label noise, 10-50%
positives), numeric axis-parallel boxes, one oblique boundary; trained on noisy labels, scored on
clean ones. Real data: scikit-learn's breast_cancer, wine, iris and digits (one class against the
rest), 5-fold CV. Columns: clean-label accuracy, concept recovered exactly (every point of the
finite domain agrees), rules, literals (every atomic test counts, ``is missing`` too), seconds.

rulekit paths, run through the CLI's own functions on CSV files:
``default``  ``rulekit fit train.csv --target y`` then ``rulekit rules m.json --prune-data prune.csv --dnf``
             (which uses the training rows ``fit`` recorded in m.json, as ``train`` below);
``pool``     the default path with ``--candidates pool``: candidates also from trees regrown on
             bootstrap samples of the training rows (docs/rules.md, session 7);
``alone``    the default path with ``--train-data none``: the pruning rows alone (the default before
             session 5, docs/rules.md);
``best``     ``fit --prune cost-complexity --prune-data prune.csv`` then the same ``rules``;
``c45``      ``fit --algorithm c45`` (multiway nominal splits) then the same ``rules``;
``induce``   ``rulekit rules train.csv --target y --induce`` (RuleInducer, RIPPER optimisation);
``scorecard`` ``rulekit rules train.csv --target y --scorecard`` (at most 20 one-test rules, as few as
             do best on held-out folds, whose weights add up per class; on real data ``induce``
             and ``scorecard`` learn from the training and pruning rows together, as RIPPER does);
``train``    the default path's ``fit``, then ``rules --prune-data prune.csv --train-data train.csv --dnf``
             (each class's rules chosen on the training and pruning rows together).
Peers in the same run, seeded: wittgenstein RIPPER and IREP (given the training and pruning rows
together: they split off their own; on real data so are the imodels peers, which use no pruning
split), scikit-learn's tree with ccp_alpha chosen on the prune split,
imodels FIGS, RuleFit, SkopeRules, GreedyRuleList and OneR (one-hot nominal columns; a peer not
installed is left out). Each peer runs in a forked child with ``--peer-cap`` seconds per data set;
one that fails or hangs is a row with the reason (column ``error`` with ``--detail``, ``failed`` in
the summary). Literals count every comparison; RuleFit's linear terms one each, its rules and
linear terms with a nonzero coefficient are its rules; a rule list's entries are one test each.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import sys
import tempfile
import time
import warnings
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from rulekit.testing import concepts as C  # noqa: E402

NOISE_GOAL = 0.10


# --- counting ----------------------------------------------------------------------------------------


def atoms(cond) -> int:
    """Atomic tests in a condition: every comparison, set test, linear test and ``is missing``."""
    from rulekit.rules.base import And, Not, Or

    total, stack = 0, [cond]
    while stack:
        node = stack.pop()
        if isinstance(node, (And, Or)):
            stack.extend(node.items)
        elif isinstance(node, Not):
            stack.append(node.item if hasattr(node, "item") else node.items[0])
        else:
            total += 1
    return total


def rb_size(rb) -> tuple[int, int, set[str]]:
    from rulekit.rules.base import Or

    terms = sum(len(r.condition.items) if isinstance(r.condition, Or) else 1 for r in rb.rules)
    used: set[str] = set()
    stack = [r.condition for r in rb.rules]
    while stack:
        node = stack.pop()
        if hasattr(node, "items"):
            stack.extend(node.items)
        elif hasattr(node, "item"):
            stack.append(node.item)
        if getattr(node, "feature", None) is not None:
            used.add(node.feature)
        for _, name in getattr(node, "terms", ()) or ():
            used.add(name)
    return terms, sum(atoms(r.condition) for r in rb.rules), used


# --- rulekit through its CLI functions ---------------------------------------------------------------------


def _csv(path: Path, X: pd.DataFrame, y) -> Path:
    df = X.copy()
    df["y"] = np.asarray(y)
    df.to_csv(path, index=False)
    return path


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())


def rulekit_path(path: str, tmp: Path, train: Path, prune: Path):
    """The rule base a CLI path writes (loaded back from its rules file)."""
    import rulekit
    from rulekit.commands import fit, rules

    model, out = tmp / f"{path}.json", tmp / f"{path}.rules"
    with _quiet(), contextlib.redirect_stderr(io.StringIO()):
        if path == "induce":
            rules.run(model=train, target="y", induce=True, prune_data=None, dnf=False, order="first-hit",
                      output=out, quiet=True)
            return rulekit.load(out)
        if path == "scorecard":
            rules.run(model=train, target="y", scorecard=True, prune_data=None, dnf=False, order="first-hit",
                      output=out, quiet=True)
            return rulekit.load(out)
        kw = dict(data=train, target="y", algorithm="cart", task=None, criterion=None, max_depth=None,
                  min_samples_leaf=1, prune="none", prune_data=None, ensemble=None, n_trees=100, seed=0,
                  output=model, quiet=True)
        if path == "best":
            kw.update(prune="cost-complexity", prune_data=prune)
        elif path == "c45":
            kw.update(algorithm="c45")
        fit.run(**kw)
        rules.run(model=model, prune_data=prune, dnf=True, order="first-hit", output=out, quiet=True,
                  train_data=train if path == "train" else Path("none") if path == "alone" else None,
                  candidates="pool" if path == "pool" else None)
    return rulekit.load(out)


def _encoded(X: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """One-hot nominal columns (categories of ``ref``) for learners that take numbers only."""
    out = {}
    for c in ref.columns:
        if not pd.api.types.is_numeric_dtype(ref[c]):
            for v in sorted(set(ref[c])):
                out[f"{c}=={v}"] = (X[c] == v).to_numpy(np.float64)
        else:
            out[c] = X[c].to_numpy(np.float64)
    return pd.DataFrame(out)


def _base(name: str) -> str:
    return name.split("==")[0]


# --- peers -----------------------------------------------------------------------------------------------


def ripper(Xt, yt, Xp, yp, pos=1, learner="RIPPER"):
    import wittgenstein as lw

    clf = getattr(lw, learner)(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(Xt, np.asarray(yt), pos_class=pos)
    rules = clf.ruleset_.rules
    used = {c.feature for r in rules for c in r.conds}
    lits = sum(len(r.conds) for r in rules)

    def predict(X):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.where(np.asarray(clf.predict(X), bool), pos, 1 - pos) if pos in (0, 1) else None
    return predict, len(rules), lits, used


def tree_ccp(Xt, yt, Xp, yp, pos=None):
    """scikit-learn's tree, ccp_alpha chosen on the prune split (leaves = rules, depth = literals)."""
    from sklearn.tree import DecisionTreeClassifier

    Et, Ep = _encoded(Xt, Xt), _encoded(Xp, Xt)
    path = DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(Et, yt)
    alphas = np.unique(path.ccp_alphas)
    if alphas.size > 60:
        alphas = alphas[np.linspace(0, alphas.size - 1, 60).astype(int)]
    best = None
    for a in alphas:
        m = DecisionTreeClassifier(random_state=0, ccp_alpha=float(a)).fit(Et, yt)
        s = (m.predict(Ep) == np.asarray(yp)).mean()
        if best is None or s >= best[0]:
            best = (s, m)
    m = best[1]
    t = m.tree_
    leaves = int((t.children_left < 0).sum())
    depth_sum, stack = 0, [(0, 0)]
    while stack:
        node, d = stack.pop()
        if t.children_left[node] < 0:
            depth_sum += d
        else:
            stack += [(t.children_left[node], d + 1), (t.children_right[node], d + 1)]
    used = {_base(str(Et.columns[f])) for f in t.feature if f >= 0}
    return (lambda X: m.predict(_encoded(X, Xt))), leaves, depth_sum, used


def figs(Xt, yt, Xp, yp, pos=None):
    from imodels import FIGSClassifier

    Et = _encoded(Xt, Xt)
    m = FIGSClassifier(max_rules=12, random_state=0).fit(Et, np.asarray(yt))  # seeded: it moved 0.4 pt between runs
    splits = sum(1 for t in m.trees_ for _ in _nodes(t) if _.left is not None)
    used = {_base(str(Et.columns[n.feature])) for t in m.trees_ for n in _nodes(t) if n.left is not None}
    return (lambda X: m.predict(_encoded(X, Xt))), len(m.trees_), splits, used


def _nodes(root):
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        stack += [c for c in (n.left, n.right) if c is not None]


def irep(Xt, yt, Xp, yp, pos=1):
    """wittgenstein IREP (RIPPER without its optimisation phase), counted as RIPPER."""
    return ripper(Xt, yt, Xp, yp, pos, learner="IREP")


def _named(Xt):
    """One-hot training columns renamed x0, x1, ... (imodels parses rule strings, and
    ``a3==v1`` is not a name there) and the data set's feature behind each new name."""
    Et = _encoded(Xt, Xt)
    names = [f"x{j}" for j in range(Et.shape[1])]
    return Et.to_numpy(np.float64), names, {n: _base(str(c)) for n, c in zip(names, Et.columns)}


def _atoms_of(rule: str) -> list[str]:
    """The comparisons of an imodels rule string (``x3 <= 0.5 and x7 > 1.25``)."""
    return [a.strip() for a in str(rule).split(" and ")]


def rulefit(Xt, yt, Xp, yp, pos=None):
    """imodels RuleFit: an L1 logistic model over tree-path rules and linear terms. Rules = the
    terms with a nonzero coefficient; literals = the comparisons of each rule term + 1 for each
    linear term (a weighted feature is one test of the data)."""
    from imodels import RuleFitClassifier

    Et, names, base = _named(Xt)
    m = RuleFitClassifier(random_state=0).fit(Et, np.asarray(yt), feature_names=names)
    terms = m._get_rules()
    terms = terms[terms.coef != 0]
    rule_atoms = [_atoms_of(r) for r in terms[terms.type == "rule"].rule]
    linear = list(terms[terms.type == "linear"].rule)
    used = {base[a.split()[0]] for atoms_ in rule_atoms for a in atoms_} | {base[str(f)] for f in linear}
    lits = sum(len(a) for a in rule_atoms) + len(linear)
    return (lambda X: m.predict(_encoded(X, Xt).to_numpy(np.float64))), len(terms), lits, used


def skope(Xt, yt, Xp, yp, pos=1):
    """imodels SkopeRules: rules for class ``pos`` chosen by precision and recall on out-of-bag
    rows. Predicted ``pos`` when any rule holds (skope-rules' own reading of a rule set);
    imodels' predict asks for more than half the rules' weight, 0.37 on breast_cancer (every row
    the other class)."""
    from imodels import SkopeRulesClassifier

    Et, names, base = _named(Xt)
    m = SkopeRulesClassifier(random_state=0).fit(Et, np.asarray(yt) == pos, feature_names=names)
    rules = [str(r) for r in m.rules_]
    used = {base[a.split()[0]] for r in rules for a in _atoms_of(r)}
    lits = sum(len(_atoms_of(r)) for r in rules)

    def predict(X):
        frame = pd.DataFrame(_encoded(X, Xt).to_numpy(np.float64), columns=names)
        hit = np.zeros(len(frame), bool)
        for r in rules:
            hit |= frame.eval(r).to_numpy(bool)
        return np.where(hit, pos, 1 - pos)
    return predict, len(rules), lits, used


def _rule_list(cls):
    """imodels' rule lists (GreedyRuleList, OneR): each rule of the list is one threshold test,
    so rules = literals = the list's length (the final else is the default, not counted)."""
    def peer(Xt, yt, Xp, yp, pos=None):
        import imodels

        Et, names, base = _named(Xt)
        m = getattr(imodels, cls)().fit(Et, np.asarray(yt), feature_names=names)
        tests = [r for r in m.rules_ if "col" in r]  # the last entry is the else
        used = {base[str(r["col"])] for r in tests}
        return (lambda X: m.predict(_encoded(X, Xt).to_numpy(np.float64))), len(tests), len(tests), used
    return peer


PEERS = {"RIPPER": ripper, "sklearn tree (ccp tuned)": tree_ccp, "imodels FIGS": figs,
         "IREP": irep, "imodels RuleFit": rulefit, "imodels SkopeRules": skope,
         "imodels GreedyRuleList": _rule_list("GreedyRuleListClassifier"),
         "imodels OneR": _rule_list("OneRClassifier")}
# on real data, learners that use no pruning split get the training and pruning rows together
# (RIPPER and IREP split off their own; RuleFit, FIGS, SkopeRules and the rule lists have no use for
# one; until session 9 these five learned from the 75% training split alone, 0.3-0.7 pt lower)
WHOLE_ROWS = ("RIPPER", "IREP", "imodels RuleFit", "imodels FIGS", "imodels SkopeRules",
              "imodels GreedyRuleList", "imodels OneR")
# rulekit paths that learn from data directly: they get the training and pruning rows together too
WHOLE_PATHS = ("induce", "scorecard")
PEER_CAP = 120.0  # seconds per peer and data set (fit + scoring) before it is skipped


def capped(name: str, args: tuple, score, cap: float):
    """``score(*PEERS[name](*args))`` in a forked child, given up after ``cap`` seconds: a peer
    that hangs on one data set is a row with its reason, not a stalled run. Returns
    (result, None) or (None, reason); ImportError's reason starts with 'not installed'."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)

    def child():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                send.send((score(*PEERS[name](*args)), None))
        except ImportError as err:
            send.send((None, f"not installed: {err}"))
        except Exception as err:  # noqa: BLE001 - the reason goes in the row
            send.send((None, f"{type(err).__name__}: {err}"[:200]))

    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    send.close()
    got = None
    try:
        got = recv.recv() if recv.poll(cap) else None
    except EOFError:  # the child died before it answered
        pass
    if got is None and proc.is_alive():
        proc.kill()
    proc.join()
    return got if got is not None else (None, f"skipped: no answer within {cap:.0f} s" if proc.exitcode
                                        in (-9, None) else f"died (exit {proc.exitcode})")


# --- runs ---------------------------------------------------------------------------------------------


def concept_cases(quick: bool) -> list[tuple[str, C.Concept]]:
    n_nom = 6 if quick else 24
    cases = [("nominal", C.nominal_dnf(s)) for s in range(n_nom)]
    cases += [("boxes", C.numeric_boxes(s)) for s in range(2 if quick else 4)]
    cases += [("oblique", C.oblique(0))]
    return cases


def run_concepts(quick: bool, paths: list[str], peers: list[str], samples: int = 1,
                 first_sample: int = 0, cap: float = PEER_CAP) -> list[dict]:
    """Every concept on ``samples`` independent draws of its data (sample 0 is seeded by the
    concept's name alone, as in earlier runs; sample s by the name and s), starting at
    ``first_sample`` (fresh draws for a check nobody tuned on)."""
    sizes = (1500, 500, 2000) if quick else (3000, 1000, 4000)
    out = []
    for (family, concept), sample in itertools.product(concept_cases(quick),
                                                       range(first_sample, first_sample + samples)):
        key = zlib.crc32(concept.name.encode())  # str hash() differs per process
        rng = np.random.default_rng(key if sample == 0 else [key, sample])
        Xt, yt = concept.sample(sizes[0], rng)
        Xp, yp = concept.sample(sizes[1], rng)
        Xs, ys = concept.sample(sizes[2], rng, noisy=False)
        with tempfile.TemporaryDirectory() as d:
            tmp = Path(d)
            train, prune = _csv(tmp / "train.csv", Xt, yt), _csv(tmp / "prune.csv", Xp, yp)
            Xs_read = pd.read_csv(_csv(tmp / "test.csv", Xs, ys)).drop(columns="y")
            for p in paths:
                t0 = time.perf_counter()
                try:
                    rb = rulekit_path(p, tmp, train, prune)
                except Exception as err:  # noqa: BLE001 - a failed path is a row, not a crash
                    out.append(_row(family, concept, f"rulekit {p}", None, None, None, None, None, str(err),
                                    sample=sample))
                    continue
                dt = time.perf_counter() - t0
                terms, lits, used = rb_size(rb)
                acc = float((np.asarray(rb.predict(Xs_read)).astype(np.int64) == ys).mean())
                rec = C.recovered(concept, lambda X: rb.predict(X), used)
                out.append(_row(family, concept, f"rulekit {p}", acc, rec, terms, lits, dt, sample=sample))
        for name in peers:
            t0 = time.perf_counter()

            def score(predict, n_rules, lits, used):
                return (float((np.asarray(predict(Xs)) == ys).mean()), bool(C.recovered(concept, predict, used)),
                        n_rules, lits, time.perf_counter() - t0)
            got, why = capped(name, (Xt, yt, Xp, yp), score, cap)
            if why and why.startswith("not installed"):
                continue
            if got is None:
                out.append(_row(family, concept, name, None, None, None, None, None, why, sample=sample))
                continue
            acc, rec, n_rules, lits, dt = got
            out.append(_row(family, concept, name, acc, rec, n_rules, lits, dt, sample=sample))
    return out


def _row(family, concept, learner, acc, rec, rules, lits, dt, error=None, sample=0):
    return {"family": family, "concept": concept.name, "sample": sample, "noise": concept.noise,
            "planted": concept.literals,
            "learner": learner, "acc": acc, "exact": rec, "rules": rules, "literals": lits, "time": dt,
            "error": error}


def real_cases():
    from sklearn import datasets

    out = []
    for name in ("breast_cancer", "wine", "iris", "digits"):
        d = getattr(datasets, f"load_{name}")()
        X = pd.DataFrame(d.data, columns=[f"f{j}" for j in range(d.data.shape[1])])
        if name == "breast_cancer":
            out.append((name, X, d.target))
        else:
            # one-vs-rest: the class the learners find hardest to tell apart is not chosen; class 0
            out.append((f"{name} (class 1 vs rest)", X, (d.target == 1).astype(int)))
    return out


def run_real(quick: bool, paths: list[str], peers: list[str], cv_seed: int = 0,
             cap: float = PEER_CAP) -> list[dict]:
    from sklearn.model_selection import StratifiedKFold, train_test_split

    out = []
    for name, X, y in real_cases():
        folds = list(StratifiedKFold(5, shuffle=True, random_state=cv_seed).split(X, y))
        if quick:
            folds = folds[:2]
        acc: dict[str, list] = {}
        for tr, te in folds:
            a, b = train_test_split(tr, test_size=0.25, random_state=0, stratify=y[tr])
            Xt, yt, Xp, yp = X.iloc[a], y[a], X.iloc[b], y[b]
            with tempfile.TemporaryDirectory() as d:
                tmp = Path(d)
                train, prune = _csv(tmp / "train.csv", Xt, yt), _csv(tmp / "prune.csv", Xp, yp)
                full = _csv(tmp / "full.csv", X.iloc[tr], y[tr])
                for p in paths:
                    t0 = time.perf_counter()
                    try:
                        rb = rulekit_path(p, tmp, full if p in WHOLE_PATHS else train, prune)
                    except Exception as err:  # noqa: BLE001
                        acc.setdefault(f"rulekit {p}", []).append((np.nan, 0, 0, 0.0, str(err)))
                        continue
                    dt = time.perf_counter() - t0
                    terms, lits, _ = rb_size(rb)
                    s = float((np.asarray(rb.predict(X.iloc[te])).astype(np.int64) == y[te]).mean())
                    acc.setdefault(f"rulekit {p}", []).append((s, terms, lits, dt, None))
            for peer in peers:
                t0 = time.perf_counter()

                def score(predict, n, lits, used):
                    s = float((np.asarray(predict(X.iloc[te])) == y[te]).mean())
                    return s, n, lits, time.perf_counter() - t0
                args = (X.iloc[tr], y[tr], None, None) if peer in WHOLE_ROWS else (Xt, yt, Xp, yp)
                got, why = capped(peer, args, score, cap)
                if why and why.startswith("not installed"):
                    continue
                acc.setdefault(peer, []).append((*got, None) if got else (np.nan, 0, 0, 0.0, why))
        for learner, vals in acc.items():
            arr = np.array([v[:4] for v in vals], float)
            errs = [v[4] for v in vals if v[4]]
            out.append({"family": "real", "concept": name, "sample": None, "noise": None, "planted": None, "learner": learner,
                        "acc": float(np.nanmean(arr[:, 0])), "exact": None, "rules": float(arr[:, 1].mean()),
                        "literals": float(arr[:, 2].mean()), "time": float(arr[:, 3].mean()),
                        "error": errs[0] if errs else None})
    return out


def summary(rows: list[dict]) -> list[dict]:
    """Per learner and family: mean accuracy, exact share, literals / planted, rules, time."""
    out = []
    learners = list(dict.fromkeys(r["learner"] for r in rows))
    for fam in ("nominal", "boxes", "oblique", "real"):
        for lr in learners:
            sel = [r for r in rows if r["family"] == fam and r["learner"] == lr]
            if fam == "nominal":
                sel = [r for r in sel if r["noise"] <= NOISE_GOAL]
            if not sel:
                continue
            ok = [r for r in sel if r["acc"] is not None and not (isinstance(r["acc"], float) and np.isnan(r["acc"]))]
            ratio = [r["literals"] / r["planted"] for r in ok if r["planted"]]
            out.append({"family": fam if fam != "nominal" else f"nominal (noise <= {NOISE_GOAL:.0%})",
                        "learner": lr, "cases": len(sel),
                        "acc": float(np.mean([r["acc"] for r in ok])) if ok else None,
                        "exact": (f"{sum(bool(r['exact']) for r in ok)}/{len(sel)}" if fam != "real" else "-"),
                        "exact per sample": _per_sample(sel) if fam != "real" else "-",
                        "rules": float(np.mean([r["rules"] for r in ok])) if ok else None,
                        "literals": float(np.mean([r["literals"] for r in ok])) if ok else None,
                        "lit/planted": float(np.median(ratio)) if ratio else None,
                        "time": float(np.mean([r["time"] for r in ok])) if ok else None,
                        "failed": len(sel) - len(ok)})
    return out


def _per_sample(sel: list[dict]) -> str:
    samples = sorted({r["sample"] for r in sel})
    return " ".join(f"{sum(bool(r['exact']) for r in sel if r['sample'] == s)}"
                    f"/{sum(1 for r in sel if r['sample'] == s)}" for s in samples)


def table(rows: list[dict]) -> str:
    if not rows:
        return ""
    keys = list(rows[0])
    fmt = lambda v: "-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))  # noqa: E731
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(fmt(r[k]) for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def run(quick: bool) -> list[dict]:
    """bench/run.py's entry: one row per learner and family, goals on rulekit's default path."""
    paths = ["default", "best", "induce", "scorecard"]
    peers = list(PEERS)
    rows = run_concepts(quick, paths, peers) + run_real(quick, paths, peers)
    out = []
    summ = summary(rows)
    for s in summ:
        if not s["learner"].startswith("rulekit"):
            continue
        peer = "RIPPER"
        pv = next((p for p in summ if p["family"] == s["family"] and p["learner"] == peer), None)
        goal, ok = "", None
        if s["learner"] == "rulekit default" and s["family"].startswith("nominal"):
            n_ok, n = map(int, s["exact"].split("/"))
            goal = ">= 80% exact, <= 1.3x planted literals, acc >= 0.97"
            ok = n_ok >= 0.8 * n and (s["lit/planted"] or 9) <= 1.3 and (s["acc"] or 0) >= 0.97
        if s["family"] == "real" and s["learner"] in ("rulekit default", "rulekit induce", "rulekit scorecard"):
            peers_real = [p for p in summ if p["family"] == "real" and not p["learner"].startswith("rulekit")]
            best = max((p["acc"] for p in peers_real if p["acc"] is not None), default=None)
            rip = pv["literals"] if pv else None
            goal = ">= best peer - 0.5 pt, fewer literals than RIPPER"
            ok = None if best is None else (s["acc"] >= best - 0.005 and (rip is None or s["literals"] < rip))
        out.append({"benchmark": f"concepts: {s['family']}, {s['learner']}", "metric": "accuracy / exact",
                    "unit": "", "rulekit": s["acc"], "peer": peer, "peer_value": pv["acc"] if pv else None,
                    "goal": goal + (f" (exact {s['exact']}, {s['literals']:.1f} literals)" if s["literals"] else ""),
                    "ok": ok})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--paths", default="default,best,induce,scorecard")
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--samples", type=int, default=1,
                    help="independent data draws per planted concept (the summary pools them)")
    ap.add_argument("--first-sample", type=int, default=0, help="the first data draw (see --samples)")
    ap.add_argument("--cv-seed", type=int, default=0, help="the real data's 5-fold split")
    ap.add_argument("--peer-cap", type=float, default=PEER_CAP,
                    help="seconds a peer may take on one data set before it is skipped (a row with the reason)")
    ap.add_argument("--no-real", action="store_true")
    ap.add_argument("--no-concepts", action="store_true")
    ap.add_argument("--detail", action="store_true", help="also print one row per concept and learner")
    args = ap.parse_args(argv)
    paths = [p for p in args.paths.split(",") if p]
    peers = [p for p in args.peers.split(",") if p]
    rows = []
    if not args.no_concepts:
        rows += run_concepts(args.quick, paths, peers, args.samples, args.first_sample, args.peer_cap)
    if not args.no_real:
        rows += run_real(args.quick, paths, peers, args.cv_seed, args.peer_cap)
    if args.detail:
        print(table(rows))
        print()
    print(table(summary(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
