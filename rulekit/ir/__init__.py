"""The tree IR: a networkx DiGraph per tree, wrapped with its schema and combiner in a Model.

The names below load on first use, so that importing :mod:`rulekit.ir.schema` (all that rule bases
need) does not import networkx.
"""

from __future__ import annotations

import importlib

_HOMES = {"Combiner": "rulekit.ir.schema", "Feature": "rulekit.ir.schema", "Model": "rulekit.ir.model",
          "TreeBuilder": "rulekit.ir.tree", "validate_tree": "rulekit.ir.tree"}

__all__ = list(_HOMES)


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'rulekit.ir' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
