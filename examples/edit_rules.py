"""Edit a model as text: tree -> .rules file -> a person's edits -> Python, SQL and ONNX that follow them.

    python examples/edit_rules.py [OUT_DIR]

Train a small scikit-learn decision tree on iris, turn it into rules (``rulekit.to_rules``) and write
them in rulekit's rule language (``rulekit.dsl.dumps``) to ``iris.rules``. Then edit that TEXT the
way a person would in an editor:

  1. move a threshold:  the cut on petal_width goes from 1.75 down to 1.55,
  2. rename a class:    "versicolor" becomes "versicolour",
  3. add a rule:        a hand-written rule placed first, so it wins over the learned ones.

Read the edited file back (``rulekit.dsl.loads``), export it to Python, SQL (SQLite) and ONNX, and
check that (a) on the iris rows the predictions changed exactly as the three edits say and nowhere
else, and (b) Python, SQLite and onnxruntime all agree with the edited rules, also on rows sitting
on every threshold and rows with missing values. Exits 1 if anything disagrees.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pandas as pd
from sklearn.datasets import load_iris
from sklearn.tree import DecisionTreeClassifier

import rulekit
from rulekit.probe import probe_matrix, rule_thresholds

FEATURES = ["sepal_length", "sepal_width", "petal_length", "petal_width"]
NEW_RULE = """\
# added by hand: medium petals on wide sepals are versicolour, whatever the tree said
manual: if 4.8 <= petal_length <= 5.1 and sepal_width >= 3 then versicolour
"""


def edit(text: str) -> str:
    """The three edits, as find-and-replace on the text; each must find what it replaces."""
    edits = [("petal_width <= 1.75", "petal_width <= 1.55"),   # 1. move the threshold (both sides of it)
             ("petal_width > 1.75", "petal_width > 1.55"),
             ("versicolor", "versicolour"),                    # 2. rename the class everywhere
             ("\nr1:", "\n" + NEW_RULE + "r1:")]               # 3. a new first rule, before r1
    for old, new in edits:
        if old not in text:
            raise SystemExit(f"edit failed: {old!r} is not in the rules text (did the tree change?)")
        text = text.replace(old, new)
    return text


def agree(name: str, labels, proba, want_labels, want_proba, tolerance: float) -> bool:
    """Print one line comparing a backend with the edited rules; True when they agree."""
    same = bool((np.asarray(labels, dtype=object) == np.asarray(want_labels, dtype=object)).all())
    diff = float(np.abs(np.asarray(proba, dtype=np.float64) - want_proba).max())
    ok = same and diff <= tolerance
    print(f"  {name:<12} labels {'identical' if same else 'DIFFERENT'}, max |proba diff| = {diff:.3g} "
          f"-> {'agrees' if ok else 'DISAGREES'}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="directory for the rules and exports (default: a temp dir)")
    args = parser.parse_args(argv)
    out = Path(args.out or tempfile.mkdtemp(prefix="rulekit-edit-"))
    out.mkdir(parents=True, exist_ok=True)

    # 1. A tree, its rules, and the rules as text in a file.
    iris = load_iris(as_frame=True)
    X = iris.data.set_axis(FEATURES, axis=1)             # short names are nicer to edit
    y = iris.target_names[iris.target]
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    before = rulekit.to_rules(rulekit.from_sklearn(tree))
    (out / "iris.rules").write_text(rulekit.dsl.dumps(before), encoding="utf-8")

    # 2. The edits, on the text, and the edited file read back into a rule base.
    edited_text = edit((out / "iris.rules").read_text(encoding="utf-8"))
    (out / "iris.edited.rules").write_text(edited_text, encoding="utf-8")
    after = rulekit.dsl.loads(edited_text)
    print(f"wrote {out / 'iris.rules'} ({len(before.rules)} rules) and the edited "
          f"{out / 'iris.edited.rules'} ({len(after.rules)} rules); the edited rules:")
    print("\n".join("    " + line for line in edited_text.split("\n\n", 1)[1].strip().splitlines()))

    # 3. Did the predictions follow the edits? Work out by hand what each iris row should now be.
    old = pd.Series(before.predict(X)).replace("versicolor", "versicolour").to_numpy(dtype=object)  # edit 2
    moved = (X.petal_width > 1.55) & (X.petal_width <= 1.75)   # edit 1: these rows now go the "> cut" way
    manual = X.petal_length.between(4.8, 5.1) & (X.sepal_width >= 3)   # edit 3 wins over everything
    expected = np.where(manual, "versicolour", np.where(moved, "virginica", old))
    new = after.predict(X)
    followed = bool((new == expected).all())
    print(f"on the {len(X)} iris rows: {int((new != old).sum())} predictions changed "
          f"({int((moved & ~manual).sum())} rows crossed the moved threshold, {int(manual.sum())} "
          f"matched the new rule); {'exactly as edited' if followed else 'NOT as edited'}")

    # 4. Export the edited rules and run each export on iris + threshold rows + missing values.
    rows = probe_matrix(X.to_numpy(), rule_thresholds(after))
    want_labels, want_proba = after.predict(rows), after.predict_proba(rows)
    print(f"exports of the edited rules on {len(rows)} rows (iris, every threshold, missing values):")

    python_source = rulekit.export.to_python(after)          # a module without any rulekit import
    (out / "iris_rules.py").write_text(python_source, encoding="utf-8")
    module: dict = {}
    exec(compile(python_source, str(out / "iris_rules.py"), "exec"), module)  # what `import` would do
    flower = {name: float(v) for name, v in X.iloc[56].items()}   # one row, as a service would get it
    print(f"  iris_rules.predict({flower}) -> {module['predict'](flower)!r} "
          f"(before the edits: {str(before.predict(X.iloc[[56]])[0])!r})")
    ok = agree("Python", module["predict_batch"](rows), module["predict_proba_batch"](rows),
               want_labels, want_proba, 1e-12)

    sql = rulekit.export.to_sql(after, dialect="sqlite", table="flowers", key="id", proba=True)
    (out / "iris.sqlite.sql").write_text(sql, encoding="utf-8")
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE flowers (id INTEGER, {', '.join(f'{c} REAL' for c in FEATURES)})")
    db.executemany("INSERT INTO flowers VALUES (?, ?, ?, ?, ?)",     # NaN is stored as NULL
                   [(i, *(None if np.isnan(v) else float(v) for v in r)) for i, r in enumerate(rows)])
    result = db.execute(f"SELECT * FROM ({sql}) ORDER BY id").fetchall()
    ok &= agree("SQLite", [r[1] for r in result], [r[2:] for r in result], want_labels, want_proba, 1e-12)

    onnx_model = rulekit.export.to_onnx(after)     # float32 input, fine: the rules say "precision float32"
    (out / "iris.onnx").write_bytes(onnx_model.SerializeToString())
    session = ort.InferenceSession(str(out / "iris.onnx"), providers=["CPUExecutionProvider"])
    labels, proba = session.run(["label", "probabilities"], {"X": rows.astype(np.float32)})
    ok &= agree("onnxruntime", labels, proba, want_labels, want_proba, 1e-6)

    ok &= followed
    print("the exports follow the edited rules" if ok else "DISAGREEMENT: see the lines above")
    print(f"the files are in {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
