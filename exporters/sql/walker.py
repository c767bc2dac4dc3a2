"""A tree as a table walked inside SQL: constant arrays plus one small loop (Spark SQL).

Why: Spark compiles each query stage to Java, and a tree written as CASE costs code in proportion
to its nodes. A 100-tree depth-8 forest exceeds the JVM's 64 KB method limit, Spark retries
without whole-stage code generation, and parsing, analysis and compilation took minutes. Here a
tree costs the same few expressions at any size; its nodes live in four constant arrays, written
as one string each (``CAST(split('...', ',') AS ARRAY<DOUBLE>)``: a string is one token to parse,
and Java's ``Double.parseDouble`` reads 17-digit decimals back exactly)::

    aggregate(sequence(1, depth), 1, (n, i) ->
        IF(coalesce(element_at(xs, abs(f[n])) <= t[n], f[n] < 0), left[n], right[n]))

``xs`` holds the row's numeric features (``array(x1, ..., xk)``, one column computed once per
row); ``f[n]`` is the position of node ``n``'s feature in ``xs``, negative when missing values go
left (``coalesce`` sends NULL there; a NULL test goes right otherwise); ``t[n]`` is the canonical
float64 boundary (``x <= t``, :mod:`rulekit.semantics`), infinities included. Leaves loop to
themselves, so ``depth`` steps end on a leaf whatever its depth. The caller picks leaf outputs
with ``element_at(values, <walk>)`` from arrays indexed by node. Written once per output in the
same SELECT, the walk is one common subexpression that Spark evaluates once, in its own small
generated method (so the JIT compiles it). Nodes are numbered breadth first (1-based); nothing
here recurses. Only numeric splits; other trees keep the CASE form.
"""

from __future__ import annotations

import math

from rulekit import semantics


def _text(v: float) -> str:
    if v == math.inf:
        return "Infinity"
    if v == -math.inf:
        return "-Infinity"
    return semantics.exact17(float(v))


def ints(values: list[int]) -> str:
    """A constant ARRAY<INT>."""
    return "CAST(split('" + ",".join(str(int(v)) for v in values) + "', ',') AS ARRAY<INT>)"


def doubles(values: list[float]) -> str:
    """A constant ARRAY<DOUBLE> that reads back bit for bit (infinities allowed, no NaN)."""
    return "CAST(split('" + ",".join(_text(v) for v in values) + "', ',') AS ARRAY<DOUBLE>)"


class Walk:
    """One tree laid out for the walk: node numbering, the walk expression, value arrays."""

    def __init__(self, tree_sql, slot: dict[int, int], xs: str, var: tuple[str, str]):
        """``tree_sql``: a prepared :class:`~rulekit.exporters.sql.trees.TreeSQL` with numeric
        splits only; ``slot``: 1-based position in ``xs`` of each used feature index; ``var``: the
        lambda's two variable names (quoted, distinct from every column name: a lambda variable
        hides a column of the same name)."""
        order = [tree_sql.root]
        depth = {tree_sql.root: 0}
        i = 0
        while i < len(order):
            n = order[i]
            i += 1
            for k in tree_sql.kids.get(n, ()):
                depth[k] = depth[n] + 1
                order.append(k)
        self.index = {n: j + 1 for j, n in enumerate(order)}
        f, t, left, right = [], [], [], []
        for n in order:
            if n in tree_sql.kids:
                _, key, _, b, m = tree_sql.info[n]
                f.append(slot[key[1]] * (-1 if m == 0 else 1))
                t.append(b)
                left.append(self.index[tree_sql.kids[n][0]])
                right.append(self.index[tree_sql.kids[n][1]])
            else:
                f.append(1)
                t.append(0.0)
                left.append(self.index[n])
                right.append(self.index[n])
        self.size = len(order)
        steps = max(depth.values())
        if steps == 0:
            self.expr = "1"
            return
        n, i = var
        fn = f"element_at({ints(f)}, {n})"
        self.expr = (f"aggregate(sequence(1, {steps}), 1, ({n}, {i}) -> IF(coalesce(element_at({xs}, abs({fn})) <= "
                     f"element_at({doubles(t)}, {n}), {fn} < 0), element_at({ints(left)}, {n}), "
                     f"element_at({ints(right)}, {n})))")

    def pick(self, leaves: list, values: list[float], number) -> str:
        """``values[p]`` for the leaf ``leaves[p]`` the walk ends on; ``number`` writes a constant
        (when every leaf agrees)."""
        if len(set(values)) == 1:
            return number(values[0])
        arr = [0.0] * self.size
        for leaf, v in zip(leaves, values):
            arr[self.index[leaf] - 1] = v
        return f"element_at({doubles(arr)}, {self.expr})"


def walkable(tree_sql) -> bool:
    """Only numeric splits on plain features (no nominal or oblique tests)."""
    return all(info[0] == "n" and info[1][0] == "n" for info in tree_sql.info.values())


__all__ = ["Walk", "doubles", "ints", "walkable"]
