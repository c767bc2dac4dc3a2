"""What one SQL dialect is: data, not code. Quoting, literals, limits and a few function spellings.

Every dialect module (``sqlite.py``, ``postgres.py`` ...) defines ``DIALECT = Dialect(...)``; the
generator asks it how to write an identifier, a string, a double, a truncation or a maximum, and how
deep it may nest CASE. Identifiers and strings are quoted and escaped by sqlglot for that dialect.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from rulekit import semantics
from rulekit.errors import ExportError
from rulekit.exporters import DIALECT_ALIASES, DIALECTS
from rulekit.exporters.sql.walker import Syntax

NAMES = tuple(DIALECTS)  # the registry's list (rulekit.exporters); each name has an entry below
ALIASES = DIALECT_ALIASES

DBL_MAX = "1.7976931348623157e308"
_TWO_62 = 4611686018427387904  # 2**62: an integer literal, converted to a double exactly


def _scaled(x: float, tiny: float) -> str:
    """``x`` as ``(a / 2**62 / ...)``: ``a = x * 2**(62 k)`` is exact and at least ``tiny``, and each
    division by a power of two is exact (every intermediate is ``x`` times a power of two). For
    engines that misread 17-digit literals of tiny numbers (SQLite, below)."""
    k = 0
    a = x
    while abs(a) < tiny:
        a = math.ldexp(a, 62)
        k += 1
    return "(" + semantics.exact17(a) + f" / {_TWO_62}" * k + ")"


@dataclass(frozen=True)
class Dialect:
    """How one engine wants its SQL. Fields are data; the few methods only format with them."""

    name: str
    sqlglot: str  # sqlglot's name for the dialect (quoting, escaping, parse checks)
    double: str = "{}"  # template around a 17-digit literal with exponent, typed DOUBLE by the engine
    case_depth: int = 200  # CASE levels one tree may nest before its lower part goes flat
    trunc: str = "TRUNC({})"  # truncation toward zero of a double (integer nominal domains)
    greatest: str | None = "GREATEST"  # n-ary maximum function; None: a VALUES subquery
    true: str = "TRUE"
    false: str = "FALSE"
    stage_suffix: str = ""  # appended to every staged SELECT so the engine does not inline it
    materialize_every: int | None = None  # every n-th stage is a MATERIALIZED CTE (bounds nesting)
    case_insensitive: bool = True  # column names match regardless of case (Age = age)
    max_identifier: int | None = None  # longest identifier (characters) the engine keeps intact
    string_prefix: str = ""  # e.g. "N" for unicode strings in T-SQL
    batch: int = 50  # trees (or rules) summed per stage; at most 50 (nesting stages is slow to plan)
    stage_leaves: int | None = None  # fewer trees per stage when they hold more leaves than this
    max_stages: int | None = None  # more trees per stage (up to max_batch) when there would be more stages
    max_batch: int = 50  # most trees per stage that max_stages may ask for (sum depth per stage)
    max_ctes: int | None = None  # most stages (WITH elements) the engine takes (more: an ExportError)
    pick: str | None = None  # the {index}-th (1-based) of {values}; None: one CASE per output
    pick_doubles: str | None = None  # same for doubles written as plain 17-digit numbers (faster)
    correlated_from: bool = True  # a subquery in FROM may use the outer row (bare ensemble form)
    bare_with: bool = False  # the bare form's stages as correlated CTEs in one WITH (flat, not nested)
    walker: Syntax | None = None  # ensemble trees as constant arrays walked in a loop (walker.py)
    # bind(d, alias, [(field, expression)], body): ``body`` reading ``alias.field`` (quoted names),
    # each expression computed once, in one expression: where derived tables cannot see the outer row
    bind: Callable[..., str] | None = None
    bind_ref: str = "{alias}.{field}"  # how a bound value is read ({index}: its 0-based position)
    bind_untyped: bool = False  # bound results come back untyped (VARIANT): bind class indexes
    bind_class_sums: bool = False  # a bare k-class (k > 2) average or vote binds its class sums once
    # ``{first}`` plus ``{terms}`` (comma-separated) left to right, as a fold over a flat list with
    # lambda variables ``{acc}``, ``{x}``: long bare sums, and every stage's sum (an optimizer that
    # merges the stages then nests one fold per stage, not one ``+`` per term)
    sum_fold: str | None = None
    bare_sum: int = 100  # longest sum written as plain + (engines recurse once per +): longer bare
    # sums are bound piecewise or folded, and with sum_fold a model of more units folds its stage sums
    bare_depth: int | None = None  # most subqueries the bare form may nest (bound levels or nested
    # derived tables); more: an ExportError naming --table
    tiny: float = 0.0  # nonzero doubles below this in magnitude are written scaled (:meth:`number`)
    bmp_identifiers: bool = False  # identifiers hold only Basic Multilingual Plane characters
    column_forbids: str = ""  # characters an input column's name cannot hold, even quoted
    no_trailing_space: bool = False  # names cannot end with ASCII white space (MariaDB: error 1166)
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    # --- tokens ------------------------------------------------------------------------------------
    def ident(self, name: str) -> str:
        """``name`` quoted (and escaped) as an identifier."""
        key = ("i", name)
        out = self._cache.get(key)
        if out is None:
            from sqlglot import exp  # noqa: PLC0415

            out = exp.to_identifier(name, quoted=True).sql(dialect=self.sqlglot)
            self._cache[key] = out
        return out

    def string(self, text: str) -> str:
        """``text`` as an escaped string literal."""
        key = ("s", text)
        out = self._cache.get(key)
        if out is None:
            from sqlglot import exp  # noqa: PLC0415

            out = self.string_prefix + exp.Literal.string(text).sql(dialect=self.sqlglot)
            self._cache[key] = out
        return out

    def number(self, x: float) -> str:
        """A finite double literal that reads back exactly and is typed DOUBLE (never DECIMAL)."""
        x = float(x)
        if not math.isfinite(x):
            raise ExportError(f"cannot write {x!r} as a SQL literal")
        if 0.0 < abs(x) < self.tiny:
            return _scaled(x, self.tiny)
        text = semantics.exact17(x)
        if text.startswith("-"):
            return "(" + self.double.format(text) + ")" if self.double != "{}" else "(" + text + ")"
        return self.double.format(text)

    def bound(self, alias: str, values: list[tuple[str, str]], body: str) -> str:
        """``body`` with ``alias.field`` holding each value, computed once (``bind`` must be set)."""
        assert self.bind is not None
        return self.bind(self, alias, values, body)

    def integer(self, n: int) -> str:
        return str(int(n)) if n >= 0 else f"({int(n)})"

    def boolean(self, b: bool) -> str:
        return self.true if b else self.false

    def max_of(self, args: list[str]) -> str:
        """The largest of ``args`` (small expressions; NULL never occurs here)."""
        if len(args) == 1:
            return args[0]
        if self.greatest is not None:
            return f"{self.greatest}({', '.join(args)})"
        rows = ", ".join(f"({a})" for a in args)
        return f"(SELECT MAX(v) FROM (VALUES {rows}) AS m(v))"


def get(name: str) -> Dialect:
    """The dialect called ``name`` (or one of its aliases)."""
    key = ALIASES.get(name.lower(), name.lower()) if isinstance(name, str) else None
    if key not in NAMES:
        raise ExportError(f"unknown SQL dialect {name!r} (choose from {', '.join(NAMES)})")
    return importlib.import_module(f"rulekit.exporters.sql.{key}").DIALECT


__all__ = ["DBL_MAX", "Dialect", "NAMES", "get"]
