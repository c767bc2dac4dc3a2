"""Hostile and unsupported ONNX files: one clear line (a RulekitError; CLI exit 2), never a
traceback, a hang or a huge allocation; and what is not a tree ensemble is refused by name."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

pytest.importorskip("onnxruntime")

from rulekit.errors import RulekitError
from rulekit.importers.onnx import from_onnx, load_file
from tests.importers.test_onnx_import_modes import random_forest_tables, v5_model


def _v5(**changes):
    model = v5_model(random_forest_tables(0, n_trees=2, depth=3))
    node = model.graph.node[0]
    for a in node.attribute:
        if a.name in changes:
            a.CopyFrom(helper.make_attribute(a.name, changes[a.name]))
    return model


def _refused(obj, match: str):
    with pytest.raises(RulekitError, match=match) as err:
        from_onnx(obj)
    assert "\n" not in str(err.value)


def test_bytes_that_are_not_onnx():
    _refused(b"\x08\x07garbage\xff\xff\xff\xff", "not an ONNX model")
    _refused(b"", "not an ONNX model")


def test_truncated_file(tmp_path):
    data = _v5().SerializeToString()
    path = tmp_path / "cut.onnx"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(RulekitError, match=r"cut\.onnx: "):
        load_file(path)


def test_cycle_in_node_ids_is_one_error():
    model = _v5()
    node = model.graph.node[0]
    attrs = {a.name: a for a in node.attribute}
    true_ids = list(attrs["nodes_truenodeids"].ints)
    leafs = list(attrs["nodes_trueleafs"].ints)
    # the root's true child becomes the root itself
    true_ids[0], leafs[0] = 0, 0
    attrs["nodes_truenodeids"].CopyFrom(helper.make_attribute("nodes_truenodeids", true_ids))
    attrs["nodes_trueleafs"].CopyFrom(helper.make_attribute("nodes_trueleafs", leafs))
    _refused(model, "reached twice")


def test_out_of_range_ids_and_lengths():
    _refused(_v5(tree_roots=[0, 10_000]), "tree_roots entry 10000 is out of range")
    _refused(_v5(nodes_featureids=[0]), "has 1 entries")
    _refused(_v5(n_targets=10**9), "n_targets 1000000000")


def test_other_nodes_are_refused_by_name():
    model = _v5()
    add = helper.make_node("Add", ["Y", "Y"], ["Z"], name="sneaky_add")
    graph = model.graph
    graph.node.append(add)
    graph.output[0].name = "Z"
    _refused(model, "node 'sneaky_add' \\(Add\\)")


def test_two_inputs_are_refused():
    model = _v5()
    model.graph.input.append(helper.make_tensor_value_info("extra", TensorProto.FLOAT, ["N", 1]))
    _refused(model, "2 inputs")


def test_external_data_is_refused():
    model = _v5()
    t = numpy_helper.from_array(np.zeros(3, np.float32), "ext")
    t.data_location = TensorProto.EXTERNAL
    t.ClearField("raw_data")
    entry = t.external_data.add()
    entry.key, entry.value = "location", "/etc/passwd"
    model.graph.initializer.append(t)
    _refused(model, "external file")


@pytest.mark.parametrize("depth", [5_000, pytest.param(50_000, marks=pytest.mark.slow)])
def test_deep_chain_loads_without_recursion(depth):
    """A chain 5,000 / 50,000 deep (each split peels one leaf off): explicit stacks only."""
    splits = [dict(feature=2, mode=0, value=float(i), members=None, missing=0,
                   true=("leaf", i), false=("node", i + 1) if i + 1 < depth else ("leaf", depth))
              for i in range(depth)]
    leaves = [[(0, float(i))] for i in range(depth + 1)]
    model = from_onnx(v5_model((splits, leaves, [0])))
    assert model.predict(np.array([[0, 0, 10.5, 0, 0], [0, 0, 1e9, 0, 0]])).tolist() == [11.0, float(depth)]


def test_cli_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07" + b"\xff" * 64)
    proc = subprocess.run([sys.executable, "-m", "rulekit", "import", str(bad), "-o", str(tmp_path / "m.json")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "bad.onnx" in proc.stderr, proc.stderr
    assert not (tmp_path / "m.json").exists()


def test_file_over_the_size_limit_is_refused_before_reading(tmp_path, monkeypatch):
    """protobuf cannot parse a message of 2 GB or more: such a file is refused by its size."""
    import rulekit.importers.onnx as onnx_import

    path = tmp_path / "big.onnx"
    path.write_bytes(_v5().SerializeToString())
    monkeypatch.setattr(onnx_import, "MAX_BYTES", 100)
    with pytest.raises(RulekitError, match=r"big\.onnx: \d+ bytes, more than an ONNX protobuf can hold"):
        load_file(path)


def test_node_count_over_the_cap_is_refused(monkeypatch):
    """Memory stays bounded: an ensemble listing more nodes than the cap is refused up front."""
    import rulekit.importers.onnx_trees as trees

    monkeypatch.setattr(trees, "MAX_NODES", 5)
    _refused(_v5(), r"nodes: more than rulekit reads \(5;")


@pytest.mark.parametrize("n_cases, seed", [(3000, 0), pytest.param(30_000, 1, marks=pytest.mark.slow)])
def test_byte_mutations_load_or_fail_in_one_line(n_cases, seed):
    """Random byte edits of a v5 regressor and a legacy softmax classifier: each file converts
    (and predicts) or is refused with a RulekitError, never another exception. Before the
    attribute checks, 5 of 2,000 edits raised TypeError/KeyError/ValueError from deep inside."""
    import time

    from tests.importers.test_onnx_import_modes import legacy_model

    bases = [_v5().SerializeToString(),
             legacy_model(random_forest_tables(1, n_trees=3, depth=4, member=False, n_targets=3),
                          op="TreeEnsembleClassifier", post="SOFTMAX", classes=[1, 2, 3]).SerializeToString()]
    rng = np.random.default_rng(seed)
    loaded = 0
    for case in range(n_cases):
        data = bytearray(bases[case % 2])
        for _ in range(rng.integers(1, 4)):
            data[rng.integers(len(data))] = rng.integers(256)
        start = time.thread_time()  # not process_time: threads other tests left in this worker count there (CI: 2.1 s on a 3 ms case)
        try:
            model = from_onnx(bytes(data))
            model.predict(np.zeros((2, model.n_features)))
            loaded += 1
        except RulekitError as err:
            assert "\n" not in str(err)
        assert time.thread_time() - start < 2.0, f"case {case} took too long"
    assert 0 < loaded < n_cases
