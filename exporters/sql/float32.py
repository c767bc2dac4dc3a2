"""XGBoost's float32 arithmetic (``Combiner.arithmetic == "float32"``) in SQL.

Each addition is done in the engine's double and rounded to float32 by a CAST to its 4-byte float
type (then back to double, so every column stays a double holding a float32 value): rounding a
double sum or quotient of two float32 values gives the float32 result exactly, since double has more
than 2 x 24 + 2 bits. Sums go in tree order from the base score, as XGBoost adds them; the links
follow :mod:`rulekit.ir.float32` (exp in double rounded once, softmax's exps summed in double left
to right). PostgreSQL raises an error when a double rounds to a float32 zero, so values that may
be that small become 0 first. Dialects without a 4-byte float (SQLite, BigQuery, Snowflake) keep
float64 sums and say so in a header comment.

T-SQL (:data:`CHAINED`) cannot nest one CAST per tree (50 per stage: sqlglot's parser recurses past
Python's limit and SQL Server nests at most 32 levels), so each partial sum is a one-row table of
its own, joined to the previous one (:func:`chain`): ``... CROSS APPLY (SELECT CAST(CAST(c3.v + <tree
4> AS REAL) AS DOUBLE PRECISION) AS v) AS c4``, flat at any length, the same additions in the same
order. docs/engines.md ("T-SQL") says how it was checked without a SQL Server.
"""

from __future__ import annotations

import numpy as np

from rulekit.exporters.sql.dialect import Dialect

# dialect -> (4-byte float type, double type) for CAST
TYPES = {"postgres": ("REAL", "DOUBLE PRECISION"), "duckdb": ("FLOAT", "DOUBLE"),
         "spark": ("FLOAT", "DOUBLE"), "mysql": ("FLOAT", "DOUBLE"), "tsql": ("REAL", "DOUBLE PRECISION")}
# dialect -> its lateral join of a one-row table (:func:`chain`); CHAINED: the dialects whose staged
# float32 sums are such chains (the others nest the CASTs; tests chain DuckDB and PostgreSQL as well)
LATERAL = {"tsql": "CROSS APPLY", "duckdb": "CROSS JOIN LATERAL", "postgres": "CROSS JOIN LATERAL"}
CHAINED = {"tsql"}
TINY = 2.0 ** -150  # doubles at most this small round to a float32 zero (ties to even)
CLAMP = float(np.float32(88.7))  # XGBoost's sigmoid: exp(min(-x, 88.7f))
EPS = float(np.float32(1e-16))
EXP_FLOOR = -700.0  # exp of anything below is a float32 zero; PostgreSQL's EXP errors on underflow
BOUND = ("/* XGBoost sums its trees in float32; {name} has no 4-byte float type, so this query sums "
         "in float64: values differ from XGBoost's by a few float32 ulps of the running sum "
         "(measured: up to 0.095 on regression values near 1e4, 2.9e-7 in probabilities; labels "
         "equal) */\n")


AVERAGE_BOUND = ("/* onnxruntime sums this forest's probabilities in float32; {name} has no 4-byte float "
                 "type, so this query averages in float64: probabilities differ from onnxruntime's by "
                 "at most (n_trees + 2) float32 half-ulps of 1 (measured: 4.2e-7 at 50 trees), and a row "
                 "whose probabilities tie may get the other label (measured: 39 of 1,500 rows) */\n")


def supported(d: Dialect) -> bool:
    return d.name in TYPES


def header(d: Dialect, kind: str = "sum") -> str:
    """The comment put before a float32 model's query where the sums stay float64 (``kind``: the
    combiner's, "average" for onnxruntime's float forests)."""
    return "" if supported(d) else (AVERAGE_BOUND if kind == "average" else BOUND).format(name=d.name)


def r32(d: Dialect, x: str) -> str:
    """``x`` rounded to float32 (a double holding it)."""
    f, dbl = TYPES[d.name]
    return f"CAST(CAST({x} AS {f}) AS {dbl})"


