"""`rulekit rules`: extract, simplify and (with data) prune a rule base from a model; write the DSL."""

from __future__ import annotations

import sys
from pathlib import Path

from rulekit import progress
from rulekit.commands import form_notes
from rulekit.commands.model_rows import model_rows, unpredicted_absent
from rulekit.commands.recorded_na import declared_note, declared_values, na_values_for
from rulekit.commands.source import describe, load_source
from rulekit.errors import RulekitError
from rulekit.shell_words import shell_word
from rulekit.fileio import check_distinct, check_output_path, is_stdout, report_written, write_atomic
from rulekit.table import located, read_csv
from rulekit.unseen_rows import note_unseen
from rulekit.ir.model import Model
from rulekit.dsl.basis import basis_comment, scorecard_comment, with_basis
from rulekit.dsl.missing import with_missing_comment
from rulekit.ir.modelfile_training import KEY, file_sha256, find_training_rows
from rulekit.util import count


# C4.5's 0.25 corrects error counts measured on the rows a tree was grown on, which flatter it; on
# rows held out from fit (the default path's pruning data) the count is unbiased and 0.5, the median
# of the binomial bound, is enough. Measured in docs/rules.md: real data 0.927 -> 0.930, planted
# concepts 51/54 exact either way.
HELD_OUT_CF = 0.5

# `--train-data none`: do not use the training rows that `fit` recorded in the model file
TRAIN_DATA_NONE = "none"


