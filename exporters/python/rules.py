"""A rule base as a standalone Python module, deciding exactly as :mod:`rulekit.rules.engine` does.

Each rule's condition becomes the exact set of values that make it TRUE (the boxes of
:mod:`rulekit.rules.boxes`: canonical float64 intervals per feature, code sets per nominal feature,
a flag for missing), written as plain comparisons — so three-valued logic needs no special code:
a comparison on NaN is False, and ``is missing`` is ``x != x`` (nominal: code -2), so "x <= b or x
is missing" is written ``not (x > b)`` (numpy: ``~(X > b)``). Conditions too
large for boxes are written literal by literal after pushing negations down (exact in Kleene logic).
First-hit lists become ``if cond: return i`` one after the other (flat at any size; numpy:
``hit[cond] = i`` from the last rule to the first); ``vote`` and
``weighted-sum`` collect the matching rules; ensembles run one first-hit function per group and
combine the groups as the model's combiner does. The numpy batch functions evaluate the same
conditions column-wise and repeat the engine's arithmetic.
"""

from __future__ import annotations

import gc
import math
import textwrap


from rulekit.errors import ExportError
from rulekit.rules import boxes as bx
from rulekit.rules import engine
from rulekit.rules.base import And, Not, Or, RuleBase
from rulekit.semantics import intervals

from .text import INDENT, PRELUDE, api_listing, doc, nominal_tables, num, packed, runtime, tuple_of, value

MAX_NEST = 24  # sub-expressions nested deeper are assigned to temporaries first
MAX_TERMS = 32  # numpy `&`/`|` chains longer than this are split (a & b & … nests in the parser)


def rules_to_python(rb: RuleBase) -> str:
    was = gc.isenabled()
    gc.disable()
    try:
        return _RulesWriter(rb).module()
    finally:
        if was:
            gc.enable()


_FLIP = {">": "<", ">=": "<="}
_NEG = {">": "<=", ">=": "<", "<": ">=", "<=": ">"}


def _lower(at: float) -> tuple[str, str]:
    """``x >= at`` or the same test as ``x > prev(at)`` when that prints shorter (`x > 2.5`)."""
    prev = intervals.next_down(at)
    a, b = num(at), num(prev)
    return (">", b) if len(b) < len(a) and math.isfinite(prev) else (">=", a)


def _upper(at: float) -> tuple[str, str]:
    """``x <= at`` or the same test as ``x < next(at)`` when that prints shorter."""
    nxt = intervals.next_up(at)
    a, b = num(at), num(nxt)
    return ("<", b) if len(b) < len(a) and math.isfinite(nxt) else ("<=", a)