def r32_small(d: Dialect, x: str) -> str:
    """:func:`r32` of a non-negative ``x`` that may round to zero."""
    return f"(CASE WHEN {x} <= {d.number(TINY)} THEN {d.number(0.0)} ELSE {r32(d, x)} END)"


def add(d: Dialect, terms: list[str]) -> str:
    """``terms`` added left to right, each partial sum rounded to float32."""
    total = terms[0]
    for t in terms[1:]:
        total = r32(d, f"{total} + {t}")
    return total


def chained(d: Dialect) -> bool:
    return d.name in CHAINED


def chain(d: Dialect, names, sums: list[list[str]], tag: str) -> tuple[list[tuple[str, str]], list[str]]:
    """Each list of ``sums`` added left to right in float32, one addition per one-row table: the
    tables as (alias, SELECT) in join order, and the expression reading each sum (its start term
    when nothing is added). ``tag`` keeps the aliases of one query's stages apart."""
    tables: list[tuple[str, str]] = []
    col = names.internal("v")
    refs = []
    for k, terms in enumerate(sums):
        total = terms[0]
        for j, t in enumerate(terms[1:]):
            alias = names.internal(f"c{tag}_{k}_{j}")
            tables.append((alias, f"SELECT {r32(d, f'{total} + {t}')} AS {col}"))
            total = f"{alias}.{col}"
        refs.append(total)
    return tables, refs


def joined(d: Dialect, base: str | None, tables: list[tuple[str, str]]) -> str:
    """``base`` (or the first table, where there is none) joined laterally to each table in turn."""
    parts = [base] if base is not None else []
    for alias, body in tables:
        table = f"({body}) AS {alias}"
        parts.append(f"{LATERAL[d.name]} {table}" if parts else table)
    return " ".join(parts)


def fold(d: Dialect, names, terms: list[str]) -> str:
    """:func:`add` as the dialect's fold over a flat list (``Dialect.sum_fold``)."""
    if len(terms) == 1:
        return terms[0]
    step = d.sum_fold.replace("{acc} + {x}", r32(d, "{acc} + {x}"))
    return step.format(first=terms[0], terms=", ".join(terms[1:]), acc=names.internal("f"),
                       x=names.internal("t"))


def sigmoid(d: Dialect, a: str) -> str:
    """P(class 1) from the float32 margin ``a``: ``1 / ((e + 1) + 1e-16)``, ``e = exp(min(-a, 88.7))``."""
    num = d.number
    neg = f"-({a})"
    z = (f"CASE WHEN {neg} > {num(CLAMP)} THEN {num(CLAMP)} WHEN {neg} < {num(EXP_FLOOR)} "
         f"THEN {num(EXP_FLOOR)} ELSE {neg} END")
    e = r32_small(d, f"EXP({z})")
    denominator = r32(d, f"{r32(d, f'{e} + {num(1.0)}')} + {num(EPS)}")
    return r32(d, f"{num(1.0)} / {denominator}")


def complement(d: Dialect, p1: str) -> str:
    """``1 - p1`` in float32."""
    return r32(d, f"{d.number(1.0)} - {p1}")


def exps(d: Dialect, sums: list[str], m: str) -> list[str]:
    """Softmax's ``exp(a_k - max)``: the difference in float32, exp in double rounded to float32."""
    lo = d.number(EXP_FLOOR)
    out = []
    for a in sums:
        x = r32(d, f"{a} - {m}")
        out.append(r32_small(d, f"EXP(CASE WHEN {x} < {lo} THEN {lo} ELSE {x} END)"))
    return out


def ratios(d: Dialect, e: list[str], total: str) -> list[str]:
    """Each exp divided by the float32 of ``total`` (their left-to-right double sum), in float32."""
    t = r32(d, total)
    return [r32_small(d, f"{ek} / {t}") for ek in e]