def run(*, model: Path, prune_data: Path | None, dnf: bool, order: str, output: Path,
        prune: str | None = None, quiet: bool = False, na_values: str | None = None,
        select: str = "mdl", induce: bool = False, target: str | None = None, exact: bool = False,
        cf: float | None = None, min_rules: int = 0, train_data: Path | None = None,
        candidates: str | None = None, scorecard: bool = False, terms: int | None = None,
        keep: tuple[str, ...] = ()) -> int:
    """Without ``--prune-data`` the rules predict exactly what the model predicts; with it, rules are
    pruned and ordered by class with a default. By default (no ``prune``) a single tree is first
    pruned by reduced error on that data, then each path rule is generalised by C4.5rules'
    pessimistic error and each class's rules are chosen by MDL (``select="none"``: all kept);
    ``prune="reduced-error"`` prunes the rules on that data instead. ``induce``: MODEL is a data
    file and the rules are learned from it directly (sequential covering, ``target`` its class).
    Every step's rules, conditions and pruning-data accuracy go to stderr unless ``quiet``. The file is
    the readable text (:mod:`rulekit.dsl.readable`) unless ``exact`` (every digit of every number).
    ``cf``: C4.5's confidence factor for the pessimistic generalisation (lower prunes more): by
    default :data:`HELD_OUT_CF` on the default path, C4.5's 0.25 with ``prune="pessimistic"``;
    ``min_rules``: when the MDL choice leaves fewer rules, choose without it and keep at least that
    many. ``train_data``: the CSV the tree was grown on; each class's rules are then chosen on it and
    the pruning data together (C4.5rules' own data; a small pruning set alone cannot). Without it,
    the training CSV that ``fit`` recorded in the model file is used when it is there with the
    same sha256 (one line on stderr says so, or why not); ``Path("none")`` opts out.
    ``candidates``: ``tree`` (the default): the model's own rules; ``pool`` (needs training rows)
    also offers the choice the rules of trees regrown on bootstrap samples of them that their
    out-of-bag and pruning rows support. Not the default: on fresh splits it did worse
    (docs/rules.md, session 7). ``scorecard``: MODEL is a data file and a scorecard is learned from
    it (:mod:`rulekit.rules.scorecard`: at most ``terms`` tests in rules of one or two, 18 by default, whose
    weights add up per class; ``weighted-sum`` semantics)."""
    from rulekit import dsl
    from rulekit.rules import to_rules
    from rulekit.rules.boxes import forget_boxes, no_gc, rules_literals
    from rulekit.ir.data import to_matrix
    from rulekit.rules.steps import Steps

    if select not in ("mdl", "none"):
        raise RulekitError(f"--select must be mdl or none (got {select!r})")
    if candidates not in (None, "tree", "pool"):
        raise RulekitError(f"--candidates must be tree or pool (got {candidates!r})")
    opted_out = train_data is not None and str(train_data) == TRAIN_DATA_NONE
    if opted_out:
        train_data = None
    if train_data is not None and (induce or prune_data is None):
        raise RulekitError("--train-data helps choose pruned rules: it needs --prune-data (not --induce)")
    if candidates is not None and (induce or prune_data is None):
        raise RulekitError("--candidates chooses among pruned rules: it needs --prune-data (not --induce)")
    if (cf is not None or min_rules) and (induce or prune_data is None):
        what = "--cf" if cf is not None else "--min-rules"
        raise RulekitError(f"{what} applies to pruning a tree's rules: it needs --prune-data (not --induce)")
    if cf is not None and prune == "reduced-error":
        raise RulekitError("--cf is the pessimistic generalisation's confidence; --prune reduced-error has none")
    if terms is not None and not scorecard:
        raise RulekitError("--terms sizes a scorecard: it needs --scorecard")
    if keep and not (induce or scorecard):
        raise RulekitError("--keep names a column of DATA to learn from: it needs --induce or --scorecard")
    if scorecard:
        if induce:
            raise RulekitError("--scorecard and --induce are two ways to learn from data: choose one")
        if train_data is not None or candidates is not None or cf is not None or min_rules:
            raise RulekitError("--scorecard learns from DATA alone: drop --train-data, --candidates, "
                               "--cf and --min-rules")
        return _scorecard(data=model, target=target, output=output, quiet=quiet, dnf=dnf, order=order, keep=keep,
                          na_values=na_values, prune_data=prune_data, exact=exact, terms=terms)
    if induce:
        return _induce(data=model, target=target, output=output, quiet=quiet, dnf=dnf, order=order, keep=keep,
                       na_values=na_values,
                       select=select, prune_data=prune_data, exact=exact)
    if target is not None:
        raise RulekitError("--target names the class column of DATA with --induce or --scorecard; a model knows its target")
    check_output_path(output)
    check_distinct(output, model=model, prune_data=prune_data, train_data=train_data)
    obj = load_source(model, csv_expected=(
        "a model file (JSON): learn rules from the data with --induce --target COL (or "
        f"--scorecard --target COL), or fit a tree first: rulekit fit {shell_word(str(model))} --target COL "
        "-o model.json"))
    if not isinstance(obj, Model):
        raise RulekitError(f"{model}: 'rulekit rules' reads a model file; this is a rules file")
    data = None
    trained_on = None if prune_data is None else same_as_training(obj, prune_data)
    na, na_note = na_values_for(obj, na_values)  # fit's NA texts unless given
    declared = declared_values(obj, na, na_values)  # NA texts the domains declare as values
    if prune_data is not None:
        with progress.phase(f"reading {prune_data}"):
            data = read_csv(prune_data, na, declared)
        na_note = na_note or declared_note(data, declared)
    if data is not None and obj.task != "classification":
        raise RulekitError(regressor_advice(obj, prune_data))
    if prune is not None and data is None:
        raise RulekitError(f"--prune {prune} needs --prune-data")
    if data is not None:
        data = model_rows(data, obj, quiet)  # features and target; rows without a target left out
        note_unseen(data, obj)
    train = None
    train_na, recorded, said = na, False, None
    if train_data is None and data is not None and not opted_out:
        train_data, train_na, recorded, said = _recorded_training(obj, model, output, quiet)
    if train_data is not None:
        with progress.phase(f"reading {train_data}"):
            train = read_csv(train_data, train_na, declared)
        # fit left out the rows without a target, silently here: so do its rules
        train = model_rows(train, obj, quiet or recorded,
                           target=obj.source[KEY].get("target") if recorded else None)
        with located(train, obj.features):  # a bad cell named in this file, not in the pooled rows
            to_matrix(train, obj.features)
    if candidates == "pool" and train is None:
        raise RulekitError("--candidates pool regrows the tree on its training rows: give --train-data "
                           "(none are recorded in the model file, or --train-data none)")
    method = (prune or "pessimistic") if data is not None else None
    steps = Steps()
    cf_used = cf if cf is not None else HELD_OUT_CF if prune is None else 0.25
    doing = "extracting" + (f" and pruning ({method})" if method else "") + " rules"
    with progress.phase(f"{doing} from {describe(obj)}"):
        with located(data or {}, obj.features):
            rb = to_rules(obj, prune=method, prune_data=data, dnf=dnf, order=order,
                          mdl=select == "mdl" if method else None,
                          tree_prune=prune is None and data is not None, steps=steps,
                          cf=cf_used, min_rules=min_rules, train_data=train,
                          candidates=candidates or "tree")
    if data is None:
        rb = with_missing_comment(rb)
    if data is not None and rb.task == "classification":
        rb = with_basis(rb, basis_comment(n_prune=len(next(iter(data.values()))), n_train=(
            None if train is None else len(next(iter(train.values())))), dnf=dnf, vote=order == "vote"))
    absent = None if data is None else unpredicted_absent(rb, data, obj, prune_data)
    del obj  # the model and the boxes behind the rules are not needed for the text: free them first
    forget_boxes()
    with progress.phase(f"writing {output} ({describe(rb)})"), no_gc():
        text = dsl.dumps(rb, exact=exact, share_rows=None if exact else training_share_rows(rb)
                         if data is None else counted_rows(rb, data, None if dnf else train))
        write_atomic(output, text)
    if na_note is not None and prune_data is not None:
        print(f"rulekit: note: {na_note}", file=sys.stderr)
    if said is not None:
        print(f"rulekit: {said}", file=sys.stderr)
    if not quiet:
        for line in steps.lines():
            print(f"rulekit: {line}", file=sys.stderr)
    if data is not None:
        _warn_collapse(rb, steps, len(next(iter(data.values()))), select, prune, cf_used, min_rules, absent)
        if absent is not None and rb.rules:  # with no rule left, the one collapse line says it
            print(f"rulekit: warning: {absent}", file=sys.stderr)
        if not quiet and train is not None:
            note = form_notes.scorecard_note(rb, train, data, train_data, train_na)
            if note:
                print(f"rulekit: note: {note}", file=sys.stderr)
        first = steps.items[0] if steps.items else None
        if not quiet and prune is None and first is not None and first.rules > 1 and first.accuracy == 1.0:
            note = _perfect_fit_note(trained_on)
            if note:
                print(f"rulekit: note: {note}", file=sys.stderr)
    if not quiet and not is_stdout(output):
        n_lit = rules_literals(rb.rules)
        report_written(output, f"{count(len(rb.rules), 'rule')}, {count(n_lit, 'condition')}")
    return 0


