"""The ``dbt`` form of the SQL export: a dbt model reading its input through ``{{ ref() }}`` or
``{{ source() }}`` plus a ``schema.yml`` documenting the output columns, with tests (not_null on
the key, accepted_values for a classifier's label).

Files, relative to the directory written: ``models/<name>.sql`` and ``models/<name>.yml``. The
generated SQL sits in ``{% raw %}`` blocks so braces in names or labels are never read as Jinja.
``table``: ``name`` gives ``{{ ref('name') }}``, ``source.name`` gives ``{{ source('source', 'name') }}``
(and the yml declares that source). The yml is written as JSON, which YAML reads as is (no YAML
library needed at export).
"""

from __future__ import annotations

import json
import re
import uuid

from rulekit.errors import ExportError
from rulekit.exporters.sql.names import PREDICTION, PROBA_PREFIX

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def files(obj, *, build, literal, dialect: str, table: str | None, key: str | None, proba: bool,
          name: str | None) -> dict[str, str]:
    """``{relative path: text}`` of the dbt model; ``build(obj, table=, key=, proba=)`` is the query,
    ``literal(text)`` the dialect's string literal (dbt's accepted_values pastes values unescaped
    between quotes, so they are given as escaped literals with ``quote: false``)."""
    if table is None:
        raise ExportError("--form dbt needs the model's input (--table NAME for {{ ref('NAME') }}, "
                          "--table SOURCE.NAME for {{ source('SOURCE', 'NAME') }})")
    parts = table.split(".")
    if len(parts) > 2 or not all(_NAME.fullmatch(p) for p in parts):
        raise ExportError(f"--form dbt: --table {table!r} must be NAME or SOURCE.NAME (letters, digits, _)")
    name = name or f"{parts[-1]}_scored"
    if not _NAME.fullmatch(name):
        raise ExportError(f"--form dbt: --name {name!r} must be letters, digits and _ (a dbt model name)")
    placeholder = "rk_dbt_input_" + uuid.uuid4().hex
    sql = build(obj, table=placeholder, key=key, proba=proba).rstrip("\n")
    quoted = _quoted_once(sql, placeholder)
    if "{% endraw %}" in sql or "{%endraw%}" in sql:
        raise ExportError("--form dbt: a name or label contains '{% endraw %}', which dbt's Jinja cannot hold")
    head, tail = sql.split(quoted)
    ref = (f"{{{{ ref('{parts[0]}') }}}}" if len(parts) == 1
           else f"{{{{ source('{parts[0]}', '{parts[1]}') }}}}")
    model = ("{{ config(materialized='view') }}\n"
             f"{{% raw %}}{head}{{% endraw %}}{ref}{{% raw %}}{tail}{{% endraw %}}\n")
    columns = []
    if key is not None:
        columns.append({"name": key, "description": "the input's key, passed through", "quote": True,
                        "data_tests": ["not_null"]})
    pred = {"name": PREDICTION, "quote": True,
            "description": "the prediction, exactly as the source model " + ("(class label)" if obj.task ==
                                                                             "classification" else "(value)")}
    classes = list(obj.classes or [])
    if obj.task == "classification" and all(isinstance(c, str) for c in classes):
        pred["data_tests"] = [{"accepted_values": {"values": [literal(c) for c in classes], "quote": False}}]
    columns.append(pred)
    if proba:
        columns += [{"name": f"{PROBA_PREFIX}{c}", "quote": True, "description": f"probability of class {c!r}"}
                    for c in classes]
    doc: dict = {"version": 2, "models": [{"name": name, "description": f"scores {table} ({dialect} SQL by "
                                                                         "rulekit; exact against the source)",
                                           "columns": columns}]}
    if len(parts) == 2:
        doc["sources"] = [{"name": parts[0], "tables": [{"name": parts[1]}]}]
    return {f"models/{name}.sql": model,
            f"models/{name}.yml": json.dumps(doc, indent=2, ensure_ascii=False) + "\n"}


def _quoted_once(sql: str, placeholder: str) -> str:
    hits = [m.start() for m in re.finditer(re.escape(placeholder), sql)]
    if len(hits) != 1:
        raise ExportError("--form dbt: the input table appears more than once in the query")
    i = hits[0]
    return sql[i - 1:i + len(placeholder) + 1]  # with the dialect's quote characters


__all__ = ["files"]
