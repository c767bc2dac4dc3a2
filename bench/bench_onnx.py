"""ONNX export vs skl2onnx (scikit-learn forest) and onnxmltools (LightGBM), measured in one run (issue #8).

Per workload: conversion time (from the fitted estimator: rulekit import + export, against the peer's
converter), file size, onnxruntime batch and single-row inference (1 thread each, same data), and
the rows of a threshold/NaN probe set on which each ONNX model disagrees with the source library.
Goals: conversion at least as fast, file at most half the size, inference at least as fast.
A peer that is not installed gives rows with ``peer_value`` None.
"""

from __future__ import annotations

import time

import numpy as np

from _timing import best_time




def _session(proto):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(proto.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def _single(sess, rows) -> float:
    name = sess.get_inputs()[0].name
    t = time.perf_counter()
    for r in rows:
        sess.run(None, {name: r})
    return (time.perf_counter() - t) / len(rows) * 1e6


def _timings(sess, X: np.ndarray, n_single: int, peer=None, Xp: np.ndarray | None = None):
    """Batch seconds and single-row microseconds for rulekit's session and the peer's, measured in
    alternating rounds (best of 3) so that both see the same machine load."""
    name = sess.get_inputs()[0].name
    rows = [X[i:i + 1] for i in range(n_single)]
    prow = None if peer is None else [Xp[i:i + 1] for i in range(n_single)]
    best = [float("inf")] * 4
    for _ in range(3):
        t = time.perf_counter()
        sess.run(None, {name: X})
        best[0] = min(best[0], time.perf_counter() - t)
        best[1] = min(best[1], _single(sess, rows))
        if peer is not None:
            pname = peer.get_inputs()[0].name
            t = time.perf_counter()
            peer.run(None, {pname: Xp})
            best[2] = min(best[2], time.perf_counter() - t)
            best[3] = min(best[3], _single(peer, prow))
    if peer is None:
        return best[0], best[1], None, None
    return tuple(best)


def _labels(out: list, names: list[str]) -> np.ndarray:
    res = dict(zip(names, out))
    lab = res.get("label", out[0])
    return np.asarray(lab).ravel()


def _rows(bench: str, peer: str, conv, peer_conv, size, peer_size, batch, peer_batch, single, peer_single,
          bad, peer_bad, n_probe) -> list[dict]:
    def ok(a, b, factor=1.0):
        return None if a is None or b is None else bool(a <= factor * b)

    return [
        {"benchmark": bench, "metric": "conversion time (import + export)", "unit": "s", "rulekit": conv,
         "peer": peer, "peer_value": peer_conv, "goal": "ratio <= 1", "ok": ok(conv, peer_conv)},
        {"benchmark": bench, "metric": "file size", "unit": "MB", "rulekit": size, "peer": peer,
         "peer_value": peer_size, "goal": "ratio <= 0.5", "ok": ok(size, peer_size, 0.5)},
        {"benchmark": bench, "metric": "onnxruntime batch inference", "unit": "s", "rulekit": batch,
         "peer": peer, "peer_value": peer_batch, "goal": "ratio <= 1", "ok": ok(batch, peer_batch)},
        {"benchmark": bench, "metric": "onnxruntime single row", "unit": "us/row", "rulekit": single,
         "peer": peer, "peer_value": peer_single, "goal": "ratio <= 1", "ok": ok(single, peer_single)},
        {"benchmark": bench, "metric": f"labels differing from source ({n_probe} probe rows)", "unit": "rows",
         "rulekit": bad, "peer": peer, "peer_value": peer_bad, "goal": "rulekit 0", "ok": bad == 0},
    ]


def _forest_data(n_rows: int, seed: int = 0):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_rows, 10, n_informative=6, random_state=seed)
    X = np.round(X * 10, 3)
    rng = np.random.default_rng(seed)
    X[rng.random(X.shape) < 0.05] = np.nan
    return X, y