def training_share_rows(rb) -> tuple | None:
    """Without pruning rows: per rule the training rows of its leaf (``train_n``), then the
    default's, all of the tree's training rows (its shares are the root's), so the shares print
    over real counts (182/600, not 91/300: audit 3); None for ensembles and rules without counts."""
    ns = [r.stats.get("train_n") for r in rb.rules]
    if rb.combiner is not None or not ns or any(n is None for n in ns):
        return None
    return tuple(int(n) for n in ns) + (int(sum(ns)),)


def same_as_training(obj: Model, data: Path) -> bool | None:
    """Whether ``data`` is the file ``fit`` recorded in the model (same size and sha256); None when
    the model records none (imported, older) or ``data`` cannot be read as a file."""
    rec = obj.source.get(KEY) if isinstance(obj.source, dict) else None
    if not isinstance(rec, dict) or not rec.get("sha256"):
        return None
    try:
        if Path(data).stat().st_size != rec.get("bytes"):
            return False
        return file_sha256(data) == rec["sha256"]
    except OSError:
        return None


def _perfect_fit_note(trained_on: bool | None) -> str | None:
    """What to say when the tree labels every pruning row right: a perfect fit on rows held out
    from fit is no finding, one on its own training file is (``trained_on``: :func:`same_as_training`)."""
    if trained_on is False:
        return None
    if trained_on:
        return ("the pruning data is the file the tree was trained on (the sha256 fit recorded), so the tree "
                "fits it perfectly and rules are generalised by pessimistic error alone; rows held out from "
                "fit prune better")
    return ("the tree fits the pruning data perfectly, so rules are generalised by pessimistic error alone; "
            "if these rows trained it, rows held out from fit prune better")


