"""Deployment forms of the SQL export: the scoring query or expression wrapped as a statement.

``select`` (a SELECT over ``--table``) and ``expression`` (a bare prediction expression) are the
query builder's own output; ``view`` wraps the SELECT as ``CREATE VIEW``; ``function`` makes a
scalar function (or macro) of the features returning the prediction, and with ``proba`` a table
function returning the prediction and one probability column per class. What each dialect writes
is data (:data:`FORMS`); a dialect without a form says why in one line (``refuse``).

Function parameters are named ``p1..pn`` (feature names may be anything; a comment maps them):
the scalar body is the bare expression of the source with its features renamed to the
parameters (PostgreSQL: one PostgreSQL inlines, :mod:`inlinable`); a table function's body is the SELECT form over a one-row CTE that names the
parameters as the features. Every value is CAST to the declared return type.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from rulekit.errors import ExportError
from rulekit.exporters.sql.dialect import Dialect
from rulekit.exporters.sql.inlinable import Helpers
from rulekit.exporters.sql.names import PREDICTION, PROBA_PREFIX
from rulekit.ir.model import Model
from rulekit.rename import rename_features
from rulekit.rules.base import RuleBase

FORM_NAMES = ("select", "expression", "view", "function", "dbt")


@dataclass(frozen=True)
class Forms:
    """How one dialect writes views and functions. Templates are ``str.format`` strings; ``None``
    (with a reason in ``refuse``) means the dialect has no such form."""

    double: str  # SQL types of parameters and results
    text: str
    integer: str
    boolean: str
    view: str = "CREATE VIEW {name} AS\n{query};\n"
    view_replace: str = "CREATE OR REPLACE VIEW {name} AS\n{query};\n"
    param: str = "{p} {type}"  # one parameter in a signature
    param_ref: str = "{p}"  # how the body reads a parameter ({p} quoted for the dialect)
    scalar: str | None = None  # {create} {name}({params}) ... {body}
    table: str | None = None  # {create} {name}({params}) ... {query}; {columns}: "name type" list
    create: str = "CREATE FUNCTION"
    create_replace: str = "CREATE OR REPLACE FUNCTION"
    quote: str | None = None  # "dollar": the body is dollar-quoted with a tag not in it ({q})
    refuse: dict | None = None  # form or "proba" -> why this dialect cannot


FORMS: dict[str, Forms] = {
    "postgres": Forms(
        double="double precision", text="text", integer="bigint", boolean="boolean",
        scalar="{create} {name}({params})\nRETURNS {ret} LANGUAGE sql IMMUTABLE PARALLEL SAFE AS {q}\n"
               "SELECT CAST({body} AS {ret})\n{q};\n",
        table="{create} {name}({params})\nRETURNS TABLE({columns}) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS {q}\n"
              "{query}\n{q};\n",
        quote="dollar"),
    "duckdb": Forms(
        double="DOUBLE", text="VARCHAR", integer="BIGINT", boolean="BOOLEAN", param="{p}",
        scalar="{create} {name}({params}) AS\nCAST({body} AS {ret});\n",
        table="{create} {name}({params}) AS TABLE\n{query};\n",
        create="CREATE MACRO", create_replace="CREATE OR REPLACE MACRO"),
    "mysql": Forms(
        double="DOUBLE", text="TEXT CHARACTER SET utf8mb4", integer="BIGINT", boolean="BOOLEAN",
        scalar="{create} {name}({params})\nRETURNS {ret} DETERMINISTIC\nRETURN {body};\n",
        create_replace="DROP FUNCTION IF EXISTS {name};\nCREATE FUNCTION",
        refuse={"proba": "MariaDB/MySQL stored functions return one scalar and there are no table functions: "
                         "use --form view (or select) for probabilities"}),
    "spark": Forms(
        double="DOUBLE", text="STRING", integer="BIGINT", boolean="BOOLEAN",
        scalar="{create} {name}({params})\nRETURNS {ret}\nRETURN CAST({body} AS {ret});\n",
        table="{create} {name}({params})\nRETURNS TABLE({columns})\nRETURN\n{query};\n",
        create="CREATE TEMPORARY FUNCTION", create_replace="CREATE OR REPLACE TEMPORARY FUNCTION"),
    "bigquery": Forms(
        double="FLOAT64", text="STRING", integer="INT64", boolean="BOOL",
        scalar="{create} {name}({params})\nRETURNS {ret} AS (\nCAST({body} AS {ret}));\n",
        create="CREATE TEMP FUNCTION", create_replace="CREATE OR REPLACE TEMP FUNCTION",
        refuse={"proba": "BigQuery table functions cannot be temporary: name a dataset (--name "
                         "dataset.function) for a persistent one, or use --form view for probabilities"}),
    "snowflake": Forms(
        double="FLOAT", text="VARCHAR", integer="NUMBER(19, 0)", boolean="BOOLEAN",
        scalar="{create} {name}({params})\nRETURNS {ret}\nAS {q}\nCAST({body} AS {ret})\n{q};\n",
        table="{create} {name}({params})\nRETURNS TABLE({columns})\nAS {q}\n{query}\n{q};\n",
        quote="snowflake"),
    "tsql": Forms(
        double="FLOAT", text="NVARCHAR(4000)", integer="BIGINT", boolean="BIT",
        view_replace="CREATE OR ALTER VIEW {name} AS\n{query};\n", param="{p} {type}",
        table="{create} {name}({params})\nRETURNS TABLE AS RETURN\n{query};\n",
        create_replace="CREATE OR ALTER FUNCTION"),
    "sqlite": Forms(
        double="REAL", text="TEXT", integer="INTEGER", boolean="INTEGER",
        view_replace="DROP VIEW IF EXISTS {name};\nCREATE VIEW {name} AS\n{query};\n",
        refuse={"function": "SQLite has no SQL-defined functions (only ones registered by the host "
                            "program): use --form view, select or expression"}),
}


# Where a dialect's functions are temporary unless ``--name`` names a dataset (``dataset.name``):
# then they are persistent, and BigQuery's persistent table functions carry the probabilities.
PERSISTENT: dict[str, Forms] = {
    "bigquery": dataclasses.replace(
        FORMS["bigquery"], table="{create_table} {name}({params})\nAS (\n{query}\n);\n",
        create="CREATE FUNCTION", create_replace="CREATE OR REPLACE FUNCTION", refuse=None),
}


def forms_for(d: Dialect, name: str | None) -> Forms:
    """The dialect's forms; its persistent ones when ``name`` is qualified and it has them."""
    if name is not None and "." in name and d.name in PERSISTENT:
        return PERSISTENT[d.name]
    return FORMS[d.name]


