"""Model files: round trip, and every kind of damage rejected with one clear line (exit 2)."""

import copy
import json
import sys

import numpy as np
import pytest

import rulekit
from rulekit.cli import main
from rulekit.errors import ModelFileError
from rulekit.ir.modelfile import loads_model
from tests import zoo


def _doc():
    model, _ = zoo.get("handmade_nominal")
    return model.to_dict()


def _load(doc):
    return loads_model(json.dumps(doc))


@pytest.mark.parametrize("name", zoo.zoo_names())
def test_round_trip_keeps_predictions(name, tmp_path):
    model, data = zoo.get(name)
    path = tmp_path / "m.json"
    model.save(path)
    again = rulekit.load(path)
    assert again.to_dict() == model.to_dict()
    if model.task == "classification":
        assert np.array_equal(again.predict_proba(data), model.predict_proba(data))
    assert np.array_equal(again.predict(data), model.predict(data))


def _break(doc, how):
    d = copy.deepcopy(doc)
    t = d["trees"][0]
    if how == "two_roots":
        t["edges"] = t["edges"][1:]
    elif how == "cycle":
        t["edges"].append({"parent": t["edges"][-1]["child"], "child": 0, "branch": 0})
    elif how == "two_parents":
        t["edges"][-1]["child"] = t["edges"][0]["child"]
    elif how == "dangling_edge":
        t["edges"][0]["child"] = 999
    elif how == "feature_oob":
        next(n for n in t["nodes"] if n["kind"] == "numeric")["feature"] = 7
    elif how == "nan_threshold":
        next(n for n in t["nodes"] if n["kind"] == "numeric")["threshold"] = "NaN"
    elif how == "missing_oob":
        t["nodes"][0]["missing"] = 5
    elif how == "bad_kind":
        t["nodes"][0]["kind"] = "branch"
    elif how == "leaf_size":
        next(n for n in t["nodes"] if n["kind"] == "leaf")["value"] = [1.0]
    elif how == "code_oob":
        next(e for e in t["edges"] if e.get("values"))["values"] = [42]
    elif how == "newer_version":
        d["version"] = 99
    elif how == "wrong_format":
        d["format"] = "something-else"
    elif how == "unknown_key":
        d["surprise"] = 1
    elif how == "duplicate_node":
        t["nodes"].append(dict(t["nodes"][1]))
    elif how == "duplicate_class":
        d["classes"] = [d["classes"][0]] * len(d["classes"])
    elif how == "negative_version":
        d["version"] = -1
    elif how == "bool_as_integer":
        next(n for n in t["nodes"] if n["kind"] == "numeric")["feature"] = True
    elif how == "bool_as_number":
        next(n for n in t["nodes"] if n["kind"] == "numeric")["threshold"] = True
    return d


BREAKS = ["two_roots", "cycle", "two_parents", "dangling_edge", "feature_oob", "nan_threshold",
          "missing_oob", "bad_kind", "leaf_size", "code_oob", "newer_version", "wrong_format",
          "unknown_key", "duplicate_node", "duplicate_class", "negative_version", "bool_as_integer",
          "bool_as_number"]


@pytest.mark.parametrize("how", BREAKS)
def test_damaged_model_is_rejected_clearly(how):
    with pytest.raises(ModelFileError) as info:
        _load(_break(_doc(), how))
    msg = str(info.value)
    assert "\n" not in msg and len(msg) < 300


def test_infinite_threshold_round_trips():
    model, _ = zoo.get("sklearn_tree_binary")
    d = model.to_dict()
    node = next(n for n in d["trees"][0]["nodes"] if n["kind"] == "numeric")
    node["threshold"] = "Infinity"
    m = _load(d)
    assert m.trees[0].nodes[node["id"]]["threshold"] == float("inf")
    assert json.loads(rulekit.ir.modelfile.dumps_model(m))["trees"][0]["nodes"][node["id"]]["threshold"] in ("Infinity", "inf")


@pytest.mark.parametrize("text,needle", [
    ("{not json", "not valid JSON"),
    ('{"format": "rulekit-model", "version": 1}', "task"),
    ("[]", "not a rulekit model file"),
])
def test_cli_reports_bad_files_in_one_line(tmp_path, capsys, text, needle):
    p = tmp_path / "bad.json"
    p.write_text(text)
    with pytest.raises(SystemExit) as ex:
        main(["predict", str(p), str(p)])
    assert ex.value.code == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.slow
def test_deep_chain_loads_predicts_saves_without_recursion(tmp_path):
    limit = sys.getrecursionlimit()
    model = zoo.chain_model(20_000)
    path = tmp_path / "chain.json"
    model.save(path)
    again = rulekit.load(path)
    x = np.array([[-1.0], [0.5], [19_999.0], [25_000.0], [np.nan], [7_000.25]])
    assert np.array_equal(again.predict_proba(x), model.predict_proba(x))
    assert sys.getrecursionlimit() == limit
    from rulekit.ir.tree import depth

    assert depth(again.graph) == 20_000


def test_graphs_with_arbitrary_node_ids_save_and_load():
    import networkx as nx

    model, data = zoo.get("handmade_nominal")
    relabelled = nx.relabel_nodes(model.graph, {n: f"node-{n}" if n else "root" for n in model.graph})
    relabelled.graph["root"] = "root"
    odd = rulekit.Model([relabelled], model.features, task="classification", classes=model.classes)
    again = loads_model(rulekit.ir.modelfile.dumps_model(odd))
    assert np.array_equal(again.predict_proba(data), model.predict_proba(data))