class _Cond:
    """Writes conditions as Python expressions, per row (``vector=False``) or per column (numpy)."""

    def __init__(self, schema: bx.LiteralSchema, vector: bool, cache: dict):
        self.schema = schema
        self.vector = vector
        self.cache = cache  # condition id -> (condition, boxes or None), shared by both passes
        self.linear: dict[tuple, str] = {}  # linear key -> variable
        self.used: set[int] = set()
        self.temps = 0

    def var(self, key) -> str:
        if isinstance(key, tuple):
            name = self.linear.get(key)
            if name is None:
                name = ("S" if self.vector else "s") + str(len(self.linear))
                self.linear[key] = name
                for _, feat in key[1]:
                    self.used.add(self.schema.key(feat))
            return name
        self.used.add(key)
        return ("X" if self.vector else "x") + str(key)

    def prelude(self) -> list[str]:
        """Lines that bind the feature columns/values and the linear sums used so far."""
        src = "C" if self.vector else "x"
        lines = [f"{'X' if self.vector else 'x'}{j} = {src}[{j}]" for j in sorted(self.used)]
        for key, name in self.linear.items():
            terms = [f"{num(c)} * {'X' if self.vector else 'x'}{self.schema.key(f)}" for c, f in key[1]]
            lines.append(f"{name} = " + " + ".join(terms))
        return lines

    # --- one constraint: key in c -------------------------------------------------------------
    def constraint(self, key, c) -> str:
        v = self.var(key)
        vec = self.vector
        parts: list[str] = []
        if isinstance(c, bx.NomSet):
            if c.is_universe:
                parts.append(f"{v} != -2")
            elif c.codes:
                codes = sorted(c.codes)
                if len(codes) == 1:
                    parts.append(f"{v} == {codes[0]}")
                elif vec:
                    parts.append(f"_np.isin({v}, ({', '.join(map(str, codes))},))")
                else:
                    parts.append(f"{v} in {{{', '.join(map(str, codes))}}}")
            if c.missing:
                parts.append(f"{v} == -2")
        elif c.missing and len(c.intervals) == 1 and c.intervals[0][0].at != c.intervals[0][1].at:
            # [lo, hi] or missing: "not below lo and not above hi" (a comparison on NaN is False),
            # one test per bound instead of two: smaller code, which compiles much faster
            lo, hi = c.intervals[0]
            outside = []
            if lo.at > -math.inf:
                op, lit = _lower(lo.at)
                outside.append(f"{v} {_NEG[op]} {lit}")
            if hi.at < math.inf:
                op, lit = _upper(hi.at)
                outside.append(f"{v} {_NEG[op]} {lit}")
            if not outside:
                return self.true()
            if vec:
                return f"~({outside[0]})" if len(outside) == 1 else f"~(({outside[0]}) | ({outside[1]}))"
            return f"not ({' or '.join(outside)})"
        else:
            for lo, hi in c.intervals:
                a, b = lo.at > -math.inf, hi.at < math.inf
                if a and b and lo.at == hi.at:
                    parts.append(f"{v} == {num(lo.at)}")
                    continue
                low, high = _lower(lo.at), _upper(hi.at)  # ("op", literal), the shorter spelling
                if a and b:
                    parts.append(f"({v} {low[0]} {low[1]}) & ({v} {high[0]} {high[1]})" if vec
                                 else f"{low[1]} {_FLIP[low[0]]} {v} {high[0]} {high[1]}")
                elif a:
                    parts.append(f"{v} {low[0]} {low[1]}")
                elif b:
                    parts.append(f"{v} {high[0]} {high[1]}")
                else:
                    parts.append(f"~_np.isnan({v})" if vec else f"{v} == {v}")
            if c.missing:
                parts.append(f"_np.isnan({v})" if vec else f"{v} != {v}")
        if not parts:
            return self.false()
        return self.join("or", parts)

    def true(self) -> str:
        return "_np.ones(n, bool)" if self.vector else "True"

    def false(self) -> str:
        return "_np.zeros(n, bool)" if self.vector else "False"

    def join(self, op: str, parts: list[str]) -> str:
        if len(parts) == 1:
            return parts[0]
        if self.vector:
            sym = " & " if op == "and" else " | "
            return sym.join(f"({p})" for p in parts)
        return f" {op} ".join(f"({p})" if (" or " in p or " and " in p) else p for p in parts)

    # --- a whole condition ----------------------------------------------------------------------
    def condition(self, cond, lines: list[str]) -> str:
        """An expression for ``cond`` (TRUE rows/values); helper assignments go to ``lines``."""
        hit = self.cache.get(id(cond))
        if hit is not None and hit[0] is cond:
            boxes = hit[1]
        else:
            boxes = self._conjunction(cond)
            if boxes is None:
                try:
                    boxes = bx.condition_boxes(cond, self.schema)
                except bx.TooComplex:
                    boxes = None
            self.cache[id(cond)] = (cond, boxes)
        if boxes is None:
            return self._literals(cond, lines)
        if not boxes:
            return self.false()
        terms = []
        for box in boxes:
            items = [self.constraint(k, c) for k, c in box.items.items()]
            terms.append(self.true() if not items else self._chain("and", items, lines))
        return self._chain("or", terms, lines)

    def _conjunction(self, cond) -> list[bx.Box] | None:
        """Boxes of a plain conjunction of literals and same-feature ``or``s (the shape of tree paths),
        with the same set operations as :func:`rulekit.rules.boxes.condition_boxes`, minus its
        general machinery; None for any other shape."""
        items: dict = {}
        for item in (cond.items if isinstance(cond, And) else (cond,)):
            if isinstance(item, Or):
                key = c = None
                for lit in item.items:
                    if isinstance(lit, (And, Or, Not)):
                        return None
                    k, s = self.schema.literal_set(lit)
                    if key is not None and k != key:
                        return None
                    key, c = k, (s if c is None else bx.union(c, s))
                if key is None:
                    return []  # an empty `or` is never TRUE
            elif isinstance(item, (And, Not)):
                return None
            else:
                key, c = self.schema.literal_set(item)
            old = items.get(key)
            c = c if old is None else bx.intersect(old, c)
            if c.is_empty:
                return []
            items[key] = c
        return [bx.Box({k: c for k, c in items.items() if not c.is_true})]

    def _chain(self, op: str, parts: list[str], lines: list[str]) -> str:
        if self.vector and len(parts) > MAX_TERMS:  # `a & b & …` nests one level per operand
            parts = [self._temp(self.join(op, parts[i:i + MAX_TERMS]), lines)
                     for i in range(0, len(parts), MAX_TERMS)]
            return self._chain(op, parts, lines) if len(parts) > MAX_TERMS else self.join(op, parts)
        return self.join(op, parts)

    def _temp(self, expr: str, lines: list[str]) -> str:
        name = ("T" if self.vector else "t") + str(self.temps)
        self.temps += 1
        lines.append(f"{name} = {expr}")
        return name

    def _literals(self, cond, lines: list[str]) -> str:
        """Literal by literal (negations pushed down first), temporaries past ``MAX_NEST`` levels."""

        def step(node, args):
            if isinstance(node, (And, Or)):
                op = "and" if isinstance(node, And) else "or"
                if not args:
                    return (self.true() if op == "and" else self.false()), 0
                depth = max(d for _, d in args) + 1
                expr = self._chain(op, [e for e, _ in args], lines)
                if depth > MAX_NEST:
                    return self._temp(expr, lines), 0
                return expr, depth
            key, c = self.schema.literal_set(node)
            return self.constraint(key, c), 1

        return bx.fold(bx.nnf(cond), step)[0]


