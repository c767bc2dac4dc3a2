"""The rule DSL: text people edit, parsed with a Lark LALR grammar (``grammars/rules.lark``).

>>> from rulekit import dsl
>>> rb = dsl.loads('''
... rulebase demo
... target play: classes {no, yes}
... feature outlook: nominal {sunny, overcast, rain}
... feature humidity: numeric
... default yes
...
... if outlook = sunny and humidity > 75 then no
... ''')
>>> rb.rules[0].condition.items[1]
Compare(kind='compare', feature='humidity', op='>', value=75.0)
>>> dsl.loads(dsl.dumps(rb)) == rb
True

``loads`` raises :class:`RulesSyntaxError` (a :class:`rulekit.errors.RulekitError`) carrying a
:class:`Diagnostic` for every error found, each with ``FILE:LINE:COL``, the line and a caret.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulekit.dsl.diagnostics import Diagnostic, RulesSyntaxError

if TYPE_CHECKING:
    from rulekit.dsl.parser import Parsed, loads, parse
    from rulekit.dsl.printer import dumps

__all__ = ["Diagnostic", "Parsed", "RulesSyntaxError", "dumps", "loads", "parse"]


def __getattr__(name: str):
    """The parser and printer load on first use (PEP 562): they build ``RuleBase``s, and
    ``RuleBase.lint`` reaches ``rulekit.dsl.lint``, whose package is this one."""
    if name in ("Parsed", "loads", "parse"):
        from rulekit.dsl import parser  # noqa: PLC0415 - lazy, not a cycle (checked)

        value = getattr(parser, name)
    elif name == "dumps":
        from rulekit.dsl import printer  # noqa: PLC0415 - lazy, not a cycle (checked)

        value = printer.dumps
    else:
        raise AttributeError(f"module 'rulekit.dsl' has no attribute {name!r}")
    globals()[name] = value
    return value
