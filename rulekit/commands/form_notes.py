"""The form notes of `rulekit rules`: when a scorecard would label clearly more pruning rows right
than the default path's rules, and, on the scorecard path, when rules induced from the data would
(docs/rules.md, sessions 9-10). The learners are imported where a note runs: they need the optional
scikit-learn extra, which `rulekit rules` on a model file does not."""

from __future__ import annotations

from pathlib import Path

from rulekit.shell_words import shell_word


# rows x features x (classes - 1)^2 past which the default path does not also learn a scorecard to
# compare with (a binary card on 40,000 rows x 50 features takes a few seconds)
NOTE_CELLS = 2_000_000


def scorecard_note(rb, train, data, train_path: Path, na_values: str | None = None) -> str | None:
    """When a scorecard learned on the training rows labels clearly more pruning rows right than the
    rules do (a one-sided sign test at about 5% on the rows where exactly one of them is right), the
    line that says so and how to get it; else None. Real data often needs the additive form, planted
    rule concepts the list (docs/rules.md, session 9)."""
    import numpy as np

    from rulekit.rules import scorecard
    from rulekit.rules.engine import matrix
    from rulekit.rules.scorecard_support import clearly_better
    from rulekit.rules.pipeline import split_data
    from rulekit.rules.stats import class_codes

    if rb.task != "classification":
        return None
    Xt, yt = split_data(train, rb)
    if not affordable(len(yt), len(rb.features), len(rb.classes or ())):
        return None
    Xp, yp = split_data(data, rb)
    classes = list(rb.classes)
    yc = class_codes(yt, classes)
    if (yc < 0).any() or np.unique(yc).size < 2:
        return None
    card = scorecard.learn(scorecard.shell_of(rb), matrix(rb, Xt), yc)
    want = class_codes(yp, classes)
    ours = class_codes(np.asarray(rb.predict(Xp), dtype=object), classes) == want
    theirs = class_codes(np.asarray(card.predict(Xp), dtype=object), classes) == want
    if not clearly_better(theirs, ours):
        return None
    card_share, rules_share = apart(theirs.mean(), ours.mean())
    return (f"a scorecard ({len(card.rules)} short rules whose weights add up per class) labels "
            f"{card_share} of the pruning rows right, these rules {rules_share}: "
            f"rulekit rules {shell_word(str(train_path))} --target {shell_word(rb.target)}{na_flag(na_values)} "
            "--scorecard -o FILE")


def affordable(rows: int, features: int, classes: int) -> bool:
    """A form note may learn on these rows: 2 to the scorecard's most classes, and rows x features x
    (classes - 1)^2 within :data:`NOTE_CELLS`."""
    from rulekit.rules.scorecard import MAX_CLASSES

    return 2 <= classes <= MAX_CLASSES and rows * max(1, features) * (classes - 1) ** 2 <= NOTE_CELLS


def apart(a: float, b: float) -> tuple[str, str]:
    """``a`` and ``b`` to 3 decimals, or to as many more (up to 6) as make them differ: the notes say
    one share is clearly larger, and '0.986 ..., scorecards 0.986' read as a tie (audit 3)."""
    for digits in range(3, 7):
        ta, tb = f"{a:.{digits}f}", f"{b:.{digits}f}"
        if ta != tb:
            break
    return ta, tb


def na_flag(na_values: str | None) -> str:
    return f" --na-values {shell_word(na_values)}" if na_values is not None else ""


def rule_list_note(X, y, terms: int, data: Path, target: str, na_values: str | None) -> str | None:
    """The scorecard path's converse of :func:`scorecard_note`: when rules induced from DATA label
    clearly more held-out rows right than scorecards (5 folds, the same sign test), the line that
    says so and how to get them; else None (also when they label no clearly more rows right than the
    majority class: tiny or noisy data). A sum of short rules cannot express classes that depend on
    combinations of tests (docs/rules.md, session 9)."""
    import numpy as np

    from rulekit.rules import scorecard, scorecard_support
    from rulekit.rules.estimator import sorted_classes
    from rulekit.rules.scorecard_support import clearly_better
    from rulekit.rules.induction import RuleInducer
    from rulekit.rules.stats import class_codes

    classes = sorted_classes(y.tolist())
    if not affordable(len(y), X.shape[1], len(classes)):
        return None
    yc = class_codes(list(y), classes)
    part = scorecard.fold_of(yc, 5)
    ours, theirs = np.zeros(len(yc), bool), np.zeros(len(yc), bool)
    for f in range(5):
        tr, va = part != f, part == f
        if not va.any() or np.unique(yc[tr]).size < 2:
            return None
        Xt, yt, Xv = X.iloc[np.flatnonzero(tr)], y.iloc[np.flatnonzero(tr)], X.iloc[np.flatnonzero(va)]
        card = scorecard.ScorecardLearner(max_terms=terms).fit(Xt, yt)
        rules = RuleInducer(random_state=0).fit(Xt, yt)
        ours[va] = class_codes(np.asarray(card.predict(Xv), dtype=object), classes) == yc[va]
        theirs[va] = class_codes(np.asarray(rules.predict(Xv), dtype=object), classes) == yc[va]
    majority = scorecard_support.start_right(yc, len(classes))
    if not (clearly_better(theirs, ours) and clearly_better(theirs, majority)):
        return None
    rules_share, card_share = apart(theirs.mean(), ours.mean())
    return (f"rules induced from the same rows label {rules_share} of held-out rows right (5 folds), "
            f"scorecards {card_share}: the classes seem to depend on combinations of tests, which a sum "
            f"of short rules cannot express; rulekit rules {shell_word(str(data))} --target "
            f"{shell_word(target)}{na_flag(na_values)} --induce -o FILE learns them")