def bench_sklearn_forest(quick: bool) -> list[dict]:
    from sklearn.ensemble import RandomForestClassifier

    import rulekit
    from rulekit.export import to_onnx
    from rulekit.probe import probe_rows

    n_trees = 50 if quick else 200
    X, y = _forest_data(5_000 if quick else 20_000)
    rf = RandomForestClassifier(n_trees, max_depth=10, random_state=0, n_jobs=1).fit(X, y)
    bench = f"RF {n_trees} trees depth 10 (sklearn, float32 input)"
    conv, proto = best_time(lambda: to_onnx(rulekit.from_sklearn(rf)), repeat=1 if not quick else 2)
    model = rulekit.from_sklearn(rf)
    export_only, _ = best_time(lambda: to_onnx(model), repeat=2)
    probe = probe_rows(model, X[:500], n_missing=1000, max_rows=20_000).astype(np.float32)
    want = rf.predict(probe)
    Z = np.random.default_rng(1).normal(size=(20_000 if quick else 200_000, 10)).astype(np.float32) * 10
    n_single = 300 if quick else 2000
    sess = _session(proto)
    bad = int((_labels(sess.run(None, {"X": probe}), [o.name for o in sess.get_outputs()]) != want).sum())
    peer = "skl2onnx"
    p_conv = p_size = p_bad = psess = None
    try:
        from skl2onnx import to_onnx as sk_to_onnx

        p_conv, peer_proto = best_time(lambda: sk_to_onnx(rf, X[:1].astype(np.float32),
                                                      options={"zipmap": False}), repeat=1)
        psess = _session(peer_proto)
        out = psess.run(None, {psess.get_inputs()[0].name: probe})
        p_bad = int((_labels(out, [o.name for o in psess.get_outputs()]) != want).sum())
        p_size = peer_proto.ByteSize() / 1e6
    except ImportError:
        peer = "skl2onnx (not installed)"
    batch, single, p_batch, p_single = _timings(sess, Z, n_single, psess, Z)
    rows = _rows(bench, peer, conv, p_conv, proto.ByteSize() / 1e6, p_size, batch, p_batch, single, p_single,
                 bad, p_bad, len(probe))
    rows.insert(1, {"benchmark": bench, "metric": "export only (from a rulekit Model, checks included)",
                    "unit": "s", "rulekit": export_only, "peer": peer, "peer_value": p_conv,
                    "goal": "ratio <= 1", "ok": None if p_conv is None else export_only <= p_conv})
    double = to_onnx(model, dtype="double")
    rows.insert(3, {"benchmark": bench, "metric": "file size, double input", "unit": "MB",
                    "rulekit": double.ByteSize() / 1e6, "peer": peer, "peer_value": p_size,
                    "goal": "ratio <= 0.5", "ok": None if p_size is None else double.ByteSize() / 1e6 <= 0.5 * p_size})
    return rows


def bench_lightgbm(quick: bool) -> list[dict]:
    try:
        import lightgbm as lgb
    except ImportError:
        return []
    import rulekit
    from rulekit.export import to_onnx
    from rulekit.probe import probe_rows

    n_trees = 50 if quick else 200
    X, y = _forest_data(5_000 if quick else 20_000, seed=2)
    clf = lgb.LGBMClassifier(n_estimators=n_trees, num_leaves=63, verbose=-1, random_state=0).fit(X, y)
    bench = f"LightGBM {n_trees} trees 63 leaves (double input)"
    conv, proto = best_time(lambda: to_onnx(rulekit.from_lightgbm(clf), dtype="double"), repeat=1)
    model = rulekit.from_lightgbm(clf)
    probe = probe_rows(model, X[:500], n_missing=1000, max_rows=20_000)
    want = clf.predict(probe)
    Z = np.random.default_rng(1).normal(size=(20_000 if quick else 200_000, 10)) * 10
    n_single = 300 if quick else 2000
    sess = _session(proto)
    bad = int((_labels(sess.run(None, {"X": probe}), [o.name for o in sess.get_outputs()]) != want).sum())
    peer = "onnxmltools (float input)"
    p_conv = p_size = p_bad = psess = None
    try:
        from onnxmltools import convert_lightgbm
        from onnxmltools.convert.common.data_types import FloatTensorType

        p_conv, peer_proto = best_time(lambda: convert_lightgbm(
            clf, initial_types=[("X", FloatTensorType([None, X.shape[1]]))], zipmap=False), repeat=1)
        psess = _session(peer_proto)
        out = psess.run(None, {"X": probe.astype(np.float32)})
        p_bad = int((_labels(out, [o.name for o in psess.get_outputs()]) != want).sum())
        p_size = peer_proto.ByteSize() / 1e6
    except ImportError:
        peer = "onnxmltools (not installed)"
    batch, single, p_batch, p_single = _timings(sess, Z, n_single, psess, Z.astype(np.float32))
    return _rows(bench, peer, conv, p_conv, proto.ByteSize() / 1e6, p_size, batch, p_batch, single, p_single,
                 bad, p_bad, len(probe))


def run(quick: bool = False) -> list[dict]:
    return bench_sklearn_forest(quick) + bench_lightgbm(quick)


if __name__ == "__main__":
    for row in run(quick=True):
        print(row)
