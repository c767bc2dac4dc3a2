"""A rulekit Model as a standalone Python module: nested ``if`` per row, numpy tables per batch.

Per row, each tree is nested ``if``/``else`` on plain floats (features in locals, scalar
accumulators; a single tree returns from its leaves, laid out for CPython's specialized
comparisons, see :mod:`.nested`) down to ``NEST_LIMIT`` levels; deeper subtrees, and every tree of
a model too large for inline code, are walked through the binary table (:mod:`.flat`). The numpy
batch functions walk the same table level by level for all rows and trees at once. Every threshold
is the canonical float64 boundary from :mod:`rulekit.semantics`, so ``x <= b`` on Python floats
equals the source model's comparison; sums follow ``Model.raw_output``'s order exactly.
"""

from __future__ import annotations

import gc
import textwrap

import numpy as np

from rulekit.errors import ExportError
from rulekit.ir.model import Model
from rulekit.semantics import combiners

from . import flat
from .nested import TRAMPOLINE, Layout, emit_tree
from .text import INDENT, PRELUDE, api_listing, doc, nominal_tables, num, nums, packed, runtime, tuple_of, value

NEST_LIMIT = 40  # tree levels written as nested ``if`` (CPython allows 100 indentation levels)
INLINE_MAX_NODES = 300_000  # above this many nodes in all, per-row code walks the table too


def model_to_python(model: Model, *, form: str = "auto") -> str:
    """Source text of the module. ``form``: "nested", "table" or "auto" (nested unless huge)."""
    if form not in ("auto", "nested", "table"):
        raise ExportError(f"unknown form {form!r} (choose auto, nested or table)")
    was_enabled = gc.isenabled()
    gc.disable()  # millions of small acyclic objects: the cyclic collector only rescans the graphs
    try:
        return _model_to_python(model, form)
    finally:
        if was_enabled:
            gc.enable()


def _model_to_python(model: Model, form: str) -> str:
    sizes = [len(f.domain or ()) for f in model.features]
    trees = [flat.flatten_tree(g, sizes) for g in model.trees]
    flat.set_bounds(trees)
    table = flat.build_table(trees, model.n_features)
    n_nodes = sum(len(t.kind) for t in trees)
    if form == "auto":
        form = "nested" if n_nodes <= INLINE_MAX_NODES else "table"
    return _Writer(model, trees, table, form).module()


