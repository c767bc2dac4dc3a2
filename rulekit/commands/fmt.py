"""`rulekit fmt` (not built yet: issue #5)."""

from __future__ import annotations

from rulekit.errors import NotBuiltError


def run(*args, **kwargs) -> int:
    raise NotBuiltError("'rulekit fmt' is not built yet (issue #5)")
