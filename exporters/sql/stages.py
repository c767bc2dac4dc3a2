"""Where a SQL export computes things: ``WITH`` stages (or nested derived tables for a bare
expression), and the staged sums of every unit's contributions in unit order (:func:`accumulate`),
a unit feeding several sums evaluated once as a leaf id or a walk."""

from __future__ import annotations

import math
from collections.abc import Callable

from rulekit import semantics
from rulekit.errors import ExportError
from rulekit.exporters.sql import expr
from rulekit.exporters.sql import float32 as f32
from rulekit.exporters.sql.dialect import Dialect
from rulekit.exporters.sql.names import Names
from rulekit.exporters.sql.spec import Spec, Terms
from rulekit.exporters.sql.units import TreeUnit, size
from rulekit.exporters.sql.walker import Walk, walkable


class StagedQuery:
    """Collects stages as CTEs over the table, or for a bare expression as nested derived tables
    (or correlated CTEs inside the scalar subquery, where the dialect's parser nests poorly)."""

    def __init__(self, d: Dialect, names: Names, carry: list[str]):
        self.d = d
        self.names = names
        self.carry = carry
        self.stages: list[tuple[str, str, bool]] = []  # (name, body, materialized)
        self.bare = names.table is None
        self.prev = names.table

    def stage(self, items: list[str], *, features: bool, tables: list[tuple[str, str]] = ()) -> None:
        """A stage selecting ``items`` (plus the key, and the feature columns when ``features``);
        ``tables``: one-row tables joined laterally after the previous stage (:func:`f32.chain`)."""
        name = self.names.internal(f"s{len(self.stages) + 1}")
        every = self.d.materialize_every
        mat = bool(every) and len(self.stages) % every == every - 1
        if self.bare:
            body = "SELECT " + ", ".join(items)
            if self.stages:
                if self.d.bare_with:
                    body += " FROM " + f32.joined(self.d, self.stages[-1][0], tables) + self.d.stage_suffix
                else:
                    body += " FROM " + f32.joined(self.d, f"({self.stages[-1][1]}) AS {self.stages[-1][0]}", tables)
            elif tables:
                body += " FROM " + f32.joined(self.d, None, tables)
        else:
            cols = (self.carry if features else ([self.names.key] if self.names.key else [])) + items
            src = f32.joined(self.d, self.prev, tables)
            body = f"SELECT {', '.join(cols)} FROM {src}{'' if mat else self.d.stage_suffix}"
        self.stages.append((name, body, mat))
        self.prev = name

    def select(self, items: list[str]) -> str:
        if self.bare:
            if not self.stages:
                return items[0]
            last = self.stages[-1]
            if self.d.bare_with:
                stages = ", ".join(f"{n} AS {'MATERIALIZED ' if m else ''}({b})" for n, b, m in self.stages)
                return f"(WITH {stages} SELECT {items[0]} FROM {last[0]})"
            check_bare_depth(self.d, len(self.stages))
            return f"(SELECT {items[0]} FROM ({last[1]}) AS {last[0]})"
        cols = ([self.names.key] if self.names.key else []) + items
        head = ""
        if self.d.max_ctes is not None and len(self.stages) > self.d.max_ctes:
            raise ExportError(f"this source needs {len(self.stages)} stages and {self.d.name} takes at most "
                              f"{self.d.max_ctes} in one query (WITH elements); it is too big for this engine")
        if self.stages:
            head = "WITH " + ",\n".join(f"{n} AS {'MATERIALIZED ' if m else ''}({b})"
                                        for n, b, m in self.stages) + "\n"
        sep = ",\n  "
        return f"{head}SELECT\n  {sep.join(cols)}\nFROM {self.prev}"


def check_bare_depth(d: Dialect, depth: int) -> None:
    if d.bare_depth is not None and depth > d.bare_depth:
        raise ExportError(f"the bare {d.name} expression would nest {depth} subqueries (the engine allows "
                          f"{d.bare_depth}); pass a table (--table)")


def fold_sum(d: Dialect, names: Names, terms: list[str]) -> str:
    """``terms`` added left to right by the dialect's fold (``Dialect.sum_fold``): a flat list of
    terms, so the expression does not deepen with the number of terms."""
    if len(terms) == 1:
        return terms[0]
    return d.sum_fold.format(first=terms[0], terms=", ".join(terms[1:]), acc=names.internal("f"),
                             x=names.internal("t"))


def leaf_ids(unit) -> tuple[str, list[int]]:
    """``unit`` as a CASE giving a 1-based id per distinct payload, and a payload index per id."""
    seen: dict = {}
    texts = []
    for p, (v, c) in enumerate(zip(unit.vec, unit.cls)):
        key = (tuple(float(x).hex() for x in v), c)
        if key not in seen:
            seen[key] = (len(seen) + 1, p)
        texts.append(str(seen[key][0]))
    return unit.render(texts), [p for _, p in seen.values()]


def pick(d: Dialect, values: list[str], index: str) -> str:
    if len(set(values)) == 1:
        return values[0]
    return d.pick.format(values=", ".join(values), index=index)


def pick_doubles(d: Dialect, values: list[float], index: str) -> str:
    if len(set(values)) == 1 or d.pick_doubles is None or not all(math.isfinite(v) for v in values):
        return pick(d, [d.number(v) for v in values], index)  # d.number refuses infinities and NaN
    return d.pick_doubles.format(values=", ".join(semantics.exact17(v) for v in values), index=index)


