"""Every hostile model file issue 25's attacker sent, made here, as a regression test: one clear
line and exit 2 (never "internal error"), in bounded time and memory, or an exact match with the
source library where the file is valid."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import rulekit
from rulekit.errors import ModelFileError, RulekitError
from rulekit.importers.lightgbm import parse_model
from rulekit.importers.xgboost import ubjson_loads
from rulekit.ir.modelfile import loads_model
from tests.fuzz.limits import assert_clear_refusal, run_cli
from tests.fuzz.makers import lightgbm_chain, rows, rulekit_chain, ubjson_claim


def _small_model_text() -> str:
    return rulekit_chain(3)


def test_huge_integer_threshold_is_one_line_with_position():
    text = _small_model_text().replace('"threshold": 0.0', '"threshold": ' + "7" * 5000, 1)
    with pytest.raises(ModelFileError, match=r"m\.json:1:\d+: a number with 5000 digits is too long"):
        loads_model(text, file="m.json")


@pytest.mark.parametrize("args", [["show"], ["export", "--to", "sql", "-o", "OUT.sql"],
                                  ["export", "--to", "onnx", "-o", "OUT.onnx"]])
def test_lone_surrogate_feature_name_is_refused_at_load(tmp_path, args):
    doc = json.loads(_small_model_text())
    doc["features"][1]["name"] = "age\ud800band"
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))  # ensure_ascii: written as the escape \ud800
    out = [a.replace("OUT", str(tmp_path / "out")) for a in args]
    run = run_cli([out[0], str(path), *out[1:]])
    assert_clear_refusal(run, "m.json", "features.1.name", "U+D800")
    assert list(tmp_path.iterdir()) == [path]  # nothing half-written


def test_lone_surrogate_in_xgboost_feature_names(tmp_path):
    doc = _xgb_doc()
    doc["learner"]["feature_names"] = ["a", "b\udfff", "c", "d"]
    path = tmp_path / "x.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(RulekitError, match=r"learner\.feature_names\.1: .*U\+DFFF"):
        rulekit.from_xgboost(str(path))


def _xgb_doc() -> dict:
    xgb = pytest.importorskip("xgboost")
    X = rows(4, 300)
    y = (np.nan_to_num(X[:, 0]) > 0).astype(int)
    booster = xgb.XGBClassifier(n_estimators=3, max_depth=2, n_jobs=1).fit(X, y).get_booster()
    return json.loads(bytes(booster.save_raw(raw_format="json")))


@pytest.mark.parametrize("key,value,needle", [
    ("num_feature", "1000000000", "num_feature=1000000000 is out of range"),
    ("num_class", "1000000000", "num_class=1000000000 is out of range"),
])
def test_xgboost_counts_beyond_the_file_are_refused_before_allocating(tmp_path, key, value, needle):
    doc = _xgb_doc()
    doc["learner"]["learner_model_param"][key] = value
    if key == "num_class":
        doc["learner"]["objective"]["name"] = "multi:softprob"
    path = tmp_path / "x.json"
    path.write_text(json.dumps(doc))
    run = run_cli(["import", str(path), "-o", str(tmp_path / "m.json")], mem_mb=1200, timeout=60)
    assert_clear_refusal(run, "x.json", needle)
    assert run.max_rss_mb < 300, run  # ~60 MB measured (< 1200 always held under the 1200 MB cap)


@pytest.mark.parametrize("kind", [b"[", b"{", b"[$Z", b"[$S", b"{$i"])
def test_ubjson_container_claiming_billions_is_refused_at_once(kind):
    data = ubjson_claim(3_000_000_000, kind)
    with pytest.raises(RulekitError, match="claims 3000000000 elements|not supported"):
        ubjson_loads(data)


def test_ubjson_claim_via_cli_is_fast(tmp_path):
    path = tmp_path / "x.ubj"
    path.write_bytes(ubjson_claim(5_000_000_000))
    run = run_cli(["import", str(path), "-o", str(tmp_path / "m.json")], timeout=60)
    assert_clear_refusal(run, "x.ubj", "claims 5000000000 elements")


def test_lightgbm_deep_zero_as_missing_is_refused_fast_and_shallow_is_exact(tmp_path):
    lgb = pytest.importorskip("lightgbm")
    deep = tmp_path / "deep.txt"
    deep.write_text(lightgbm_chain(18))
    run = run_cli(["import", str(deep), "-o", str(tmp_path / "m.json")], timeout=60)
    assert_clear_refusal(run, "deep.txt", "expand to more than")
    assert run.cpu_seconds < 30, run  # ~0.5 s CPU (interpreter start included); CPU, not wall time
    text = lightgbm_chain(9)
    model = rulekit.from_lightgbm(_write(tmp_path / "ok.txt", text))
    X = rows(9, 400)
    ref = lgb.Booster(model_str=text).predict(X)
    np.testing.assert_array_equal(model.predict_proba(X)[:, 1], ref)


@pytest.mark.parametrize("decision_type,threshold", [(12, 0.25), (14, -0.25)])
def test_lightgbm_undefined_missing_type_matches_lightgbm(tmp_path, decision_type, threshold):
    """Missing type 3 (bits 2-3 of decision_type) is undefined; LightGBM treats it as None."""
    lgb = pytest.importorskip("lightgbm")
    text = lightgbm_chain(6, decision_type=decision_type, threshold=threshold, n_features=3)
    model = rulekit.from_lightgbm(_write(tmp_path / "m.txt", text))
    X = np.vstack([rows(3, 500), np.zeros((3, 3)), np.full((3, 3), np.nan),
                   np.full((3, 3), 1e-36), np.full((3, 3), threshold)])
    ref = lgb.Booster(model_str=text).predict(X)
    np.testing.assert_array_equal(model.predict_proba(X)[:, 1], ref)


def _write(path, text: str) -> str:
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("line,needle", [
    ('pandas_categorical:[["a\\ud800b", "c"]]', "U+D800"),
    ("pandas_categorical:[[" + "7" * 5000 + "]]", "5000 digits"),
    ("pandas_categorical:[[1, 2", "not valid JSON"),
], ids=["surrogate", "huge-integer", "bad-json"])
def test_lightgbm_pandas_categorical_is_checked_like_any_json(line, needle):
    text = lightgbm_chain(2) + line + "\n"
    with pytest.raises(RulekitError, match=re.escape(needle)):
        parse_model(text, file="m.txt")
