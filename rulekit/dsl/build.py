"""From parse to RuleBase: one callback per grammar rule, checking meaning as it goes.

:class:`RuleBaseBuilder` (``Builder``, its old name, stays an alias) is a
:class:`lark.Transformer_NonRecursive`. The parser runs it *inline* (lark calls
each method when LALR reduces its rule, so no tree is built and nothing recurses: the LALR stack is
explicit); it transforms an already built tree just the same (the tests check both agree). The
header comes before the rules, so when a rule is reduced every feature and class is known and each
comparison is checked in place: unknown feature, value outside a nominal domain, number against a
nominal feature, label that is not a class... Each problem becomes a diagnostic with the position of
its token; parsing goes on to find the others.

The callbacks live by part of the grammar (issue #23): the header in ``build_header``, conditions in
``build_conditions``, conclusions and statistics in ``build_conclusions``, the shared state and token
reading in ``build_state``; this module puts them together and turns the rules into the RuleBase.
"""

from __future__ import annotations

from lark import Transformer_NonRecursive
from pydantic import ValidationError

from rulekit.dsl import literals, missing, unseen
from rulekit.dsl.build_conclusions import ConclusionCallbacks
from rulekit.dsl.build_conditions import Chain, ConditionCallbacks
from rulekit.dsl.build_header import HeaderCallbacks
from rulekit.dsl.build_state import MAX_ERRORS  # noqa: F401 - re-exported: the parser imports it from here
from rulekit.dsl.grammar import MAX_DEPTH
from rulekit.rules.base import And, Rule, RuleBase


class RuleBaseBuilder(HeaderCallbacks, ConditionCallbacks, ConclusionCallbacks, Transformer_NonRecursive):
    """Grammar callbacks building the IR; state for one parse (see :meth:`BuildState.reset`)."""

    __visit_tokens__ = False

    def start(self, c):
        return None

    # --- rules ------------------------------------------------------------------------------------
    def rule(self, c):
        id_tok, if_tok, cond, concl, weight, stats = c
        first = id_tok or if_tok
        index = len(self.rules)
        self.stmts.append((first.start_pos, "rule", index))
        if self.first_rule_line is None:
            self.first_rule_line = first.line
            if self.target is None and not self.warned_no_target and not self.syntax_errors:
                self.warned_no_target = True
                self.err(first, "the header needs a 'target' line before the first rule "
                                "(e.g. 'target species: classes {a, b}' or 'target price: regression')")
        rid = None
        if id_tok is not None:
            if id_tok.type == "NUMBER" and not literals.DIGITS_RE.fullmatch(id_tok.value):
                self.err(id_tok, "a rule id is a name, digits, or text in quotes")
            rid = self.text_of(id_tok)
        if type(cond) is Chain:
            node, depth = And(items=tuple(cond)), 1
        else:
            node, depth = cond
        if depth > MAX_DEPTH:
            self.err(if_tok, f"this condition nests {depth} groups deep; at most {MAX_DEPTH} are allowed "
                             "(write it as several rules, or flatten the parentheses)")
        kw = {"condition": node, "conclusion": self.conclusion_of(concl), "group": self.cur_group}
        if rid is not None:
            kw["id"] = rid
        if weight is not None:
            kw["weight"] = weight
        if stats is not None:
            kw["stats"] = stats
        self.rules.append(Rule(**kw))
        self.share_rows.append(self.written_rows(concl))
        self.rule_pos.append((first.line, first.column))
        self.lit_pos.append(self.lits)
        self.lits = []
    # --- the end ----------------------------------------------------------------------------------
    def finish(self) -> RuleBase | None:
        if self.target is None and not self.warned_no_target and not self.syntax_errors:
            self.error_at(1, 1, "this rules file has no 'target' line (e.g. 'target species: classes "
                                "{a, b}' or 'target price: regression')")
        default = self.conclusion_of(self.default_raw[:]) if self.default_raw is not None else None
        if self.errors:
            return None
        kw = dict(task=self.task, target=self.target, features=tuple(self.feature_list),
                  rules=tuple(self.rules))
        for key in ("name", "classes", "semantics", "precision", "combiner"):
            v = getattr(self, key)
            if v is not None:
                kw[key] = v
        if default is not None:
            kw["default"] = default
        try:
            rb = RuleBase(**kw)
        except ValidationError as e:  # pragma: no cover - every part was checked on the way
            self.error_at(1, 1, f"not a valid rule base: {e.errors()[0]['msg']}")
            return None
        if self.missing_as:  # each test that gains `or x is missing` keeps its position for both
            for r, pos in zip(rb.rules, self.lit_pos):
                flags = missing.leaf_expansions(r.condition, self.missing_as, rb.precision)
                if any(flags) and len(flags) == len(pos):
                    pos[:] = [p for p, f in zip(pos, flags) for _ in range(1 + f)]
        return missing.expand(unseen.expand(rb, self.unseen_as), self.missing_as)


Builder = RuleBaseBuilder  # the name the parser (and bench/bench_dsl.py) import
