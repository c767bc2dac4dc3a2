"""`rulekit predict`: score a CSV with a model or rules file; CSV out in input order."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import numpy as np

from rulekit.commands.source import load_source
from rulekit.errors import RulekitError
from rulekit.fileio import write_atomic
from rulekit.ir.data import read_csv
from rulekit.ir.model import Model


def format_value(v) -> str:
    """Exact text for a number (shortest round-trip repr), plain text for a label."""
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, np.generic):
        return str(v.item())
    return str(v)


def run(*, source: Path, data: Path, proba: bool, explain: bool, output: Path | None) -> int:
    obj = load_source(source)
    columns = read_csv(data)
    if obj.task != "classification" and proba:
        raise RulekitError("--proba needs a classifier; this model is a regressor")
    pred = obj.predict(columns)
    header = ["prediction"]
    cols = [[format_value(v) for v in pred]]
    if proba:
        P = obj.predict_proba(columns)
        for k, label in enumerate(obj.classes):
            header.append(f"proba:{label}")
            cols.append([format_value(p) for p in P[:, k]])
    if explain:
        if isinstance(obj, Model):
            from rulekit.rules import to_rules

            texts = to_rules(obj, simplify=False).explain(columns)
        else:
            texts = obj.explain(columns)
        header.append("explanation")
        cols.append([str(t) for t in texts])
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(zip(*cols))
    if output is None:
        sys.stdout.write(buf.getvalue())
    else:
        write_atomic(output, buf.getvalue())
    return 0