class _Writer:
    def __init__(self, model: Model, trees: list[flat.Tree], table: flat.Table, form: str):
        self.m = model
        self.trees = trees
        self.tab = table
        self.form = form
        self.c = model.combiner
        self.red = model.reduction()  # the combiner as data (rulekit.semantics.combiners)
        self.cls = model.task == "classification"
        self.single = self.c.kind == "single"
        self.f32 = self.red.kind == "sum" and self.red.float32  # XGBoost's arithmetic
        self.avg32 = self.red.scale == "term"  # onnxruntime's float sums: float32(v / n) in float32
        self.n_out = self.red.width
        kinds = {k for t in trees for k in t.kind}
        precisions = {th[2] for t in trees for th in t.threshold if th is not None}
        nominal_used = flat.NOMINAL in kinds
        # plain floats/ints from a list or tuple compare exactly as is when every test is a float32
        # one (numpy float32 scalars compare in float32, which then agrees too); else convert
        self.trusting = not nominal_used and flat.LINEAR not in kinds and precisions <= {"float32"}
        self.precisions = precisions
        # numbers only, float64 tests: each used cell is checked to be a float (else converted),
        # the code then runs on locals; the table walker needs the whole converted row instead
        deep = form == "table" or any(flat.depth(t) >= NEST_LIMIT for t in trees)
        self.checked = not self.trusting and not nominal_used and not deep
        used: set[int] = set()
        for t in trees:
            used.update(t.feature)
            for feats, _ in t.linear.values():
                used.update(feats)
        self.used = sorted(used - {-1})
        self.domains = [tuple(f.domain or ()) for f in model.features]

    # --- module ------------------------------------------------------------------------------
    def module(self) -> str:
        rows = self.row_functions()
        out: list[str] = [self.docstring(trampolines=TRAMPOLINE in rows), PRELUDE, self.header(),
                          self.tables()]
        out.append(runtime("common", "walk", "math", "finish", "table_row", "columns", "batch"))
        out.append(rows)
        out.append(self.public())
        return "\n\n\n".join(out) + "\n"

    def docstring(self, trampolines: bool = False) -> str:
        m, c = self.m, self.c
        src = ", ".join(f"{k}={v}" for k, v in m.source.items() if isinstance(v, (str, int, float)))
        n = len(m.trees)
        what = {"single": "one decision tree",
                "average": f"{n} trees, their leaf values summed in tree order and divided by {n}",
                "vote": f"{n} trees, each voting for its leaf's most probable class",
                "sum": f"{n} boosted trees, scores summed in tree order after the base score"}[c.kind]
        if self.avg32:
            what = (f"{n} trees, each leaf value divided by {n} and rounded to float32, added in tree "
                    f"order in float32 (as onnxruntime's float forest does)")
        if c.kind == "sum":
            what += {"identity": "", "sigmoid": ", then the sigmoid 1/(1+exp(-s))",
                     "softmax": ", then softmax (maximum subtracted first)"}[c.link]
        task = (f"classification into {m.n_classes} classes (CLASSES)" if self.cls else "regression")
        tests = sorted({(th[0], th[2]) for t in self.trees for th in t.threshold if th is not None})
        spelled = ", ".join(f"`{'float32(x)' if p == 'float32' else 'x'} {op} t`" for op, p in tests)
        if not tests:
            prec = "the model has no threshold tests."
        else:
            prec = (f"the source tests {spelled}. "
                    "Each threshold t is written here as the float64 boundary b for which `x <= b` "
                    "on a Python float gives the source's answer for every value (float32 "
                    "rounding and `<` included), so plain float comparisons are exact.")
        if flat.LINEAR in {k for t in self.trees for k in t.kind}:
            prec += " Oblique tests sum w * x left to right in float64."
        paragraphs = [
            f"Standalone predictor exported by rulekit: {task}.",
            f"Source: {doc(src) or 'a rulekit model'}; {what}. No rulekit import; numpy is optional "
            "(only the *_batch functions use it).",
            None,
            "row: a mapping from feature name to value, or a sequence in FEATURES order. Missing "
            "values (None or NaN; also '' and pandas NA) take, at every split, the branch the source "
            "model sends them to.",
            "Comparisons: " + prec,
            ("Nominal features take their labels; a value outside the domain follows the split's "
             "'other' branch (else the missing one)." if any(f.kind == "nominal" for f in m.features)
             else ""),
            "Results equal the source model's: the same labels, probabilities to the last bit (or "
            "within 1e-15 where numpy's exp is missing).",
            ("Layout: `while test: break` / `else: A` / `B` reads as `if test: B else: A`. Large "
             "branches are written this way because CPython keeps a float comparison fast only when "
             "its conditional jump is short." if trampolines else ""),
        ]
        api = api_listing(self.cls, "class label" if self.cls else "number")
        out = []
        for para in paragraphs:
            if para != "":
                out.append(api if para is None else textwrap.fill(para, 96))
        return '"""' + "\n\n".join(out) + '\n"""'

    def header(self) -> str:
        m = self.m
        lines = [f"FEATURES = {tuple_of([value(f.name) for f in m.features])}"]
        if self.cls:
            lines.append(f"CLASSES = {tuple_of([value(c) for c in m.classes])}")
        lines.append(f"_F = {m.n_features}")
        lines += nominal_tables(m.features)
        c = self.c
        lines.append(f"_COMBINE = {c.kind!r}")
        lines.append(f"_LINK = {c.link!r}")
        lines.append(f"_DECISION = {getattr(c, 'decision', None)!r}")
        lines.append(f"_NTREES = {num(float(len(m.trees)))}")
        lines.append(f"_NOUT = {self.n_out}")
        lines.append(f"_F32 = {getattr(c, 'arithmetic', None) == 'float32'}")
        if c.kind == "sum":
            lines.append(f"_BASE = {tuple_of([num(b) for b in self.red.base])}")
            lines.append(f"_TOUT = ({', '.join(map(str, self.red.outputs))},)")
        else:
            lines.append("_BASE = ()")
            lines.append("_TOUT = ()")
        return "\n".join(lines)

    def tables(self) -> str:
        t = self.tab
        out = [
            "# The trees as binary nodes over the augmented row [features, derived, negated, NaN]:",
            "# next = _FIRST[i] + (v[_COL[i]] <= _CUT[i]); a leaf points at itself (_COL = _LEAFCOL).",
            f"_A = {t.n_aug}",
            f"_LEAFCOL = {t.leaf_col}",
            f"_DEPTH = {t.depth}",
            f"_ROOTS = ({', '.join(map(str, t.roots))},)",
            f"_DERIVED = {tuple_of([self._derived(d) for d in t.derived]) if t.derived else '()'}",
            f"_COL = {packed(t.col, 'q')}.tolist()  # lists: the per-row walker indexes them fastest",
            f"_CUT = {packed(t.cut, 'd')}.tolist()",
            f"_FIRST = {packed(t.first, 'q')}.tolist()",
            f"_LEAFNO = {packed(t.leafno, 'q')}.tolist()",
            f"_K = {len(t.leaf_value[0])}",
            f"_LVALF = {packed([v for row in t.leaf_value for v in row], 'd')}",
            "_LVAL = tuple(zip(*[iter(_LVALF)] * _K))  # leaf values, one tuple per leaf",
        ]
        best = np.argmax(np.asarray(t.leaf_value), axis=1)
        if (self.cls and self.single) or self.c.kind == "vote":
            out.append(f"_LBEST = {packed(best, 'q')}  # most probable class of each leaf")
        if self.cls and self.single:
            out.append("_LLABEL = tuple(CLASSES[k] for k in _LBEST)")
        out.append("_LVOTE = _LBEST" if self.c.kind == "vote" else "_LVOTE = ()")
        return "\n".join(out)

    @staticmethod
    def _derived(d: tuple) -> str:
        if d[0] == "route":
            return f"('route', {d[1]}, ({', '.join(map(str, d[2]))},))"
        return f"('linear', {tuple_of([str(f) for f in d[1]])}, {tuple_of([num(w) for w in d[2]])})"

    # --- per row -----------------------------------------------------------------------------
    def entry(self, ind: int) -> list[str]:
        """Lines binding ``x``: the row itself when it can be compared as is, else converted.
        Checked mode also binds every used feature to a local that is surely a float."""
        if not self.trusting and not self.checked:
            return [INDENT[ind] + "x = _vec(row)"]
        lines = [INDENT[ind] + "x = row",
                 INDENT[ind] + "c = row.__class__",
                 INDENT[ind] + f"if (c is not list and c is not tuple) or len(row) != {self.m.n_features}:",
                 INDENT[ind + 1] + "x = _vec(row)"]
        if self.checked:
            for f in self.used:
                lines += [INDENT[ind] + f"x{f} = x[{f}]",
                          INDENT[ind] + f"if x{f}.__class__ is not float:",
                          INDENT[ind + 1] + f"x{f} = _num(x{f}, {f})"]
        return lines

    def guarded(self, body: list[str], name: str = "x") -> list[str]:
        """``body`` (indented for 3 levels) retried on a converted row when a cell is not a number.

        ``name="row"`` (one tree): the row is used as is, with no type or length test up front;
        anything that is not a sequence of numbers fails on first use and is converted (the
        converted row holds only floats, so the second round cannot fail)."""
        if not self.trusting:  # no loop, no try: dedent by two levels (leaf lines hold newlines)
            # (checked mode: the cells were converted one by one; else the whole row by _vec)
            return [line[8:] for line in "\n".join(body).split("\n")]
        if name == "row":
            return (["    while True:", "        try:"] + body
                    + ["        except (TypeError, KeyError, IndexError):  # None, text, a mapping ...",
                       "            row = _vec(row)  # convert the row and go again"])
        return (["    while True:", "        try:"] + body
                + ["        except (TypeError, KeyError, IndexError):  # None, text ...",
                   "            if x is not row:", "                raise",
                   "            x = _vec(row)  # convert the row and go again"])

    def row_functions(self) -> str:
        if self.single and self.form == "nested":
            return self.single_tree_functions()
        return self.ensemble_function()

    def single_tree_functions(self) -> str:
        t, gid = self.trees[0], self.tab.gid[0]
        var = "row" if self.trusting else "x"
        access = (lambda f: f"x{f}") if self.checked else (lambda f: f"{var}[{f}]")
        out = []
        layout = Layout(t, NEST_LIMIT, 1 if self.checked else 7)
        variants = [("predict", "label" if self.cls else "value")]
        if self.cls:
            variants.append(("predict_proba", "proba"))
        for name, what in variants:
            def leaf(i: int, what=what) -> list[str]:
                v = t.value[i]
                if what == "label":
                    return [f"return {value(self.m.classes[int(np.argmax(v))])}"]
                if what == "proba":
                    return [f"return [{nums(v)}]"]
                return [f"return {num(v[0])}"]

            def frontier(i: int, what=what) -> list[str]:
                leafrow = f"_walk({gid[i]}, {var})"
                if what == "label":
                    return [f"return _LLABEL[{leafrow}]"]
                if what == "proba":
                    return [f"return list(_LVAL[{leafrow}])"]
                return [f"return _LVAL[{leafrow}][0]"]

            body: list[str] = []
            emit_tree(t, access, leaf, frontier, 3, NEST_LIMIT, body, self.domains, layout)
            doc_line = {"label": "The class label of ``row``.", "value": "The prediction for ``row``.",
                        "proba": "Class probabilities of ``row``, in CLASSES order."}[what]
            entry = self.entry(1) if var == "x" else []
            out.append("\n".join([f"def {name}(row):", f'    """{doc_line}"""'] + entry
                                 + self.guarded(body, var)))
        return "\n\n\n".join(out)

    def ensemble_function(self) -> str:
        body: list[str] = []
        if self.form == "table":
            body.append(INDENT[3] + "return _table_acc(x)")
        else:
            if not self.checked:  # (checked mode binds them in the entry lines)
                for f in self.used:
                    body.append(INDENT[3] + f"x{f} = x[{f}]")
            acc = [f"p{k}" for k in range(self.n_out)]
            if self.c.kind == "sum":
                for k in range(self.n_out):
                    body.append(INDENT[3] + f"p{k} = {num(self.red.base[k])}")
            else:
                body.append(INDENT[3] + " = ".join(acc) + " = 0.0")
            outs = self.red.outputs or (0,) * len(self.trees)
            access = lambda f: f"x{f}"  # noqa: E731
            for ti, t in enumerate(self.trees):
                body.append(INDENT[3] + f"# tree {ti}")
                gid = self.tab.gid[ti]
                leaf, frontier = self._accumulate(t, gid, outs[ti])
                emit_tree(t, access, leaf, frontier, 3, NEST_LIMIT, body, self.domains)
            body.append(INDENT[3] + f"return [{', '.join(acc)}]")
        return "\n".join(["def _acc(row):",
                          '    """Accumulators of ``row`` before the final combination."""']
                         + self.entry(1) + self.guarded(body))

    def _accumulate(self, t: flat.Tree, gid: list[int], out: int):
        kind = self.c.kind
        K = self.n_out

        names = [f"p{k} += " for k in range(K)]
        ids = list(t.value)
        reps = nums([x for i in ids for x in t.value[i]]).split(", ")  # all literals in one pass
        width = len(t.value[ids[0]]) if ids else 0
        texts: dict[int, list[str]] = {}
        for n, i in enumerate(ids):
            v = t.value[i]
            if kind == "sum" and self.f32:
                texts[i] = [f"p{out} = _r32(p{out} + {reps[n]})"]
            elif kind == "sum":
                texts[i] = [f"p{out} += {reps[n]}"]
            elif kind == "vote":
                texts[i] = [f"p{combiners.vote_of(v)} += 1.0"]
            elif self.avg32:  # float32(v / n) added in float32
                lits = nums([combiners.term(self.red, x) for x in v]).split(", ")
                texts[i] = [f"p{k} = _r32(p{k} + {lits[k]})" for k, x in enumerate(v) if x != 0.0] or ["pass"]
            else:
                base = n * width
                texts[i] = [names[k] + reps[base + k] for k, x in enumerate(v) if x != 0.0] or ["pass"]
        leaf = texts.__getitem__

        def frontier(i: int) -> list[str]:
            leafrow = f"_walk({gid[i]}, x)"
            if kind == "sum" and self.f32:
                return [f"p{out} = _r32(p{out} + _LVAL[{leafrow}][0])"]
            if kind == "sum":
                return [f"p{out} += _LVAL[{leafrow}][0]"]
            if kind == "vote":
                return [f"k = _LVOTE[{leafrow}]"] + [f"p{k} += k == {k}" for k in range(K)]
            if self.avg32:
                return [f"v = _LVAL[{leafrow}]"] + [f"p{k} = _r32(p{k} + _r32(v[{k}] / _NTREES))" for k in range(K)]
            return [f"v = _LVAL[{leafrow}]"] + [f"p{k} += v[{k}]" for k in range(K)]

        return leaf, frontier

    def public(self) -> str:
        cls = self.cls
        out = []
        if not (self.single and self.form == "nested"):
            if cls:
                out.append('def predict_proba(row):\n'
                           '    """Class probabilities of ``row``, in CLASSES order."""\n'
                           '    return _proba(_acc(row))')
                out.append('def predict(row):\n'
                           '    """The class label of ``row``."""\n'
                           '    return _label(_acc(row))')
            else:
                finish = {"single": "a[0]", "average": "a[0] / _NTREES", "sum": "a[0]"}[self.c.kind]
                out.append('def predict(row):\n'
                           '    """The prediction for ``row``."""\n'
                           f'    a = _acc(row)\n    return {finish}')
        if cls:
            out.append('def predict_proba_batch(X):\n'
                       '    """Class probabilities for every row of ``X`` (n, len(CLASSES))."""\n'
                       '    if _np is None:\n'
                       '        return [predict_proba(r) for r in _rows(X)]\n'
                       '    return _proba_batch(_raw_batch(X))')
            out.append('def predict_batch(X):\n'
                       '    """The class label of every row of ``X``."""\n'
                       '    if _np is None:\n'
                       '        return [predict(r) for r in _rows(X)]\n'
                       '    return _labels_batch(_raw_batch(X))')
        else:
            out.append('def predict_batch(X):\n'
                       '    """The prediction for every row of ``X``."""\n'
                       '    if _np is None:\n'
                       '        return [predict(r) for r in _rows(X)]\n'
                       '    return _raw_batch(X)[:, 0]')
        return "\n\n\n".join(out)
