"""The rule-base IR below the rule base: immutable pydantic models of conditions, conclusions and rules.

Conditions name features by name (the DSL and people read names) and nominal values by their label
(not by code). Numeric comparisons are evaluated as ``cast(x) op value`` in the rule base's
``precision`` (float32 for rule bases extracted from scikit-learn/XGBoost trees, float64 otherwise);
:mod:`rulekit.semantics` turns each into a canonical float64 test for every backend. ``x = v`` means
``cast(x) == v`` (i.e. ``x >= v and x <= v``), ``x != v`` its negation. A :class:`Linear` test sums
``coef * x`` left to right in float64 and compares in float64 whatever the ``precision``.
Nominal tests: ``=``/``in`` are FALSE for a value outside the feature's domain, ``!=``/``not in``
TRUE for it (the branch of a tree that takes "every other value" is a ``not in``).

Missing values -- three-valued logic, exactly as SQL evaluates a ``WHERE`` clause: a comparison, set
test or linear test on a missing value (or a linear sum that is NaN) is UNKNOWN; ``is missing`` is
TRUE or FALSE, never UNKNOWN; ``not`` UNKNOWN is UNKNOWN; ``and``/``or`` follow Kleene (FALSE and
UNKNOWN = FALSE, TRUE or UNKNOWN = TRUE); a rule fires only when its condition is TRUE. So
``not (x <= 1)`` does not fire on a missing ``x``, and paths from trees carry
``(x <= t or x is missing)`` on the side the tree sends missing values.

``rulekit.rules.base`` adds :class:`RuleBase`; the evaluators (``rules.engine``, ``dsl.lint``) import
these classes from here and ``RuleBase`` only for typing, so ``RuleBase``'s methods can call them
without an import cycle.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from rulekit.ir.schema import Label

NumOp = Literal["<", "<=", ">", ">="]
CmpOp = Literal["<", "<=", ">", ">=", "=", "!="]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Compare(_Frozen):
    """``feature op value``: numeric (value a float) or nominal equality (value a domain label)."""

    kind: Literal["compare"] = "compare"
    feature: str
    op: CmpOp
    value: float | str | int | bool


class InSet(_Frozen):
    """``feature in {v1, v2}`` (or ``not in`` when negated) for a nominal feature."""

    kind: Literal["in"] = "in"
    feature: str
    values: tuple[str | int | bool, ...]
    negated: bool = False


class IsMissing(_Frozen):
    """``feature is missing`` / ``feature is not missing``."""

    kind: Literal["missing"] = "missing"
    feature: str
    negated: bool = False


class Linear(_Frozen):
    """Oblique test ``sum(coef * feature) op value``, summed left to right in float64."""

    kind: Literal["linear"] = "linear"
    terms: tuple[tuple[float, str], ...]
    op: NumOp
    value: float


class And(_Frozen):
    kind: Literal["and"] = "and"
    items: tuple[Condition, ...] = ()


class Or(_Frozen):
    kind: Literal["or"] = "or"
    items: tuple[Condition, ...] = ()


class Not(_Frozen):
    kind: Literal["not"] = "not"
    item: Condition


Condition = Annotated[Union[Compare, InSet, IsMissing, Linear, And, Or, Not], Field(discriminator="kind")]
Literal_ = Union[Compare, InSet, IsMissing, Linear]
TRUE = And(items=())

for _m in (And, Or, Not):
    _m.model_rebuild()


def atoms(cond, reading_order: bool = False) -> Iterator:
    """Every test under ``cond`` (what is not ``And``, ``Or`` or ``Not``), by an explicit stack: last
    item first, or in the order the text reads with ``reading_order``."""
    stack = [cond]
    while stack:
        node = stack.pop()
        t = type(node)
        if t is And or t is Or:
            stack.extend(reversed(node.items) if reading_order else node.items)
        elif t is Not:
            stack.append(node.item)
        else:
            yield node


class Conclusion(_Frozen):
    """A class label (optionally with its distribution over ``classes``) or a number."""

    label: Label | None = None
    distribution: tuple[float, ...] | None = None
    value: float | None = None


class Rule(_Frozen):
    id: str | None = None
    condition: Condition = TRUE
    conclusion: Conclusion
    weight: float | None = None
    group: int = 0
    stats: dict[str, float] = {}
    comments: tuple[str, ...] = ()  # comment lines above the rule (DSL text after '# ')
    trailing_comment: str | None = None  # comment at the end of the rule's last line in the DSL