def counted_rows(rb, data, train=None) -> tuple | None:
    """Per rule, then the default: how many rows of ``data`` (plus ``train``'s) it decides, first hit
    first, where its class shares are exactly those rows' class counts (else None), so that the
    text can print the counts themselves (:func:`rulekit.dsl.printer.shares`). ``data``, ``train``:
    tables holding the target column, or ``(X, y)``."""
    import numpy as np

    from rulekit.rules import engine
    from rulekit.rules.pipeline import split_data
    from rulekit.rules.stats import class_codes

    if rb.task != "classification" or rb.semantics != "first-hit" or rb.combiner is not None:
        return None
    classes = list(engine.outcomes(rb).classes)
    n = len(rb.rules) + 1
    counts = np.zeros((n, len(classes)), np.int64)
    for part in (data, train):
        if part is None:
            continue
        X, y = split_data(part, rb)
        hit = engine.first_hit(rb, engine.matrix(rb, X))
        yc = class_codes(y, classes)
        ok = yc >= 0
        np.add.at(counts, (np.where(hit[ok] < 0, n - 1, hit[ok]), yc[ok]), 1)
    out = []
    for j, c in enumerate([r.conclusion for r in rb.rules] + [rb.default]):
        k, total = counts[j], int(counts[j].sum())
        exact = c is not None and c.distribution is not None and total > 0 and \
            tuple(c.distribution) == tuple(float(v) for v in k / total)
        out.append(total if exact else None)
    return tuple(out)


def _recorded_training(obj: Model, model: Path, output,
                       quiet: bool) -> tuple[Path | None, str | None, bool, str | None]:
    """(the training CSV ``fit`` recorded in the model file, its NA texts, True, the line saying
    so -- None under -q) when it is there unchanged; else (None, None, False, the line saying why
    not, when there is a record: also under -q, since the rules differ from what the same command
    gave while the file was there). The line is printed once the rules are written, so that an
    error stays the only line."""
    found, rec, line = find_training_rows(obj.source, model)
    if found is None:
        return None, None, False, None if line is None else f"note: {line}"
    check_distinct(output, train_data=found)
    return found, rec.get("na_values"), True, None if quiet else line


def _warn_collapse(rb, steps, n_rows: int, select: str, prune: str | None, cf: float | None = None,
                   min_rules: int = 0, absent: str | None = None) -> None:
    """One line on stderr (even with -q: the result is probably not what was asked for) when
    pruning left no rule: every case takes the default class. It names the step that removed the
    last rules and the pruning accuracy before and after it; the options it suggests choose among
    rules, so only when the choice removed them, and none already given. ``absent``: the classes
    no pruning row holds (:func:`unpredicted_absent`), said at its end rather than on a line of its own."""
    if rb.rules:
        return
    label = rb.default.label if rb.default is not None else None
    before = next((s for s in steps.items if s.rules), None)
    last = max((i for i, s in enumerate(steps.items) if s.rules), default=None)
    gone = steps.items[last + 1] if last is not None and last + 1 < len(steps.items) else None
    if before is None:
        why = "the tree has a single leaf"
    else:
        why = (f"pruning removed all {before.rules} rules: on the {n_rows} pruning rows no rule did better "
               f"than predicting {label!r} for everything")
        if gone is not None and gone.accuracy is not None and steps.items[last].accuracy is not None:
            why += (f" (the last {steps.items[last].rules} went in '{gone.name}', pruning accuracy "
                    f"{steps.items[last].accuracy:.4f} -> {gone.accuracy:.4f})")
    choosing = gone is not None and gone.name.startswith("classes ordered") and min_rules < 1
    hints = [h for h in ("--select none" if select == "mdl" and choosing else "",
                         "--min-rules 1" if select == "mdl" and choosing else "",
                         "--cf 0.5" if prune != "reduced-error" and cf is not None and cf < 0.5 else "",
                         "--prune reduced-error" if prune != "reduced-error" else "",
                         "more pruning rows") if h]
    print(f"rulekit: warning: the rule base is only the default class {label!r}: {why}; "
          f"try {', '.join(hints)}{'' if absent is None else '; ' + absent}", file=sys.stderr)


