"""`rulekit diff` says what differs (audit items 7c, 11): conclusions named by class and exact in
few digits (`{no: 3/5, yes: 2/5}`, not `[0.6000000000000001, ...]`) in text, CSV and JSON; and
regions where only probabilities differ are called that, not 'regions where they disagree' (exit
code unchanged: the outputs differ)."""

from __future__ import annotations

import json
import re

import pytest

from rulekit.cli import main

HEAD = """rulebase rules
target play: classes {no, yes}
feature outlook: nominal {overcast, rainy, sunny}
feature wind: nominal {strong, weak}
semantics first-hit
precision float64
"""
A = HEAD + f"""default yes {{no: {1 / 7!r}, yes: {6 / 7!r}}}

r1: if outlook = sunny or wind = strong then no [{3 / 13!r}, {10 / 13!r}]
"""
B_SHARES = HEAD + f"""default yes {{no: {2 / 7!r}, yes: {5 / 7!r}}}

r1: if outlook = sunny then no [{0.7!r}, {0.3!r}]
r2: if wind = strong then no [{4 / 11!r}, {7 / 11!r}]
"""
B_LABELS = HEAD + """default yes [0, 1]

r1: if outlook = sunny then yes [0.25, 0.75]
r2: if wind = strong then no [0.75, 0.25]
"""


def run(args, capsys):
    with pytest.raises(SystemExit) as ex:
        main([str(a) for a in args])
    return ex.value.code, capsys.readouterr().out


@pytest.fixture
def files(tmp_path):
    out = {}
    for key, text in (("a", A), ("shares", B_SHARES), ("labels", B_LABELS)):
        out[key] = tmp_path / f"{key}.rules"
        out[key].write_text(text)
    return out


def test_only_probabilities_differ_is_said_so(files, capsys):
    code, out = run(["diff", files["a"], files["shares"]], capsys)
    assert code == 1  # the documented exit code: the outputs differ
    assert "disagree" not in out
    assert re.search(r"^regions where only the probabilities differ: \d+ \(the labels agree on every input\)$",
                     out, re.M), out


def test_label_changes_are_counted_apart_from_probability_changes(files, capsys):
    code, out = run(["diff", files["a"], files["labels"]], capsys)
    assert code == 1
    line = next(ln for ln in out.splitlines() if ln.startswith("regions"))
    assert re.fullmatch(r"regions where the labels differ: \d+(; where only the probabilities differ: \d+)?", line)
    code, out = run(["diff", files["a"], files["labels"], "--format", "json"], capsys)
    j = json.loads(out)
    assert 0 < j["n_regions"] - j["n_proba_regions"] == sum(g["kind"] == "label" for g in j["regions"])


def test_conclusions_are_named_by_class_and_short(files, capsys):
    code, out = run(["diff", files["a"], files["shares"]], capsys)
    assert "then no {no: 3/13, yes: 10/13}" in out and "then no {no: 4/11, yes: 7/11}" in out
    assert "before: yes {no: 1/7, yes: 6/7}" in out and "after:  yes {no: 2/7, yes: 5/7}" in out
    assert not re.search(r"\d\.\d{6}", out), out
    code, csv_out = run(["diff", files["a"], files["shares"], "--format", "csv"], capsys)
    assert "{no: 3/13, yes: 10/13}" in csv_out and "[0." not in csv_out
    code, js = run(["diff", files["a"], files["shares"], "--format", "json"], capsys)
    texts = [r["before"] or r["after"] for r in json.loads(js)["rules"]]
    assert all("{no: " in t for t in texts) and not any("[" in t for t in texts), texts


def test_short_hand_typed_shares_stay_decimals():
    """A hand-typed `{a: 0.3333, b: 0.6667}` is shown as written, not as 3333/10000 (review)."""
    from rulekit import dsl
    from rulekit.diffing.rules import shown_conclusion

    head = "rulebase t\ntarget y: classes {a, b}\nfeature x: numeric\nsemantics first-hit\n"
    rb = dsl.loads(head + "default a {a: 0.3333, b: 0.6667}\n")
    assert shown_conclusion(rb.default, rb.task, rb.classes) == "a {a: 0.3333, b: 0.6667}"
    rb = dsl.loads(head + "default b {a: 13/257, b: 244/257}\n")
    assert shown_conclusion(rb.default, rb.task, rb.classes) == "b {a: 13/257, b: 244/257}"


def test_five_and_six_digit_shares_stay_decimals():
    from rulekit import dsl
    from rulekit.diffing.rules import shown_conclusion

    head = "rulebase t\ntarget y: classes {a, b}\nfeature x: numeric\nsemantics first-hit\n"
    rb = dsl.loads(head + "default a {a: 0.33333, b: 0.66667}\n")
    assert shown_conclusion(rb.default, rb.task, rb.classes) == "a {a: 0.33333, b: 0.66667}"
