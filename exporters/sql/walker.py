"""A tree as a table walked inside SQL: constant arrays plus one small loop (Spark SQL, DuckDB).

Why: a tree written as CASE costs code in proportion to its nodes, which Spark compiles to Java
(beyond the JVM's 64 KB method limit for big forests) and DuckDB runs slower than a walk for big
trees: DuckDB walks only trees with at least ``Syntax.leaves_per_step`` leaves per level of depth.
Here a tree costs the same few expressions at any size; its nodes live in three constant arrays,
written as one string each (one token to parse; read back exactly). In Spark's spelling::

    aggregate(sequence(1, depth), 1, (n, i) -> left[n] + CAST(element_at(xs, f[n]) > t[n] AS INT))

``xs`` holds the row's numeric features twice, computed once per row: first with NULL read as
-inf (no boundary is below it, so NULL goes left), then with NULL read as NaN (both engines order
NaN above every number, +inf included, so NULL goes right). ``f[n]`` is the position in ``xs`` of
node ``n``'s feature, in the half matching its missing side, and ``t[n]`` its canonical float64
boundary (``x <= t`` goes left, :mod:`rulekit.semantics`), infinities included. Nodes are
numbered breadth first (1-based), so a right child is its left sibling plus one. A leaf is its
own left child with ``t = NaN``: ``x > NaN`` is false for every x, NaN included, so ``depth``
steps end on a leaf whatever its depth. A NaN stored in a row (SQL's missing value is NULL) goes
right at every finite split, as in the CASE form.

In DuckDB the walk starts from a CASE over the top levels (``Syntax.case_levels``, :func:`_start`),
where a CASE level is cheaper than a walk step; Spark walks from the root. The caller picks leaf
outputs from arrays indexed by node with the walk as index; a walk feeding several outputs is a
column one stage ahead (``Syntax.ahead``), or in the bare form a value bound once. Nothing here
recurses. Only numeric splits; other trees keep the CASE form. Each engine's spelling is a
:class:`Syntax`. Costs per step and level, and the layouts tried: docs/engines.md ("The tree walk").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rulekit import semantics


@dataclass(frozen=True)
class Syntax:
    """How one engine spells the walk: templates filled with ``str.format``."""

    row: str  # an array of {values} computed per row
    double: str  # a double constant from its {text} (as written in a double array)
    ints: str  # a constant integer array from {values}, comma-separated digits
    doubles: str  # a constant double array from {values}, decimals or the inf/NaN spellings
    at: str  # the {index}-th (1-based) element of {array}
    loop: str  # {steps} repetitions of {body} over accumulator {n} (starting at {start}), counter {i}
    to_int: str  # boolean {test} as 0 or 1
    inf: str = "Infinity"  # how the double array's text writes positive infinity
    nan: str = "NaN"
    leaves_per_step: float = 0.0  # walk only trees with at least this many leaves per step (0: all)
    case_levels: int = 0  # the top levels as a CASE choosing where the walk starts (0: walk from the root)
    shortest: bool = False  # doubles in arrays as Python's shortest round-trip text (exact parser)
    ahead: bool = False  # a walk feeding several sums becomes a column one stage ahead (else repeated)

    def text(self, v: float) -> str:
        if v != v:
            return self.nan
        if v == math.inf:
            return self.inf
        if v == -math.inf:
            return "-" + self.inf
        return repr(float(v)) if self.shortest else semantics.exact17(float(v))

    def features(self, cols: list[str]) -> str:
        """The row's array ``xs``: each column with NULL read as -inf, then each with NULL as NaN."""
        lo, nan = self.double.format(text="-" + self.inf), self.double.format(text=self.nan)
        return self.row.format(values=", ".join([f"coalesce({c}, {lo})" for c in cols]
                                                + [f"coalesce({c}, {nan})" for c in cols]))

    def int_array(self, values: list[int]) -> str:
        return self.ints.format(values=",".join(str(int(v)) for v in values))

    def double_array(self, values: list[float]) -> str:
        """Reads back bit for bit (infinities and NaN allowed)."""
        return self.doubles.format(values=",".join(self.text(v) for v in values))


SPARK = Syntax(
    row="array({values})", double="CAST('{text}' AS DOUBLE)", ints="CAST(split('{values}', ',') AS ARRAY<INT>)",
    doubles="CAST(split('{values}', ',') AS ARRAY<DOUBLE>)", at="element_at({array}, {index})",
    loop="aggregate(sequence(1, {steps}), {start}, ({n}, {i}) -> {body})", to_int="CAST({test} AS INT)", ahead=True,
)
DUCKDB = Syntax(
    row="[{values}]", double="'{text}'::DOUBLE", ints="CAST('[{values}]' AS INTEGER[])", doubles="CAST('[{values}]' AS DOUBLE[])",
    at="{array}[{index}]", loop="list_reduce(range({steps}), lambda {n}, {i}: {body}, {start})",
    to_int="({test})::INTEGER", inf="inf", leaves_per_step=12.0, case_levels=3, shortest=True, ahead=True,
)


