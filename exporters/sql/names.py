"""Identifiers of the generated query: input columns, the key, output columns and internal names.

Refuses, with one clear line, names the engine would confuse: two columns equal but for case in a
dialect that matches names case-insensitively (``Age``/``age``), names longer than the engine keeps,
empty names, NUL characters, and characters an engine's identifiers cannot hold. Internal names
(CTEs, accumulators) avoid every user name.
"""

from __future__ import annotations

from rulekit.errors import ExportError
from rulekit.exporters.sql.dialect import Dialect

PROBA_PREFIX = "proba:"
PREDICTION = "prediction"


def _fold(d: Dialect, name: str) -> str:
    return name.casefold() if d.case_insensitive else name


def _check_name(d: Dialect, name: str, what: str) -> None:
    if not isinstance(name, str) or name == "":
        raise ExportError(f"{what} has an empty name; SQL cannot quote it")
    if "\x00" in name:
        raise ExportError(f"{what} {name!r} contains a NUL character; SQL cannot quote it")
    if d.bmp_identifiers:
        wide = next((c for c in name if ord(c) > 0xFFFF), None)
        if wide is not None:
            raise ExportError(f"{what} {name!r} contains {wide!r} (U+{ord(wide):X}), outside Unicode's Basic "
                              f"Multilingual Plane; {d.name} identifiers cannot hold it "
                              + ("(proba columns are named after the class labels)" if what == "output column"
                                 else "(rename it)"))
    if d.no_trailing_space and name[-1] in " \t\n\v\f\r":
        raise ExportError(f"{what} {name!r} ends with white space; {d.name} names cannot "
                          + ("(proba columns are named after the class labels)" if what == "output column"
                             else "(rename it)"))
    if what in ("feature", "key column"):
        bad = next((c for c in name if c in d.column_forbids), None)
        if bad is not None:
            raise ExportError(f"{what} {name!r} contains {bad!r}; {d.name} column names cannot hold it "
                              f"(a quoted name with {bad!r} is read as a path there; rename it)")
    if d.max_identifier is not None:
        size = len(name.encode("utf-8")) if d.name == "postgres" else len(name)
        if size > d.max_identifier:
            raise ExportError(f"{what} {name!r} is longer than {d.name} keeps identifiers "
                              f"({d.max_identifier}{' bytes' if d.name == 'postgres' else ' characters'})")


class Names:
    """Quoted names for one export, checked against each other for ``dialect``."""

    def __init__(self, d: Dialect, features: list[str], *, key: str | None, table: str | None,
                 outputs: list[str]):
        self.d = d
        seen: dict[str, str] = {}
        for name in features:
            _check_name(d, name, "feature")
            other = seen.get(_fold(d, name))
            if other is not None and other != name:
                raise ExportError(f"feature names {other!r} and {name!r} differ only in case; {d.name} "
                                  f"matches column names case-insensitively (rename one)")
            seen[_fold(d, name)] = name
        self.key = None
        if key is not None:
            _check_name(d, key, "key column")
            other = seen.get(_fold(d, key))
            if other is not None and other != key:
                raise ExportError(f"key column {key!r} and feature {other!r} differ only in case; "
                                  f"{d.name} matches column names case-insensitively")
            self.key = d.ident(key)
        self.key_is_feature = key is not None and key in seen.values()
        out_seen: dict[str, str] = {}
        for name in ([key] if key is not None else []) + outputs:
            _check_name(d, name, "output column")
            other = out_seen.get(_fold(d, name))
            if other is not None:
                raise ExportError(f"output columns {other!r} and {name!r} would have the same name in "
                                  f"{d.name}" + (" (names match case-insensitively)" if other != name else ""))
            out_seen[_fold(d, name)] = name
        self.outputs = [d.ident(n) for n in outputs]
        self.table = None
        taken = set(seen) | set(out_seen)
        if table is not None:
            parts = table.split(".") if table else [table]
            for p in parts:
                _check_name(d, p, "table name part")
            self.table = ".".join(d.ident(p) for p in parts)
            taken |= {_fold(d, p) for p in parts}
        prefix = "rk_"
        n = 0
        while any(t.startswith(_fold(d, prefix)) for t in taken):
            n += 1
            prefix = f"rk{n}_"
        self.prefix = prefix

    def internal(self, name: str) -> str:
        return self.d.ident(self.prefix + name)


__all__ = ["Names", "PREDICTION", "PROBA_PREFIX"]