def _params(d: Dialect, obj) -> list[str]:
    """Parameter names ``p1..pn`` (T-SQL: ``@p1``), avoiding every feature name."""
    taken = {f.name.casefold() for f in obj.features}
    stem = "p"
    while any(f"{stem}{i}" in taken for i in range(1, len(obj.features) + 1)):
        stem = "p" + stem
    at = "@" if d.name == "tsql" else ""
    return [f"{at}{stem}{i}" for i in range(1, len(obj.features) + 1)]


def _renamed(obj, mapping: dict[str, str]):
    """``obj`` with features renamed (a Model via :func:`rename_features`; a RuleBase by rewriting
    every condition's feature reference, walked with an explicit stack)."""
    if isinstance(obj, Model):
        return rename_features(obj, mapping)
    data = obj.model_dump()
    stack: list = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("kind") in ("compare", "in", "missing") and isinstance(item.get("feature"), str):
                item["feature"] = mapping[item["feature"]]
            elif item.get("kind") == "linear":
                item["terms"] = [(c, mapping[f]) for c, f in item["terms"]]
            stack.extend(v for v in item.values() if isinstance(v, (dict, list, tuple)))
        else:
            stack.extend(v for v in item if isinstance(v, (dict, list, tuple)))
    for f in data["features"]:
        f["name"] = mapping[f["name"]]
    return RuleBase.model_validate(data)


def _label_type(f: Forms, obj) -> str:
    if obj.task == "regression":
        return f.double
    kinds = {type(c) for c in obj.classes}
    if kinds == {bool}:
        return f.boolean
    if kinds == {int}:
        return f.integer
    if kinds == {float}:
        return f.double
    return f.text


def _feature_type(f: Forms, feature) -> str:
    dom = feature.domain or ()
    ints = bool(dom) and all(isinstance(v, int) and not isinstance(v, bool) for v in dom)
    return f.text if feature.kind == "nominal" and not ints else f.double


def _qualified(d: Dialect, name: str) -> str:
    parts = name.split(".")
    if any(p == "" for p in parts):
        raise ExportError(f"--name {name!r} has an empty part")
    return ".".join(d.ident(p) for p in parts)


def default_name(obj, form: str, table: str | None) -> str:
    """``<table>_scored`` for a view, ``predict_<target>`` for a function (letters, digits, _)."""
    if form == "view":
        base = (table or "rulekit").split(".")[-1] + "_scored"
    else:
        base = "predict_" + (getattr(obj, "target", None) or getattr(obj, "name", None) or "rulekit")
    return re.sub(r"\W", "_", base, flags=re.ASCII)[:60]


def _quoted_body(kind: str | None, body: str, d: Dialect) -> tuple[str, str]:
    """(opening/closing quote, body): a dollar tag that the body does not contain (PostgreSQL), or
    Snowflake's ``$$`` (a string literal when the body holds ``$$``)."""
    if kind == "dollar":
        n = 0
        while f"$rk{n}$" in body:
            n += 1
        return f"$rk{n}$", body
    if kind == "snowflake":
        if "$$" in body:
            return "", d.string(body)
        return "$$", body
    return "", body