class _RulesWriter:
    def __init__(self, rb: RuleBase):
        self.rb = rb
        self.cache: dict = {}
        self._schema = bx.LiteralSchema(rb)
        self.out = engine.outcomes(rb)
        self.cls = rb.task == "classification"
        self.groups = engine.groups(rb) if rb.combiner is not None else None
        if self.groups is not None and rb.combiner.tree_output is not None \
                and len(rb.combiner.tree_output) != len(self.groups):
            raise ExportError(f"the combiner names {len(rb.combiner.tree_output)} trees but the rules "
                              f"form {len(self.groups)} groups")

    def schema(self) -> bx.LiteralSchema:
        return self._schema

    def module(self) -> str:
        parts = [self.docstring(), PRELUDE, self.header(),
                 runtime("common", "math", "columns", "rules", "rules_batch"),
                 self.deciders(vector=False), self.deciders(vector=True), self.public()]
        return "\n\n\n".join(parts) + "\n"

    def docstring(self) -> str:
        rb = self.rb
        sem = "ensemble" if rb.combiner is not None else rb.semantics
        what = {
            "first-hit": "an ordered rule list: the first rule whose condition holds decides, else "
                         "the default",
            "vote": "unordered rules: every matching rule votes for its label with its weight (its "
                    "weight, else its confidence, else 1); no match gives the default",
            "weighted-sum": "unordered rules: the default's value plus weight * value of every "
                            "matching rule",
            "ensemble": f"rules grouped by tree: the first matching rule of each group decides "
                        f"that tree, then the trees are combined ({rb.combiner.kind if rb.combiner else ''})",
        }[sem]
        task = f"classification into {len(self.out.classes)} classes (CLASSES)" if self.cls else "regression"
        prec = ("float32: each threshold t is written as the float64 boundary b for which "
                "`x <= b` on a Python float equals `float32(x) <= t`" if rb.precision == "float32"
                else "float64, as written")
        api = api_listing(self.cls, "class label (None: no rule and no default)" if self.cls else "number")
        paragraphs = [
            f"Standalone predictor exported by rulekit from rule base {doc(rb.name)!s}: {task}.",
            f"Semantics: {what}. No rulekit import; numpy is optional (only the *_batch functions "
            "use it).",
            api,
            "row: a mapping from feature name to value, or a sequence in FEATURES order. Missing "
            "values (None, NaN, '' or pandas NA): a test on a missing value is not satisfied (nor is "
            "its negation); only `is missing` matches it (three-valued logic, as in SQL).",
            f"Comparisons: {prec}; linear tests sum coef * x left to right in float64. Nominal "
            "features take their labels; `=`/`in` are false for a value outside the domain, "
            "`!=`/`not in` true.",
        ]
        lines = [p if p.startswith("    ") else textwrap.fill(p, 96) for p in paragraphs]
        return '"""' + "\n\n".join(lines) + '\n"""'

    def header(self) -> str:
        rb, out = self.rb, self.out
        lines = [f"FEATURES = {tuple_of([value(f.name) for f in rb.features])}"]
        if self.cls:
            lines.append(f"CLASSES = {tuple_of([value(c) for c in out.classes])}")
        else:
            lines.append("CLASSES = ()")
        lines.append(f"_F = {len(rb.features)}")
        lines += nominal_tables(rb.features)
        lines.append(f"_TASK = {rb.task!r}")
        sem = "ensemble" if rb.combiner is not None else rb.semantics
        lines.append(f"_SEMANTICS = {sem!r}")
        c = rb.combiner
        lines.append(f"_COMBINE = {c.kind if c else None!r}")
        lines.append(f"_LINK = {c.link if c else None!r}")
        lines.append(f"_DECISION = {getattr(c, 'decision', None) if c else None!r}")
        lines.append(f"_F32 = {getattr(c, 'arithmetic', None) == 'float32'}")
        if c is not None:
            lines.append(f"_BASE = {tuple_of([num(b) for b in c.base_score]) if c.base_score else '()'}")
            outs = c.tree_output or (0,) * len(self.groups)
            lines.append(f"_TOUT = {packed(outs, 'q')}" if outs else "_TOUT = ()")
            lines.append(f"_NGROUPS = {num(float(len(self.groups)))}")
        R = len(rb.rules)
        lines.append(f"_R = {R}")
        lines.append("# per rule, then the default (last): class index (-1: none), value vector, weight")
        lines.append(f"_RCLS = {packed(out.cls, 'q')}")
        width = out.vec.shape[1]
        lines.append(f"_RVECF = {packed(out.vec.ravel(), 'd')}")
        lines.append(f"_RVEC = tuple(zip(*[iter(_RVECF)] * {width}))")
        lines.append(f"_RW = {packed(out.weight, 'd')}")
        return "\n".join(lines)

    # --- the functions that find the matching rules ---------------------------------------------
    def deciders(self, vector: bool) -> str:
        rb = self.rb
        if self.groups is not None:
            fns, names = [], []
            for g, (_, idx) in enumerate(self.groups):
                name = f"_group{g}" + ("_batch" if vector else "")
                names.append(name)
                fns.append(self._first_hit(name, idx, vector, f"Rule index that decides tree {g} (-1: none)."))
            table = f"{'_GROUPS_BATCH' if vector else '_GROUPS'} = ({''.join(n + ', ' for n in names)})"
            return "\n\n\n".join(fns) + "\n\n\n" + table
        idx = list(range(len(rb.rules)))
        if rb.semantics == "first-hit":
            return self._first_hit("_first_batch" if vector else "_first", idx, vector,
                                   "Index of the first rule whose condition holds (-1: none).")
        return self._all_matches("_matches_batch" if vector else "_matches", idx, vector)

    def _first_hit(self, name: str, idx: list[int], vector: bool, docline: str) -> str:
        """Per row: ``if cond: return i`` in rule order. Per column (numpy): ``hit[cond] = i`` from
        the last rule to the first, so the first rule that holds writes last (one statement per
        rule: less code to compile and fewer array operations than masking the open rows)."""
        cond = _Cond(self.schema(), vector, self.cache)
        chunks: list[list[str]] = []
        for i in idx:
            lines: list[str] = []
            self._schema.where = f"rule {engine.rule_name(self.rb, i)}: "
            expr = cond.condition(self.rb.rules[i].condition, lines)
            if vector:
                if expr != cond.false():
                    chunks.append(lines + [f"hit[{expr}] = {i}" if expr != cond.true() else f"hit[:] = {i}"])
                if expr == cond.true():
                    break
            elif expr == "True":
                chunks.append(lines + [f"return {i}"])
                break
            elif expr != "False":
                chunks.append(lines + [f"if {expr}:", f"    return {i}"])
            else:
                chunks.append(lines)
        if vector:
            body = ["hit = _np.full(n, -1, _np.int64)", "# last rule first: the first rule that holds writes last"]
            body += [line for chunk in reversed(chunks) for line in chunk] + ["return hit"]
        else:
            body = [line for chunk in chunks for line in chunk] + ["return -1"]
        return self._function(name, "C, n" if vector else "x", docline, cond.prelude() + body)

    def _all_matches(self, name: str, idx: list[int], vector: bool) -> str:
        cond = _Cond(self.schema(), vector, self.cache)
        body = ["match = _np.zeros((n, _R), bool)" if vector else "m = []"]
        for i in idx:
            lines: list[str] = []
            self._schema.where = f"rule {engine.rule_name(self.rb, i)}: "
            expr = cond.condition(self.rb.rules[i].condition, lines)
            body.extend(lines)
            if vector:
                body.append(f"match[:, {i}] = {expr}")
            elif expr != "False":
                body.append(f"if {expr}:")
                body.append(f"    m.append({i})")
        body.append("return match" if vector else "return m")
        return self._function(name, "C, n" if vector else "x", "The rules whose condition holds, in order.",
                              cond.prelude() + body)

    @staticmethod
    def _function(name: str, args: str, docline: str, body: list[str]) -> str:
        pad = INDENT[1]
        return "\n".join([f"def {name}({args}):", f'{pad}"""{docline}"""'] + [pad + b for b in body])

    def public(self) -> str:
        out = []
        if self.cls:
            out.append('def predict(row):\n'
                       '    """The class label of ``row`` (None when no rule decides and there is no default)."""\n'
                       '    k = _rb_row(_vec(row))[1]\n'
                       '    return CLASSES[k] if k >= 0 else None')
            out.append('def predict_proba(row):\n'
                       '    """Class probabilities of ``row``, in CLASSES order (NaN when nothing decides)."""\n'
                       '    vec, k = _rb_row(_vec(row))\n'
                       '    return list(vec) if k >= 0 else [_NAN] * len(CLASSES)')
            out.append('def predict_batch(X):\n'
                       '    """The class label of every row of ``X``."""\n'
                       '    if _np is None:\n'
                       '        return [predict(r) for r in _rows(X)]\n'
                       '    cls = _rb_batch(X)[1]\n'
                       '    kinds = {type(c) for c in CLASSES}\n'
                       '    if len(kinds) == 1:\n'
                       '        labels = _np.asarray(CLASSES)\n'
                       '    else:\n'
                       '        labels = _np.empty(len(CLASSES), object)\n'
                       '        labels[:] = CLASSES\n'
                       '    if (cls < 0).any():\n'
                       '        res = _np.empty(len(cls), object)\n'
                       '        ok = cls >= 0\n'
                       '        res[ok] = labels[cls[ok]]\n'
                       '        res[~ok] = None\n'
                       '        return res\n'
                       '    return labels[cls]')
            out.append('def predict_proba_batch(X):\n'
                       '    """Class probabilities for every row of ``X`` (n, len(CLASSES))."""\n'
                       '    if _np is None:\n'
                       '        return [predict_proba(r) for r in _rows(X)]\n'
                       '    vec, cls = _rb_batch(X)\n'
                       '    if (cls < 0).any():\n'
                       '        vec = vec.copy()\n'
                       '        vec[cls < 0] = _NAN\n'
                       '    return vec')
        else:
            out.append('def predict(row):\n'
                       '    """The prediction for ``row``."""\n'
                       '    return _rb_row(_vec(row))[0][0]')
            out.append('def predict_batch(X):\n'
                       '    """The prediction for every row of ``X``."""\n'
                       '    if _np is None:\n'
                       '        return [predict(r) for r in _rows(X)]\n'
                       '    return _rb_batch(X)[0][:, 0].copy()')
        return "\n\n\n".join(out)





__all__ = ["rules_to_python"]
