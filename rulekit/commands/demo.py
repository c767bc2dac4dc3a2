"""`rulekit demo` (not built yet: issue #9)."""

from __future__ import annotations

from rulekit.errors import NotBuiltError


def run(*args, **kwargs) -> int:
    raise NotBuiltError("'rulekit demo' is not built yet (issue #9)")
