"""The rule DSL: text people edit, parsed with a Lark LALR grammar (``grammars/rules.lark``)."""

from __future__ import annotations

from rulekit.errors import NotBuiltError


def loads(text: str, *, file: str | None = None):
    raise NotBuiltError("the rule DSL is not built yet (issue #5)")


def dumps(rb) -> str:
    raise NotBuiltError("the rule DSL is not built yet (issue #5)")
