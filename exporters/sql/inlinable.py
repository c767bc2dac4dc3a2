"""PostgreSQL scalar functions that PostgreSQL inlines into the calling query.

PostgreSQL inlines a ``LANGUAGE sql`` function only when its body is one ``SELECT expression``
without FROM or sub-selects; otherwise it runs the executor once per call (a 100-tree forest's
function with a ``WITH`` body was 12x slower than the SELECT form). So an ensemble's function body
is its bare expression written as plain sums, one per accumulator and each written once; what reads
the sums more than once (a k-class argmax, the sigmoid, softmax, a voting rule base's shares) goes
to helper functions whose parameters are the sums: PostgreSQL does not inline a helper whose
arguments are expensive and used more than once, so each sum is computed once per row and the
helper's small body runs on the values. Helpers are named ``<name>_rk<i>`` and created first.
"""

from __future__ import annotations

import dataclasses

from rulekit.exporters.sql.dialect import Dialect

PG_IDENT = 63  # PostgreSQL keeps 63 bytes of an identifier


class Helpers:
    """Collects the helper functions a body binds (``Dialect.bind``) for one scalar function."""

    def __init__(self, d: Dialect, name: str, ret: str, create: str, quote):
        self.d, self.name, self.ret, self.create, self.quote = d, name, ret, create, quote
        self.statements: list[str] = []
        self.names: list[str] = []

    def _name(self) -> str:
        parts = self.name.split(".")
        suffix = f"_rk{len(self.names) + 1}"
        last = parts[-1]
        while len((last + suffix).encode("utf-8")) > PG_IDENT:
            last = last[:-1]
        return ".".join(self.d.ident(p) for p in parts[:-1] + [last + suffix])

    def bind(self, d: Dialect, alias: str, values: list[tuple[str, str]], body: str) -> str:
        """A call of a new helper taking ``values`` as parameters named by their fields."""
        name = self._name()
        self.names.append(name)
        params = ", ".join(f"{d.ident(f)} double precision" for f, _ in values)
        q, text = self.quote(f"SELECT CAST({body} AS {self.ret})")
        self.statements.append(f"{self.create.format(name=name)} {name}({params})\nRETURNS {self.ret} "
                               f"LANGUAGE sql IMMUTABLE PARALLEL SAFE AS {q}\n{text}\n{q};\n")
        return f"{name}(" + ", ".join(v for _, v in values) + ")"

    def dialect(self) -> Dialect:
        """``d`` writing bare ensembles as plain sums bound through helpers (no sub-selects)."""
        return dataclasses.replace(self.d, correlated_from=False, bare_with=False, bind=self.bind,
                                   bind_ref="{field}", bind_untyped=False, bind_class_sums=True,
                                   bare_sum=1 << 30, _cache={})


__all__ = ["Helpers"]
