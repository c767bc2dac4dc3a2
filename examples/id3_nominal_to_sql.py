"""ID3 on nominal (text) data: a tree, its rules, and SQL that SQLite runs on text columns.

    python examples/id3_nominal_to_sql.py [OUT_DIR]

For the two small textbook data sets shipped with rulekit (PlayGolf and mushrooms), learn a tree with
rulekit's ID3 learner, turn it into a rule base (``rulekit.to_rules``), write the rules and a SQL
query scoring them, load the rows into SQLite as TEXT columns (values like 'sunny', 'rainy') and
check that SQLite's answers equal the learner's, probabilities included. We add rows the data never
had: a value the tree never saw ('foggy') and missing values (NULL). Exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd

import rulekit
from rulekit.learners import ID3Classifier

# data set name -> (csv file in rulekit/data, target column, extra rows with unseen and missing values)
DATASETS = {
    "playgolf": ("playgolf.csv", "play", [
        {"outlook": "foggy", "temperature": "mild", "humidity": "high", "wind": "weak"},  # unseen value
        {"outlook": "rainy", "temperature": "cool", "humidity": "normal", "wind": None},   # missing value
        {"outlook": "sunny", "temperature": "hot", "humidity": None, "wind": "strong"},
        {"outlook": None, "temperature": None, "humidity": None, "wind": None},            # nothing known
    ]),
    "mushrooms": ("mushrooms.csv", "edibility", [
        {"color": "purple", "size": "small", "points": "yes"},
        {"color": "red", "size": None, "points": "yes"},
    ]),
}


def agree(name: str, sql_rows: list[tuple], labels: np.ndarray, proba: np.ndarray) -> bool:
    """Print one line comparing SQLite's rows (key, prediction, proba...) with the learner; True if equal."""
    sql_labels = np.array([r[1] for r in sql_rows], dtype=object)
    sql_proba = np.array([r[2:] for r in sql_rows], dtype=np.float64)
    same = (sql_labels == labels.astype(object)).all()
    diff = float(np.abs(sql_proba - proba).max())
    ok = bool(same) and diff <= 1e-12
    print(f"  SQLite vs ID3 on {len(sql_rows)} rows: labels {'identical' if same else 'DIFFERENT'}, "
          f"max |proba diff| = {diff:g} -> {'agrees' if ok else 'DISAGREES'}")
    return ok


def run(name: str, out: Path) -> bool:
    csv_name, target, extra = DATASETS[name]
    data = pd.read_csv(files("rulekit") / "data" / csv_name)   # the CSV bundled with rulekit
    X, y = data.drop(columns=target), data[target]

    # 1. Learn an ID3 tree. The columns are text, so every split is multiway on the values.
    id3 = ID3Classifier().fit(X, y)

    # 2. Rules: one per leaf, simplified, in the rulekit rule language (see the printed text).
    rules = rulekit.to_rules(id3.model_)
    text = rulekit.dsl.dumps(rules)
    (out / f"{name}.rules").write_text(text, encoding="utf-8")
    print(f"{name}: {len(X)} rows, {X.shape[1]} nominal features -> {len(rules.rules)} rules "
          f"({out / f'{name}.rules'}):")
    print("\n".join("    " + line for line in text.splitlines() if line))

    # 3. SQL for SQLite: a SELECT over a table named like the data set, passing the key column "id" through.
    sql = rulekit.export.to_sql(rules, dialect="sqlite", table=name, key="id", proba=True)
    (out / f"{name}.sqlite.sql").write_text(sql, encoding="utf-8")

    # 4. The rows: the training rows plus the odd ones, stored as TEXT (None becomes NULL).
    rows = pd.concat([X, pd.DataFrame(extra, columns=X.columns)], ignore_index=True)
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE {name} (id INTEGER, {', '.join(f'{c} TEXT' for c in X.columns)})")
    values = [(i, *(None if pd.isna(v) else v for v in row))
              for i, row in enumerate(rows.itertuples(index=False))]
    db.executemany(f"INSERT INTO {name} VALUES (?{', ?' * X.shape[1]})", values)
    result = db.execute(f"SELECT * FROM ({sql}) ORDER BY id").fetchall()

    # 5. What happened to the odd rows, in words (rb.explain names the rule that decided).
    for i, explanation in enumerate(rules.explain(rows.tail(len(extra))), start=len(X)):
        shown = {k: v for k, v in rows.iloc[i].items() if not pd.isna(v)}
        print(f"  row {i} {shown}: SQLite says {result[i][1]!r}; {explanation.text.split(' | ')[0]}")

    return agree(name, result, id3.predict(rows), id3.predict_proba(rows))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="directory for the .rules and .sql files (default: temp dir)")
    args = parser.parse_args(argv)
    out = Path(args.out or tempfile.mkdtemp(prefix="rulekit-id3-sql-"))
    out.mkdir(parents=True, exist_ok=True)

    ok = all([run(name, out) for name in DATASETS])  # a list, so both data sets always run
    print("SQLite agrees with the ID3 trees" if ok else "DISAGREEMENT: see the lines above")
    print(f"the rules and queries are in {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
