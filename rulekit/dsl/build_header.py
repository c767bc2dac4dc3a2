"""The rules parser's callbacks for the header: ``rulebase``, ``target``, ``feature``, ``missing``,
``unseen``, ``semantics``, ``precision``, ``combiner``, ``default`` and ``group`` lines, each checked
as it is reduced (a repeated line, a line after the rules, a value outside a domain).
"""

from __future__ import annotations

from pydantic import ValidationError

from rulekit.dsl.build_state import BuildState, show_name, show_value, typed_key
from rulekit.ir.schema import Combiner, Feature


class HeaderCallbacks(BuildState):
    """Grammar callbacks of the header statements (mixed into ``RuleBaseBuilder``)."""

    def _header(self, kind: str, kw) -> bool:
        """Record a header statement; False (with an error) when it repeats or follows the rules."""
        self.stmts.append((kw.start_pos, "header", -1))
        ok = True
        if self.first_rule_line is not None:
            self.err(kw, f"header lines come before the rules: move this '{kw.value}' line above the "
                         f"first rule (line {self.first_rule_line})")
            ok = False
        if kind in self.seen:
            self.err(kw, f"a second '{kw.value}' line (the first is on line {self.seen[kind]})")
            return False
        self.seen[kind] = kw.line
        return ok

    def rulebase_stmt(self, c):
        if self._header("rulebase", c[0]):
            self.name = self.text_of(c[1])

    def target_stmt(self, c):
        if not self._header("target", c[0]):
            return
        self.target = self.text_of(c[1])
        task_tok = c[2]
        self.task = task_tok.value if task_tok is not None else "classification"
        if len(c) > 3:
            classes, keys = [], set()
            for v, tok in c[3]:
                k = typed_key(v)
                if k in keys:
                    self.err(tok, f"class {show_value(v)} is listed twice")
                    continue
                keys.add(k)
                classes.append(v)
            self.classes = tuple(classes)
            self.class_keys = frozenset(keys)

    def feature_stmt(self, c):
        kw, name_tok, kind_tok = c[0], c[1], c[2]
        self.stmts.append((kw.start_pos, "header", -1))
        if self.first_rule_line is not None:
            self.err(kw, "header lines come before the rules: move this 'feature' line above the first "
                         f"rule (line {self.first_rule_line})")
        name = self.text_of(name_tok)
        if name in self.features:
            self.err(name_tok, f"feature {show_name(name)} is declared twice")
            return
        domain = None
        if kind_tok.type == "NOMINAL":
            values, keys = [], set()
            for v, tok in c[3]:
                if isinstance(v, (bool, float)):
                    self.err(tok, f"a nominal value is a name or a whole number, not {show_value(v)}")
                    continue
                k = typed_key(v)
                if k in keys:
                    self.err(tok, f"value {show_value(v)} is listed twice")
                    continue
                keys.add(k)
                values.append(v)
            domain = tuple(values)
            self.domains[name] = frozenset(keys)
        kw = {}
        if len(c) > 4 and c[4] is not None:
            kw["match"] = c[4]
        try:
            f = Feature(name=name, kind="nominal" if domain is not None else "numeric", domain=domain, **kw)
        except ValidationError as e:  # pragma: no cover - the checks above come first
            self.err(name_tok, e.errors()[0]["msg"])
            return
        self.features[name] = f
        self.feature_list.append(f)

    def missing_stmt(self, c):
        name_tok = c[0]
        self.stmts.append((name_tok.start_pos, "header", -1))
        if self.first_rule_line is not None:
            self.err(name_tok, "header lines come before the rules: move this 'missing' line above the "
                               f"first rule (line {self.first_rule_line})")
        name, f = self._feature(name_tok)
        (v, tok), = self.typed_literals(c[1:])
        if f is None:
            return
        if name in self.missing_as:
            self.err(name_tok, f"missing values of {show_name(name)} are declared twice")
        elif f.kind == "nominal":
            self._check_value(name, v, tok)
            self.missing_as[name] = v
        elif isinstance(v, (str, bool)) or v != v:
            self.err(tok, f"{show_name(name)} is numeric: a missing value counts as a number (or -inf, inf), "
                          f"not {show_value(v)}")
        else:
            self.missing_as[name] = float(v)

    def unseen_stmt(self, c):
        name_tok = c[0]
        self.stmts.append((name_tok.start_pos, "header", -1))
        if self.first_rule_line is not None:
            self.err(name_tok, "header lines come before the rules: move this 'unseen' line above the "
                               f"first rule (line {self.first_rule_line})")
        name, f = self._feature(name_tok)
        (v, tok), = self.typed_literals(c[1:])
        if f is None:
            return
        if name in self.unseen_as:
            self.err(name_tok, f"unseen values of {show_name(name)} are declared twice")
        elif f.kind != "nominal" or not f.domain:
            self.err(name_tok, f"{show_name(name)} has no domain: 'unseen' is said of a nominal feature's values")
        else:
            self._check_value(name, v, tok)
            self.unseen_as[name] = v

    def semantics_stmt(self, c):
        if self._header("semantics", c[0]):
            self.semantics = c[1].value

    def precision_stmt(self, c):
        if self._header("precision", c[0]):
            self.precision = c[1].value

    def link(self, c):
        return c[0].value

    def arithmetic(self, c):
        return c[0]

    def match(self, c):
        return c[0].value

    def decision(self, c):
        op, num = c
        if op.value not in (">=", ">") or num.value not in ("0", "0.0"):
            self.err(op, "a boosted classifier's decision is 'raw >= 0' or 'raw > 0'")
            return None
        return "raw" + op.value + "0"

    def base_score(self, c):
        return tuple(v for v, _ in self.numbers(c[0]))

    def tree_output(self, c):
        out = []
        for v, tok in self.typed_literals(c[0]):
            if type(v) is not int:
                self.err(tok, "tree_output lists whole numbers (the output of each tree)")
                continue
            out.append(v)
        return tuple(out)

    def number_list(self, c):
        return c

    def combiner_stmt(self, c):
        if not self._header("combiner", c[0]):
            return
        kw = dict(kind=c[1].value)
        if c[2] is not None:
            kw["link"] = c[2]
        if c[3] is not None:
            kw["base_score"] = c[3]
        if c[4] is not None:
            kw["tree_output"] = c[4]
        if c[5] is not None:
            kw["decision"] = c[5]
        if c[6] is not None:
            if kw["kind"] not in ("sum", "average"):
                self.err(c[6], "'arithmetic float32' applies to sum and average combiners only")
            else:
                kw["arithmetic"] = "float32"
        self.combiner = Combiner(**kw)

    def default_stmt(self, c):
        if self._header("default", c[0]):
            self.default_raw = c[1]

    def group_stmt(self, c):
        kw = c[0]
        self.stmts.append((kw.start_pos, "group", -1))
        vals = self.typed_literals(c[1:])
        v, tok = vals[0]
        if type(v) is not int:
            self.err(tok, "a group number is a whole number")
            return
        self.cur_group = v
