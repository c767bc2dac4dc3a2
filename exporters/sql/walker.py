"""A tree as a table walked inside SQL: constant arrays plus one small loop (Spark SQL, DuckDB).

Why: Spark compiles each query stage to Java, and a tree written as CASE costs code in proportion
to its nodes. A 100-tree depth-8 forest exceeds the JVM's 64 KB method limit, Spark retries
without whole-stage code generation, and parsing, analysis and compilation took minutes. DuckDB
runs a nested CASE in ~12 ns per tree and row plus ~2 ns per leaf (small selection vectors at every
node), a walk in ~40 ns per step whatever the size: so DuckDB walks only trees with at least 16
leaves per level of depth (a 100-tree depth-8 forest scored 1.4-1.6x faster; depth-6 forests and
boosting's small trees stay CASE, which is 1.2-4x faster for them).
Here a tree costs the same few expressions at any size; its nodes live in four constant arrays,
written as one string each (a string is one token to parse; Spark reads 17-digit decimals back
exactly, DuckDB's parser is exact on the shortest round-trip text, which halves the size). In Spark's spelling::

    aggregate(sequence(1, depth), 1, (n, i) ->
        IF(coalesce(element_at(xs, abs(f[n])) <= t[n], f[n] < 0), left[n], right[n]))

``xs`` holds the row's numeric features (``array(x1, ..., xk)``, one column computed once per
row); ``f[n]`` is the position of node ``n``'s feature in ``xs``, negative when missing values go
left (``coalesce`` sends NULL there; a NULL test goes right otherwise); ``t[n]`` is the canonical
float64 boundary (``x <= t``, :mod:`rulekit.semantics`), infinities included. Leaves loop to
themselves, so ``depth`` steps end on a leaf whatever its depth. The caller picks leaf outputs
from arrays indexed by node with the walk as index. Spark gets the walk written once per output
in the same SELECT: one common subexpression, evaluated once in its own small generated method (so
the JIT compiles it); DuckDB gets it as a column one stage ahead (the SQL stays half the size). Nodes are numbered breadth first (1-based); nothing
here recurses. Only numeric splits; other trees keep the CASE form. Each engine's spelling is a
:class:`Syntax`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rulekit import semantics


@dataclass(frozen=True)
class Syntax:
    """How one engine spells the walk: templates filled with ``str.format``."""

    row: str  # an array of {values} computed per row
    ints: str  # a constant integer array from {values}, comma-separated digits
    doubles: str  # a constant double array from {values}, 17-digit decimals or {inf} spellings
    at: str  # the {index}-th (1-based) element of {array}
    loop: str  # {steps} repetitions of {body} over accumulator {n} (starting at 1), counter {i}
    choose: str  # {yes} if {test} else {no}
    inf: str = "Infinity"  # how the double array's text writes positive infinity
    leaves_per_step: float = 0.0  # walk only trees with at least this many leaves per step (0: all)
    shortest: bool = False  # doubles in arrays as Python's shortest round-trip text (exact parser)
    ahead: bool = False  # a walk feeding several sums becomes a column one stage ahead (else repeated)

    def text(self, v: float) -> str:
        if v == math.inf:
            return self.inf
        if v == -math.inf:
            return "-" + self.inf
        return repr(float(v)) if self.shortest else semantics.exact17(float(v))

    def int_array(self, values: list[int]) -> str:
        return self.ints.format(values=",".join(str(int(v)) for v in values))

    def double_array(self, values: list[float]) -> str:
        """Reads back bit for bit (infinities allowed, no NaN)."""
        return self.doubles.format(values=",".join(self.text(v) for v in values))


SPARK = Syntax(
    row="array({values})", ints="CAST(split('{values}', ',') AS ARRAY<INT>)",
    doubles="CAST(split('{values}', ',') AS ARRAY<DOUBLE>)", at="element_at({array}, {index})",
    loop="aggregate(sequence(1, {steps}), 1, ({n}, {i}) -> {body})", choose="IF({test}, {yes}, {no})",
)
DUCKDB = Syntax(
    row="[{values}]", ints="CAST('[{values}]' AS INTEGER[])", doubles="CAST('[{values}]' AS DOUBLE[])",
    at="{array}[{index}]", loop="list_reduce(range({steps}), lambda {n}, {i}: {body}, 1)",
    choose="CASE WHEN {test} THEN {yes} ELSE {no} END", inf="inf", leaves_per_step=16.0, shortest=True, ahead=True,
)


class Walk:
    """One tree laid out for the walk: node numbering, the walk expression, value arrays."""

    def __init__(self, tree_sql, slot: dict[int, int], xs: str, var: tuple[str, str], syntax: Syntax):
        """``tree_sql``: a prepared :class:`~rulekit.exporters.sql.trees.TreeSQL` with numeric
        splits only; ``slot``: 1-based position in ``xs`` of each used feature index; ``var``: the
        lambda's two variable names (quoted, distinct from every column name: a lambda variable
        hides a column of the same name); ``syntax``: the engine's spelling."""
        self.syntax = syntax
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
        sx = syntax
        fn = sx.at.format(array=sx.int_array(f), index=n)
        test = (f"coalesce({sx.at.format(array=xs, index=f'abs({fn})')} <= "
                f"{sx.at.format(array=sx.double_array(t), index=n)}, {fn} < 0)")
        body = sx.choose.format(test=test, yes=sx.at.format(array=sx.int_array(left), index=n),
                                no=sx.at.format(array=sx.int_array(right), index=n))
        self.expr = sx.loop.format(steps=steps, n=n, i=i, body=body)

    def pick(self, leaves: list, values: list[float], number, node: str | None = None) -> str:
        """``values[p]`` for the leaf ``leaves[p]`` the walk ends on; ``number`` writes a constant
        (when every leaf agrees); ``node``: a column already holding the walk's end."""
        if len(set(values)) == 1:
            return number(values[0])
        arr = [0.0] * self.size
        for leaf, v in zip(leaves, values):
            arr[self.index[leaf] - 1] = v
        return self.syntax.at.format(array=self.syntax.double_array(arr), index=node or self.expr)


def walkable(tree_sql, syntax: Syntax) -> bool:
    """Only numeric splits on plain features (no nominal or oblique tests), and only trees with
    enough leaves per walk step for ``syntax`` (a walk always takes ``depth`` steps)."""
    if not all(info[0] == "n" and info[1][0] == "n" for info in tree_sql.info.values()):
        return False
    if syntax.leaves_per_step <= 0:
        return True
    depth = {tree_sql.root: 0}
    stack = [tree_sql.root]
    leaves = 0
    while stack:
        n = stack.pop()
        kids = tree_sql.kids.get(n, ())
        leaves += not kids
        for k in kids:
            depth[k] = depth[n] + 1
            stack.append(k)
    return leaves >= syntax.leaves_per_step * max(depth.values())


__all__ = ["DUCKDB", "SPARK", "Syntax", "Walk", "walkable"]
