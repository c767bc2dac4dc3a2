"""A :class:`rulekit.diffing.Diff` as text (people), JSON (programs) or CSV (one change per line).

CSV columns: ``what`` (rule-added, rule-removed, rule-changed, region, row), ``id`` (rule id, or the
row's 0-based index), ``kind`` (changed fields; label/proba/value for regions), ``before``,
``after``, ``where`` (a region's condition; a row's CSV line), ``target``.
"""

from __future__ import annotations

import csv
import io

from rulekit.diffing import Diff

TEXT_ROWS = 20


def to_json(d: Diff) -> str:
    return d.model_dump_json(indent=2) + "\n"


def to_csv(d: Diff, max_regions: int) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["what", "id", "kind", "before", "after", "where", "target"])
    for r in d.rules:
        w.writerow([f"rule-{r.kind}", r.id or "", "|".join(r.fields), r.before or "", r.after or "", "", ""])
    for g in d.regions[:max_regions]:
        w.writerow(["region", "", g.kind, g.before, g.after, g.condition, ""])
    if d.rows is not None:
        for i, (before, after, line, target) in zip(d.rows.changed_rows, d.rows.changed_outcomes):
            w.writerow(["row", i, "", before, after, line or "", "" if target is None else target])
    return buf.getvalue()


def to_text(d: Diff, a: str, b: str, max_regions: int) -> str:
    out: list[str] = [f"--- {a}", f"+++ {b}"]
    if d.rules_compared:
        out.append(f"rules: {d.rules_added:,} added, {d.rules_removed:,} removed, {d.rules_changed:,} changed")
        for r in d.rules:
            label = f" {r.id}" if r.id is not None else ""
            if r.kind == "removed":
                out.append(f"  - rule{label}: {r.before}")
            elif r.kind == "added":
                out.append(f"  + rule{label}: {r.after}")
            else:
                out.append(f"  ~ rule{label} ({', '.join(r.fields)}):")
                out.append(f"      before: {r.before}")
                out.append(f"      after:  {r.after}")
        shown = len(d.rules)
        total = d.rules_added + d.rules_removed + d.rules_changed
        if total > shown:
            out.append(f"  ... and {total - shown:,} more")
    else:
        out.append(f"rules: {d.rules_note}")
    if d.regions_computed:
        if not d.n_regions:
            out.append("regions: none: A and B give the same output on every input")
        else:
            out.append(regions_line(d))
            for g in d.regions[:max_regions]:
                what = {"label": f"{g.before} -> {g.after}", "value": f"{g.before!r} -> {g.after!r}",
                        "proba": f"{g.before} (probabilities change)"}[g.kind]
                out.append(f"  {what}: {g.condition}")
            if d.n_regions > min(max_regions, len(d.regions)):
                out.append(f"  ... and {d.n_regions - min(max_regions, len(d.regions)):,} more")
    else:
        out.append(d.regions_note or "regions: not computed")
    rows = d.rows
    if rows is not None:
        line = f"rows: {rows.changed:,} of {rows.rows:,} change their prediction"
        if d.task == "classification":
            line += f", {rows.proba_changed:,} more only their probabilities"
            if rows.max_abs_dproba is not None:
                line += f"; |dp| max {rows.max_abs_dproba:.4g}, mean {rows.mean_abs_dproba:.4g}"
        elif rows.max_abs_dvalue is not None:
            line += f"; |dvalue| max {rows.max_abs_dvalue:.6g}"
        out.append(line)
        for e in rows.examples[:TEXT_ROWS]:
            where = f"line {e.line}" if e.line is not None else f"row {e.row}"
            tgt = f" (target {e.target})" if e.target is not None else ""
            out.append(f"  {where}: {e.before} -> {e.after}{tgt}")
        if rows.changed > TEXT_ROWS:
            out.append(f"  ... and {rows.changed - TEXT_ROWS:,} more")
        c = rows.confusion
        if c is not None and c.unknown_targets and c.unknown_targets >= rows.rows:
            out.append(f"accuracy: not measured: no row's target is one of the classes "
                       f"({', '.join(map(str, c.classes))})")
        elif c is not None:
            out.append(f"accuracy: {c.accuracy_before:.4f} -> {c.accuracy_after:.4f}"
                       + (f" ({c.unknown_targets:,} rows with an unknown target not counted)"
                          if c.unknown_targets else ""))
            out.extend(_confusion_lines(c))
        if rows.mse_before is not None:
            out.append(f"mse: {rows.mse_before:.6g} -> {rows.mse_after:.6g}")
    return "\n".join(out) + "\n"


def regions_line(d: Diff) -> str:
    """How many regions differ, and in what: labels (values), or only probabilities (the labels
    then agree on every input; the exit code still says the outputs differ)."""
    p = d.n_proba_regions
    changed = d.n_regions - p
    what = "values" if d.task == "regression" else "labels"
    if not changed:
        return (f"regions where only the probabilities differ: {p:,} "
                f"(the {what} agree on every input)")
    return (f"regions where the {what} differ: {changed:,}"
            + (f"; where only the probabilities differ: {p:,}" if p else ""))


def _confusion_lines(c) -> list[str]:
    names = [str(x) for x in c.classes]
    head = ["true \\ predicted"] + [f"{n} (A->B)" for n in names]
    rows = [[n] + [f"{x}->{y}" for x, y in zip(ra, rb)] for n, ra, rb in zip(names, c.before, c.after)]
    widths = [max(len(r[k]) for r in [head] + rows) for k in range(len(head))]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in [head] + rows]
