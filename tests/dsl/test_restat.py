"""`rulekit stats`: statistics recomputed on data, every other byte of the rules text kept."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

from rulekit import dsl
from rulekit.commands.stats import refresh
from rulekit.dsl.restat import replace_stats, rule_stat_spans
from rulekit.testing.strategies import rule_bases

from tests.marks import lane_examples

GOLF = "rulekit/data/playgolf.csv"

EDITED = """# my review notes
rulebase rules
target play: classes {no, yes}
feature outlook: nominal {overcast, rainy, sunny}
feature temperature: nominal {cool, hot, mild}
feature humidity: nominal {high, normal}
feature wind: nominal {strong, weak}
semantics first-hit
precision float64
default yes [0, 1]

# windy rain
r1: if (outlook = rainy or outlook is missing) and wind = strong
    then no [1, 0] with n = 2, e = 0, confidence = 1  # keep
r2: if outlook = sunny and humidity = high
    then no [0.6, 0.4]


group 3
r3:   if   temperature = hot then   no with
   n = 99,  # old count
   e = 7
# footer
"""


def _without_stats(text: str) -> str:
    _, spans = rule_stat_spans(text)
    out, pos = [], 0
    for start, end, _, comments in spans:  # comments inside a clause move to its end
        out.append(text[pos:start].rstrip(" ") + "".join("  " + c for c in comments))
        pos = end
    return "".join(out) + text[pos:]


@pytest.mark.slow
def test_stats_keep_layout_and_count_like_pandas(tmp_path):
    (tmp_path / "in.rules").write_text(EDITED)
    r = subprocess.run([sys.executable, "-m", "rulekit", "stats", str(tmp_path / "in.rules"), GOLF,
                        "-o", str(tmp_path / "out.rules")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = (tmp_path / "out.rules").read_text()
    assert _without_stats(out) == _without_stats(EDITED)  # comments, blank lines, layout: same bytes
    assert "# keep" in out and "# windy rain" in out and "#  footer" not in out
    assert "2 correct (50%)  # old count\n# footer" in out  # a comment inside the old statistics is kept
    assert "support" not in out and "fired" not in out  # the readable form: the reviewer's words only
    rb = dsl.loads(out)
    r = subprocess.run([sys.executable, "-m", "rulekit", "stats", str(tmp_path / "in.rules"), GOLF,
                        "-o", str(tmp_path / "exact.rules"), "--exact"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    exact = dsl.loads((tmp_path / "exact.rules").read_text())
    df = pd.read_csv(GOLF)
    masks = [((df.outlook == "rainy") | df.outlook.isna()) & (df.wind == "strong"),
             (df.outlook == "sunny") & (df.humidity == "high"),
             df.temperature == "hot"]
    taken = pd.Series(False, index=df.index)
    for rule, full, m in zip(rb.rules, exact.rules, masks):  # an independent count: pandas, not the engine
        if rule.group == 3:  # a group of its own: first hit within it
            taken[:] = False
        assert rule.stats["n"] == full.stats["n"] == m.sum()
        assert rule.stats["e"] == full.stats["e"] == (m & (df.play != rule.conclusion.label)).sum()
        assert full.stats["support"] == m.sum() / len(df)
        fired = m & ~taken
        assert full.stats["fired"] == fired.sum()
        taken |= m
    assert [r.condition for r in rb.rules] == [r.condition for r in dsl.loads(EDITED).rules]
    assert exact.rules[0].stats["support"] == 2 / 14


@pytest.mark.slow
def test_stats_bad_input_is_one_line(tmp_path):
    (tmp_path / "in.rules").write_text(EDITED)
    df = pd.read_csv(GOLF).drop(columns="play")
    df.to_csv(tmp_path / "nolabel.csv", index=False)
    r = subprocess.run([sys.executable, "-m", "rulekit", "stats", str(tmp_path / "in.rules"),
                        str(tmp_path / "nolabel.csv"), "-o", str(tmp_path / "out.rules")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no target column 'play'" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "out.rules").exists()
    (tmp_path / "bad.rules").write_text(EDITED.replace("then no [0.6", "then [0.6 no"))
    r = subprocess.run([sys.executable, "-m", "rulekit", "stats", str(tmp_path / "bad.rules"), GOLF,
                        "-o", str(tmp_path / "out.rules")], capture_output=True, text=True)
    assert r.returncode == 2 and "bad.rules:16:" in r.stderr and "Traceback" not in r.stderr


@settings(max_examples=lane_examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rule_bases())
def test_only_the_statistics_change_on_random_bases(rb):
    text = dsl.dumps(rb)
    parsed, spans = rule_stat_spans(text)
    new = parsed.model_copy(update={"rules": tuple(
        r.model_copy(update={"stats": {"n": float(i), "e": 0.5} if i % 3 else {}})
        for i, r in enumerate(parsed.rules))})
    out = replace_stats(text, new, spans)
    back = dsl.loads(out)
    assert [r.stats for r in back.rules] == [r.stats for r in new.rules]
    assert back.model_copy(update={"rules": tuple(r.model_copy(update={"stats": {}}) for r in back.rules)}) == \
        parsed.model_copy(update={"rules": tuple(r.model_copy(update={"stats": {}}) for r in parsed.rules)})


def test_refresh_api_takes_csv_text_labels():
    rb = dsl.loads(EDITED)
    df = pd.read_csv(GOLF)
    a = refresh(rb, df, df["play"])
    assert a.rules[1].stats["n"] == 3 and a.rules[1].stats["e"] == 0
