"""Exporters: one module per target, each a function from a Model or RuleBase to text or bytes.

A target registers itself with :func:`register`; ``rulekit.export`` and the CLI look it up here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from rulekit.errors import ExportError, NotBuiltError, RulekitError

_REGISTRY: dict[str, Callable[..., Any]] = {}

# target name -> module that registers it (imported on first use)
_MODULES = {
    "python": "rulekit.exporters.python",
    "sql": "rulekit.exporters.sql",
    "onnx": "rulekit.exporters.onnx",
    "rules": "rulekit.exporters.rules",
    "json": "rulekit.exporters.json",
    "dot": "rulekit.exporters.dot",
    "pmml": "rulekit.exporters.pmml",
}


def register(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        _REGISTRY[name] = fn
        return fn

    return deco


def get(name: str) -> Callable[..., Any]:
    if name not in _REGISTRY:
        module = _MODULES.get(name)
        if module is None:
            raise RulekitError(f"unknown export target {name!r} (choose from {', '.join(_MODULES)})")
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name != module:
                raise
    if name not in _REGISTRY:
        raise NotBuiltError(f"export to {name} is not built yet")
    return _REGISTRY[name]


def reject_unknown(target: str, options: dict[str, Any], known: tuple[str, ...] = ()) -> None:
    """Every exporter's option check: an option it does not take is an ExportError naming it."""
    unknown = sorted(set(options) - set(known))
    if unknown:
        takes = f" (it takes {', '.join(known)})" if known else " (it takes none)"
        raise ExportError(f"unknown {target} export option(s): {', '.join(unknown)}{takes}")


def targets() -> list[str]:
    return list(_MODULES)