def _mapping_comment(d: Dialect, obj, params: list[str]) -> str:
    lines = [f"--   {p} = {d.ident(f.name)}" for p, f in zip(params, obj.features)]
    return "-- parameters (feature names quoted):\n" + "\n".join(
        ln.replace("\n", "\\n").replace("\r", "\\r") for ln in lines) + "\n"


def wrap(obj, d: Dialect, *, form: str, build, table: str | None, key: str | None, proba: bool,
         name: str | None, replace: bool) -> str:
    """The statement of ``form`` for ``obj``; ``build(obj, table=, key=, proba=)`` is the query builder."""
    if form not in FORM_NAMES:
        raise ExportError(f"unknown SQL form {form!r} (choose from {', '.join(FORM_NAMES)})")
    f = forms_for(d, name) if form == "function" else FORMS[d.name]
    refuse = f.refuse or {}
    if form in ("view", "function") and form in refuse:
        raise ExportError(refuse[form])
    if form == "select" and table is None:
        raise ExportError("--form select needs a table (--table)")
    if form == "view":
        if table is None:
            raise ExportError("--form view needs a table (--table)")
        query = build(obj, table=table, key=key, proba=proba).rstrip("\n")
        qname = _qualified(d, name or default_name(obj, form, table))
        return (f.view_replace if replace else f.view).format(name=qname, query=query)
    if form != "function":
        return build(obj, table=table, key=key, proba=proba)
    if table is not None or key is not None:
        raise ExportError("--form function takes the features as parameters; --table and --key do not apply")
    qname = _qualified(d, name or default_name(obj, form, None))
    params = _params(d, obj)
    create = (f.create_replace if replace else f.create).format(name=qname)
    signature = ", ".join(f.param.format(p=p if p.startswith("@") else d.ident(p), type=_feature_type(f, ft))
                          for p, ft in zip(params, obj.features))
    ret = _label_type(f, obj)
    comment = _mapping_comment(d, obj, params)
    if not proba and f.scalar is not None:
        renamed = _renamed(obj, {ft.name: p for ft, p in zip(obj.features, params)})
        if d.name == "postgres":  # an inlinable body: plain sums, helpers for what reads them twice
            helpers = Helpers(d, name or default_name(obj, form, None), ret,
                              f.create_replace if replace else f.create, lambda t: _quoted_body(f.quote, t, d))
            body = build(renamed, table=None, key=None, proba=False, dialect=helpers.dialect())
            head = "".join(helpers.statements)
        else:
            body, head = build(renamed, table=None, key=None, proba=False), ""
        q, body = _quoted_body(f.quote, body, d)
        return comment + head + f.scalar.format(create=create, name=qname, params=signature, ret=ret, body=body,
                                                q=q)
    if proba and "proba" in refuse:
        raise ExportError(refuse["proba"])
    if f.table is None:
        raise ExportError(f"{d.name}: no function form for this export")
    return comment + _table_function(f, d, obj, params, create, qname, signature, ret, build, proba)


def _table_function(f: Forms, d: Dialect, obj, params, create, qname, signature, ret, build, proba) -> str:
    """A table function: the SELECT form over a one-row CTE naming the parameters as the features."""
    taken = {ft.name.casefold() for ft in obj.features}
    cte = "rk_params"
    while any(t.startswith(cte) for t in taken):
        cte = "rk" + cte
    query = build(obj, table=cte, key=None, proba=proba).rstrip("\n")
    refs = [p if p.startswith("@") else d.ident(p) for p in params]
    head = f"{d.ident(cte)} AS (SELECT " + ", ".join(
        f"{r} AS {d.ident(ft.name)}" for r, ft in zip(refs, obj.features)) + ")"
    lead, rest = _split_comment(query)
    if rest.startswith("WITH "):
        query = f"{lead}WITH {head},\n{rest[5:]}"
    else:
        query = f"{lead}WITH {head}\n{rest}"
    classes = list(obj.classes or []) if proba else []
    columns = ", ".join([f"{d.ident(PREDICTION)} {ret}"] + [f"{d.ident(PROBA_PREFIX + str(c))} {f.double}"
                                                           for c in classes])
    q, query = _quoted_body(f.quote, query, d)
    return f.table.format(create=create, create_table=create.replace(" FUNCTION", " TABLE FUNCTION"),
                          name=qname, params=signature, columns=columns, query=query, q=q)


def _split_comment(query: str) -> tuple[str, str]:
    """A leading ``/* ... */`` line (the float32 note) apart from the query."""
    if query.startswith("/*"):
        end = query.index("*/") + 2
        return query[:end] + "\n", query[end:].lstrip("\n")
    return "", query


__all__ = ["FORMS", "FORM_NAMES", "Forms", "default_name", "wrap"]
