"""`rulekit fit` (not built yet: issue #3)."""

from __future__ import annotations

from rulekit.errors import NotBuiltError


def run(*args, **kwargs) -> int:
    raise NotBuiltError("'rulekit fit' is not built yet (issue #3)")