def accumulate(spec: Spec, d: Dialect, b: StagedQuery, names: Names, width: int, init: list[str | None],
                terms: Terms) -> list[str]:
    """Stages summing every unit's contributions into ``width`` accumulators, in unit order.

    ``terms(i, unit)`` gives (accumulator, value per payload) pairs for unit ``i``. A unit feeding
    several accumulators is evaluated once, as a leaf id, when the dialect can pick a value from a
    list: the ids of batch j+1 are computed in the stage that sums batch j (engines plan deeply
    nested stages slowly, so there are as few as possible). Otherwise it is written once per
    accumulator."""
    acc = [names.internal(f"a{k}") for k in range(width)]
    step = max(1, min(50, d.batch))
    n = len(spec.units)
    if d.stage_leaves and n:
        mean = sum(size(u) for u in spec.units) / n
        step = max(1, min(step, int(d.stage_leaves // max(1.0, mean))))
    if d.max_stages:
        step = max(step, min(d.max_batch, -(-n // d.max_stages)))
    num = d.number
    walks = tree_walks(spec, d, names, staged_xs(b, names)) if d.walker and not b.bare else {}
    batches = [range(s, min(n, s + step)) for s in range(0, n, step)] or [range(0)]
    plans = []  # per batch: (id items, per-accumulator terms)
    for batch in batches:
        per: list[list[str]] = [[] for _ in range(width)]
        ids_items: list[str] = []
        for i in batch:
            u = spec.units[i]
            contrib = [(k, vals) for k, vals in terms(i, u) if any(v != 0.0 for v in vals)]  # + 0.0: no-op
            if i in walks and len(contrib) > 1 and d.walker.ahead:
                leaf = names.internal(f"l{i}")
                ids_items.append(f"{walks[i].expr} AS {leaf}")
                for k, vals in contrib:
                    per[k].append(walks[i].pick(u.leaves, vals, num, leaf))
            elif i in walks:
                for k, vals in contrib:
                    per[k].append(walks[i].pick(u.leaves, vals, num))
            elif d.pick is not None and not b.bare and len(contrib) > 1:
                leaf = names.internal(f"l{i}")
                ids, reps = leaf_ids(u)
                ids_items.append(f"{ids} AS {leaf}")
                for k, vals in contrib:
                    per[k].append(pick_doubles(d, [vals[r] for r in reps], leaf))
            else:
                for k, vals in contrib:
                    per[k].append(u.render([num(v) for v in vals]))
        plans.append((ids_items, per))
    if plans and plans[0][0]:
        b.stage(plans[0][0], features=True)
    # an engine that merges the stages sees one sum over every unit: fold it when it is long
    fold = d.sum_fold is not None and n > d.bare_sum
    chained = spec.f32 and f32.chained(d)
    for j, (_, per) in enumerate(plans):
        items = []
        sums: list[list[str]] = []  # chained: the terms of each sum, summed in one-row tables
        for k in range(width):
            if j == 0:
                parts = ([init[k]] if init[k] is not None else []) + per[k] or [num(0.0)]
            elif per[k]:
                parts = [acc[k]] + per[k]
            else:
                items.append(acc[k])
                continue
            if chained:
                sums.append(parts)
                items.append(len(sums) - 1)  # placeholder: the sum's reference, below
                continue
            if spec.f32:
                total = f32.fold(d, names, parts) if fold else f32.add(d, parts)
            else:
                total = fold_sum(d, names, parts) if fold else expr.sum_terms(parts)
            items.append(f"{total} AS {acc[k]}")
        tables: list[tuple[str, str]] = []
        if sums:
            tables, refs = f32.chain(d, names, sums, str(j))
            items = [f"{refs[it]} AS {acc[k]}" if isinstance(it, int) else it for k, it in enumerate(items)]
        last = j == len(plans) - 1
        b.stage(items + ([] if last else plans[j + 1][0]), features=not last, tables=tables)
    return acc


def tree_walks(spec: Spec, d: Dialect, names: Names, place: Callable[[str], str]) -> dict[int, Walk]:
    """Walks for the trees the dialect walks, reading ``xs``, the array of the features they test:
    ``place(array expression)`` says where it is computed once and returns how the walks read it."""
    trees = [i for i, u in enumerate(spec.units) if isinstance(u, TreeUnit) and walkable(u.tree, d.walker)]
    if not trees:
        return {}
    used = sorted({info[1][1] for i in trees for info in spec.units[i].tree.info.values()})
    slot = {j: p + 1 for p, j in enumerate(used)}
    cols = spec.units[trees[0]].tree.cols.names
    xs = place(d.walker.features([cols[j] for j in used]))
    var = (names.internal("n"), names.internal("i"))
    return {i: Walk(spec.units[i].tree, slot, xs, var, d.walker) for i in trees}


def staged_xs(b: StagedQuery, names: Names) -> Callable[[str], str]:
    """``xs`` as a column of its own stage, carried through the following stages."""
    def place(features: str) -> str:
        xs = names.internal("xs")
        b.stage([f"{features} AS {xs}"], features=True)
        b.carry = b.carry + [xs]
        return xs
    return place


__all__ = ["StagedQuery", "accumulate", "check_bare_depth", "fold_sum", "leaf_ids", "pick", "pick_doubles",
           "staged_xs", "tree_walks"]