def regressor_advice(obj: Model, prune_data: Path) -> str:
    """Why --prune-data is refused for a regression tree, and the command that prunes it instead
    (audit 3: the line said what was wrong and not what works)."""
    rec = obj.source.get(KEY) if isinstance(obj.source, dict) else None
    rec = rec if isinstance(rec, dict) else {}
    data = shell_word(rec["path"]) if isinstance(rec.get("path"), str) else "DATA"
    target = shell_word(obj.target) if isinstance(obj.target, str) and obj.target else "COL"
    return ("--prune-data prunes classification rules; this model is a regressor: prune the tree "
            f"instead (rulekit fit {data} --target {target} --prune cost-complexity --prune-data "
            f"{shell_word(str(prune_data))} -o model.json), then run rules on it without --prune-data")


def _induce(*, data: Path, target: str | None, output: Path, quiet: bool, dnf: bool, order: str,
            na_values: str | None = None, keep: tuple[str, ...] = (),
            select: str, prune_data: Path | None, exact: bool = False) -> int:
    """``rules DATA --target y --induce``: sequential covering on DATA (RuleInducer)."""
    from rulekit.commands.fit import _split
    from rulekit.rules import data_cuts, induce_hint, to_rules
    from rulekit.rules.agree import agreeing_labels
    from rulekit.rules.induction import RuleInducer, as_vote
    from rulekit.rules.stats import annotate

    if target is None:
        raise RulekitError("--induce learns from a data file: name its class column with --target")
    if prune_data is not None:
        raise RulekitError("--induce holds out its own pruning cases: drop --prune-data")
    check_output_path(output)
    check_distinct(output, data=data)
    X, y, _ = _split(data, target, "classification", quiet, na_values=na_values, keep_columns=keep)
    with progress.phase(f"learning rules from {data}"):
        rb = data_cuts.shorten(RuleInducer(mdl=select == "mdl", random_state=0).fit(X, y).rule_base_, X)
        # shares and statistics on DATA's rows (DNF: the merged rules' class counts, not a mix of shares)
        rb = to_rules(rb, dnf=True, prune_data=(X, y)) if dnf else annotate(rb, X, y)
        # a rule learned on the growing rows may decide mostly another class among all of DATA's rows
        rb, relabelled = agreeing_labels(rb)
        rb = annotate(rb, X, y) if relabelled else rb  # 'N correct' of the new label
        rb = with_basis(rb, basis_comment(n_train=len(y), learned=str(data), vote=order == "vote"))
        if order == "vote":
            rb = as_vote(rb)
    label = rb.default.label if rb.default is not None else None
    if relabelled and not quiet:
        print(f"rulekit: note: {count(relabelled, 'rule')} now conclude{'s' if relabelled == 1 else ''} the class "
              f"{'its' if relabelled == 1 else 'their'} shares of {data}'s rows favour (learned on part of them, "
              f"{'it decides' if relabelled == 1 else 'they decide'} mostly another class there)", file=sys.stderr)
    # an empty result only: the advice fits once more, without the MDL choice, to see if that helps
    advice = "" if rb.rules else induce_hint.empty_advice(X, y, select)
    return _write_learned(rb, output, exact, quiet, f"no rule beat predicting {label!r} for every case{advice}",
                          share_rows=None if exact else counted_rows(rb, (X, y)))


