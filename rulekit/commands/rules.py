"""`rulekit rules` (not built yet: issue #4)."""

from __future__ import annotations

from rulekit.errors import NotBuiltError


def run(*args, **kwargs) -> int:
    raise NotBuiltError("'rulekit rules' is not built yet (issue #4)")
