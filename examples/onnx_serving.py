"""Serve a scikit-learn gradient-boosting model with onnxruntime, through rulekit's ONNX export.

    python examples/onnx_serving.py [OUT_DIR]

Train a 3-class GradientBoostingClassifier on scikit-learn's wine data, convert it with
``rulekit.from_sklearn``, write ``wine.onnx`` (float32 input, the default) and ``wine.double.onnx``
(float64 input) with ``rulekit.export.to_onnx``, then use them the way a service would: open an
onnxruntime session from the file, score a batch, and score a single request given as a dict of
named values (the model's metadata says the column order). Every answer is compared with
scikit-learn's ``predict`` / ``predict_proba``, including rows sitting exactly on the model's
thresholds. Exits 1 if onnxruntime disagrees with scikit-learn.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pandas as pd
from sklearn.datasets import load_wine
from sklearn.ensemble import GradientBoostingClassifier

import rulekit
from rulekit.probe import probe_rows

# onnxruntime returns float32 probabilities from a float32 model (1e-6), float64 from a double one
TOLERANCE = {"float": 1e-6, "double": 1e-12}


def check(what: str, labels: np.ndarray, proba: np.ndarray, want_labels: np.ndarray,
          want_proba: np.ndarray, tolerance: float) -> bool:
    """Print one line comparing onnxruntime's outputs with scikit-learn's; True when they agree."""
    same = bool((labels == want_labels).all())
    diff = float(np.abs(proba.astype(np.float64) - want_proba).max())
    ok = same and diff <= tolerance
    print(f"  {what}: labels {'identical' if same else 'DIFFERENT'}, max |proba diff| = {diff:.3g} "
          f"(allowed {tolerance:g}) -> {'agrees' if ok else 'DISAGREES'}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="directory for the .onnx files (default: a temp dir)")
    args = parser.parse_args(argv)
    out = Path(args.out or tempfile.mkdtemp(prefix="rulekit-onnx-"))
    out.mkdir(parents=True, exist_ok=True)

    # 1. The model to serve: 20 boosting rounds x 3 classes = 60 small trees, softmax on top.
    wine = load_wine(as_frame=True)
    X, y = wine.data, wine.target_names[wine.target]          # labels "class_0", "class_1", "class_2"
    gbm = GradientBoostingClassifier(n_estimators=20, max_depth=3, random_state=0).fit(X, y)
    model = rulekit.from_sklearn(gbm)

    # Rows to check: the real ones plus one per threshold value and its float neighbours.
    rows = pd.DataFrame(probe_rows(model, X.to_numpy(), n_missing=0), columns=X.columns)
    rows = rows.dropna()  # GradientBoostingClassifier itself refuses missing values
    want_labels, want_proba = gbm.predict(rows), gbm.predict_proba(rows)
    print(f"{len(model.trees)} trees from scikit-learn; checking {len(X)} real rows + "
          f"{len(rows) - len(X)} rows on thresholds")

    ok = True
    for dtype in ("float", "double"):
        # 2. Export and save. The file is all a server needs: no rulekit, no scikit-learn.
        path = out / ("wine.onnx" if dtype == "float" else "wine.double.onnx")
        path.write_bytes(rulekit.export.to_onnx(model, dtype=dtype).SerializeToString())
        print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB, {dtype} input)")

        # 3. The server side: a session from the file; input "X" [N, 13], outputs "label", "probabilities".
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        np_dtype = np.float32 if dtype == "float" else np.float64
        meta = session.get_modelmeta().custom_metadata_map
        features = [f["name"] for f in json.loads(meta["rulekit.features"])]   # column order of X
        classes = json.loads(meta["rulekit.classes"])

        # 3a. A batch: every row at once.
        start = time.perf_counter()
        labels, proba = session.run(["label", "probabilities"], {"X": rows[features].to_numpy(np_dtype)})
        ms = (time.perf_counter() - start) * 1000
        ok &= check(f"batch of {len(rows)} rows in {ms:.1f} ms", labels, proba, want_labels, want_proba,
                    TOLERANCE[dtype])

        # 3b. A single request, as a service would receive it: named values, in any order.
        request = dict(reversed(list(X.iloc[0].items())))
        row = np.array([[request[name] for name in features]], dtype=np_dtype)
        start = time.perf_counter()
        label, p = session.run(["label", "probabilities"], {"X": row})
        us = (time.perf_counter() - start) * 1e6
        shown = {c: round(float(v), 4) for c, v in zip(classes, p[0])}
        print(f"  one request -> {label[0]}, probabilities {shown} in {us:.0f} µs")
        one = pd.DataFrame([request])[X.columns]
        ok &= check("single row", label, p, gbm.predict(one), gbm.predict_proba(one), TOLERANCE[dtype])

    print("onnxruntime agrees with scikit-learn" if ok else "DISAGREEMENT: see the lines above")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