class Walk:
    """One tree laid out for the walk: node numbering, the walk expression, value arrays."""

    def __init__(self, tree_sql, slot: dict[int, int], xs: str, var: tuple[str, str], syntax: Syntax):
        """``tree_sql``: a prepared :class:`~rulekit.exporters.sql.trees.TreeSQL` that is
        :func:`walkable` (at least one split); ``slot``: 1-based position in ``xs`` of each used feature index; ``var``: the
        lambda's two variable names (quoted, distinct from every column name: a lambda variable
        hides a column of the same name); ``syntax``: the engine's spelling."""
        self.syntax = syntax
        order, depth = _breadth_first(tree_sql)
        steps = max(depth.values())
        self.index = {n: j + 1 for j, n in enumerate(order)}
        f, t, left = [], [], []
        for n in order:
            if n in tree_sql.kids:
                _, key, _, b, m = tree_sql.info[n]
                lo, hi = tree_sql.kids[n]
                assert self.index[hi] == self.index[lo] + 1  # breadth first: siblings adjacent
                f.append(slot[key[1]] + (0 if m == 0 else len(slot)))  # NULL as -inf / as NaN
                t.append(math.nan if b == math.inf and m == 0 else b)  # never right, as the CASE form
                left.append(self.index[lo])
            else:
                f.append(1)
                t.append(math.nan)
                left.append(self.index[n])
        self.size = len(order)
        n, i = var
        sx = syntax
        top = min(sx.case_levels, steps)
        start = _start(tree_sql, order, depth, self.index, t, top, sx) if top else "1"
        fn = sx.at.format(array=sx.int_array(f), index=n)
        right = f"{sx.at.format(array=xs, index=fn)} > {sx.at.format(array=sx.double_array(t), index=n)}"
        body = f"{sx.at.format(array=sx.int_array(left), index=n)} + {sx.to_int.format(test=right)}"
        self.expr = sx.loop.format(steps=steps - top, n=n, i=i, body=body, start=start) if steps > top else start

    def pick(self, leaves: list, values: list[float], number, node: str | None = None) -> str:
        """``values[p]`` for the leaf ``leaves[p]`` the walk ends on; ``number`` writes a constant
        (when every leaf agrees); ``node``: a column already holding the walk's end."""
        if len(set(values)) == 1:
            return number(values[0])
        for v in values:
            number(v)  # refuses what the dialect cannot write (infinities), as the CASE form does
        arr = [0.0] * self.size
        for leaf, v in zip(leaves, values):
            arr[self.index[leaf] - 1] = v
        return self.syntax.at.format(array=self.syntax.double_array(arr), index=node or self.expr)


def _start(tree_sql, order: list, depth: dict, index: dict, t: list[float], levels: int, sx: Syntax) -> str:
    """The node the walk stands on after its first ``levels`` steps, as a nested CASE on the columns
    themselves: in DuckDB a CASE level is cheap while its selection vectors are large (the top of a
    tree), a walk step three array reads (see the module's docstring for the costs). Each
    test is the walk's own: ``coalesce(x, -inf) > t`` is ``x > t`` with NULL on the ELSE side,
    ``coalesce(x, NaN) > t`` is ``NOT (x <= t)`` with NULL on the ELSE side (NaN sorts above every
    double in both engines), and a NaN boundary (never right) is no test. Built bottom up."""
    text: dict = {}
    for n in reversed(order):
        j = index[n]
        if n not in tree_sql.kids or depth[n] >= levels:
            text[n] = str(j)
            continue
        _, _, col, _, m = tree_sql.info[n]
        lo, hi = (text[k] for k in tree_sql.kids[n])
        b = t[j - 1]
        lit = sx.double.format(text=sx.text(b))
        if b != b:
            text[n] = lo
        elif m == 0:
            text[n] = f"CASE WHEN {col} > {lit} THEN {hi} ELSE {lo} END"
        else:
            text[n] = f"CASE WHEN {col} <= {lit} THEN {lo} ELSE {hi} END"
    return text[tree_sql.root]


def _breadth_first(tree_sql) -> tuple[list, dict]:
    """The nodes in breadth-first order (siblings adjacent) and each node's depth; no recursion."""
    order = [tree_sql.root]
    depth = {tree_sql.root: 0}
    i = 0
    while i < len(order):
        n = order[i]
        i += 1
        for k in tree_sql.kids.get(n, ()):
            depth[k] = depth[n] + 1
            order.append(k)
    return order, depth


def walkable(tree_sql, syntax: Syntax) -> bool:
    """Only numeric splits on plain features (no nominal or oblique tests), and only trees with
    enough leaves per walk step for ``syntax`` (a walk always takes ``depth`` steps)."""
    if not tree_sql.kids or not all(info[0] == "n" and info[1][0] == "n" for info in tree_sql.info.values()):
        return False  # a single leaf is a constant; nominal and oblique tests stay CASE
    if syntax.leaves_per_step <= 0:
        return True
    order, depth = _breadth_first(tree_sql)
    return len(order) - len(tree_sql.kids) >= syntax.leaves_per_step * max(depth.values())


__all__ = ["DUCKDB", "SPARK", "Syntax", "Walk", "walkable"]