def _scorecard(*, data: Path, target: str | None, output: Path, quiet: bool, dnf: bool, order: str,
               na_values: str | None, prune_data: Path | None, exact: bool, terms: int | None,
               keep: tuple[str, ...] = ()) -> int:
    """``rules DATA --target y --scorecard``: an additive rule base of short rules (ScorecardLearner)."""
    from rulekit.commands.fit import _split
    from rulekit.rules import scorecard_support
    from rulekit.rules.boxes import rules_literals
    from rulekit.rules.scorecard import MAX_TERMS, ScorecardLearner

    if target is None:
        raise RulekitError("--scorecard learns from a data file: name its class column with --target")
    if prune_data is not None:
        raise RulekitError("--scorecard learns from DATA alone: drop --prune-data (put its rows in DATA)")
    if dnf or order != "first-hit":
        raise RulekitError("a scorecard adds up the weights of every rule that holds: drop --dnf and --order")
    if terms is not None and terms < 1:
        raise RulekitError(f"--terms must be at least 1 (got {terms})")
    check_output_path(output)
    check_distinct(output, data=data)
    X, y, task = _split(data, target, None, quiet, na_values=na_values, keep_columns=keep)
    if task != "classification":
        raise RulekitError(f"{data}: a scorecard learns classes, and {target!r} holds numbers "
                           f"({len(set(y.tolist()))} distinct values): 'rulekit fit' learns a regression tree")
    if len(set(y.tolist())) < 2:
        rows = "the only row has" if len(y) == 1 else f"all {len(y)} rows have"
        raise RulekitError(f"{data}: {rows} class {y.tolist()[0]!r}: a scorecard needs two classes or more")
    with progress.phase(f"learning a scorecard from {data}"):
        learner = ScorecardLearner(max_terms=terms if terms is not None else MAX_TERMS).fit(X, y)
        rb = learner.rule_base_
        rb = with_basis(rb, scorecard_comment(len(y), str(data), split=len(rb.classes or ()) > 2))
    label = rb.default.label if rb.default is not None else None
    acc = sum(a == b for a, b in zip(learner.predict(X).tolist(), list(y))) / len(y)
    if not quiet:
        with progress.phase("comparing the card with rules induced on 5 held-out folds (-q skips this)"):
            note = form_notes.rule_list_note(X, y, learner.max_terms, data, target, na_values)
        if note:
            print(f"rulekit: note: {note}", file=sys.stderr)
    return _write_learned(rb, output, exact, quiet, f"no rule: every case is {label!r}",
                          f"scorecard: {count(len(rb.rules), 'rule')}, {count(rules_literals(rb.rules), 'test')} (at most "
                          f"{learner.max_terms}), training accuracy {acc:.4f}",
                          warning=scorecard_support.warning(learner, X, y))


def _write_learned(rb, output: Path, exact: bool, quiet: bool, empty: str, said: str | None = None,
                   warning: str | None = None, share_rows: tuple | None = None) -> int:
    """Write a rule base learned from data (--induce, --scorecard): the line ``warning`` if given,
    else ``empty`` when it has no rule (either also under -q), then unless ``quiet`` the line
    ``said`` and what was written."""
    from rulekit import dsl
    from rulekit.rules.boxes import rules_literals

    with progress.phase(f"writing {output} ({describe(rb)})"):
        write_atomic(output, dsl.dumps(rb, exact=exact, share_rows=share_rows))
    if warning is not None or not rb.rules:
        print(f"rulekit: warning: {warning or empty}", file=sys.stderr)
    if not quiet:
        if said is not None:
            print(f"rulekit: {said}", file=sys.stderr)
        if not is_stdout(output):
            n_lit = rules_literals(rb.rules)
            report_written(output, f"{count(len(rb.rules), 'rule')}, {count(n_lit, 'condition')}")
    return 0
