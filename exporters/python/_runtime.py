# ruff: noqa: F821  -- the names it uses (FEATURES, _F, _NOMINAL, tables ...) come from the generated header
"""Helpers pasted into every generated module (this file is read as text, never imported by it).

Sections are cut out by the ``#: section`` markers below, so a module carries only what it uses.

Why one file of ~700 lines: it is not a module but the text library of generated code; each
section is one unit (row input, walking, float math, finishing the combiner, columns, batches,
rule bases), and text.runtime() reads them from this one file. The combiner arithmetic here
spells :mod:`rulekit.semantics.combiners` in plain Python (``_proba``, ``_label``, ``_rb_combine``).
"""

#: section common


def _num(v, j):
    """A numeric cell as a float: None, NaN, '' and pandas NA are missing (NaN)."""
    if v.__class__ is float:
        return v
    if v is None:
        return _NAN
    if isinstance(v, str) and v == "":
        return _NAN
    try:
        return float(v)
    except (TypeError, ValueError):
        if type(v).__name__ in ("NAType", "NaTType"):
            return _NAN
    raise ValueError(f"feature {FEATURES[j]!r}: {v!r} is not a number")


def _code(v, j):
    """A nominal cell as its code: index in the domain, -1 for an unseen value, -2 for missing."""
    lookup, int_domain, exact = _NOMINAL[j]
    if _np is not None and isinstance(v, _np.generic):
        v = v.item()
    if v is None or (isinstance(v, float) and v != v) or (isinstance(v, str) and v == ""):
        return -2
    if type(v).__name__ in ("NAType", "NaTType"):
        return -2
    try:
        code = lookup.get(v)
    except TypeError:  # unhashable
        code = None
    if code is None and not isinstance(v, str):
        code = lookup.get(str(v))
    if code is None and int_domain:
        try:
            f = float(v)
        except (TypeError, ValueError):
            f = _NAN
        if f - f == 0.0 and (not exact or f.is_integer()):
            code = lookup.get(int(f))
    return -1 if code is None else code


def _vec(row):
    """``row`` (a mapping name -> value, or a sequence in FEATURES order) as a list of floats/codes."""
    if hasattr(row, "keys"):
        try:
            vals = [row[name] for name in FEATURES]
        except KeyError as err:
            raise ValueError(f"row has no feature {err.args[0]!r}") from None
    else:
        if _np is not None and isinstance(row, _np.ndarray):
            row = row.tolist()
        vals = list(row)
        if len(vals) != _F:
            raise ValueError(f"row has {len(vals)} values, the model has {_F} features")
    return [_num(v, j) if _NOMINAL[j] is None else _code(v, j) for j, v in enumerate(vals)]


#: section walk


def _derive(c, x):
    """Value of augmented column ``c`` (a derived column or a negated one) for the row ``x``."""
    neg = c >= _A
    if neg:
        c -= _A
    if c < _F:
        v = x[c]
    else:
        d = _DERIVED[c - _F]
        if d[0] == "route":
            v = d[2][x[d[1]] + 2]
        else:
            feats, weights = d[1], d[2]
            v = weights[0] * x[feats[0]]
            for k in range(1, len(feats)):
                v = v + weights[k] * x[feats[k]]
    return -v if neg else v


def _walk(i, x):
    """Follow the binary table from node ``i`` to a leaf; returns the leaf's row in _LVAL."""
    col, cut, first = _COL, _CUT, _FIRST
    while True:
        c = col[i]
        if c < _F:
            v = x[c]
        elif c == _LEAFCOL:
            return _LEAFNO[i]
        else:
            v = _derive(c, x)
        i = first[i] + (v <= cut[i])


#: section math


def _exp(z):
    """numpy's exp when numpy is there (Model's softmax uses it), else the C library's."""
    if z > 709.782712893384:
        return _INF
    return float(_npexp(z)) if _npexp is not None else _math.exp(z)


_S32 = _struct.Struct("f")


def _r32(v):
    """``v`` rounded to float32: XGBoost adds and links in float32 (one rounding per operation)."""
    try:
        return _S32.unpack(_S32.pack(v))[0]
    except OverflowError:
        return _math.copysign(_INF, v)


def _proba32(acc):
    """XGBoost's float32 sigmoid (exp argument clamped at 88.7) or softmax (exps summed in float64)."""
    if _LINK == "sigmoid":
        e = _r32(_exp(min(-acc[0], 88.69999694824219)))
        p = _r32(1.0 / _r32(_r32(e + 1.0) + 1.0000000168623835e-16))
        return [_r32(1.0 - p), p]
    top = max(acc)
    e = [_r32(_exp(_r32(r - top))) for r in acc]
    s = 0.0
    for v in e:
        s += v
    s = _r32(s)
    return [_r32(v / s) for v in e]


def _avg32(acc):
    """Float32 sums of ``float32(v / n)`` as probabilities: two classes ``[1 - s, s]`` in float32
    (onnxruntime's float classifier, ``average`` with ``arithmetic="float32"``)."""
    return [_r32(1.0 - acc[1]), acc[1]] if len(acc) == 2 else list(acc)


def _sigmoid(r):
    """1 / (1 + exp(-r)) with the C library's exp, as the IR (scipy's expit) and the sources do."""
    z = -r
    return 1.0 / (1.0 + (_INF if z > 709.782712893384 else _math.exp(z)))


def _sum(values):
    """Sum in numpy's pairwise order (what ``ndarray.sum`` does), so softmax is bit-identical."""
    n = len(values)
    if n < 8:
        s = 0.0
        for v in values:
            s += v
        return s
    stack, total = [(0, n)], []
    while stack:  # split like numpy: blocks of at most 128, halves rounded to a multiple of 8
        lo, hi = stack.pop()
        m = hi - lo
        if m > 128:
            h = m // 2
            h -= h % 8
            stack.append((lo + h, hi))
            stack.append((lo, lo + h))
            continue
        if m < 8:
            s = 0.0
            for v in values[lo:hi]:
                s += v
            total.append(s)
            continue
        r = list(values[lo:lo + 8])
        i = lo + 8
        end = hi - m % 8
        while i < end:
            for k in range(8):
                r[k] += values[i + k]
            i += 8
        s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < hi:
            s += values[i]
            i += 1
        total.append(s)
    # numpy adds the two halves of each split: rebuild that pairing from the leaf sums
    return _pair_up(n, total)


def _pair_up(n, parts):
    """Combine block sums in numpy's split tree (explicit stack, left half first)."""
    out, it = [], iter(parts)
    stack = [(n, False)]
    while stack:
        m, done = stack.pop()
        if m <= 128 and not done:
            out.append(next(it))
            continue
        if not done:
            h = m // 2
            h -= h % 8
            stack.append((m, True))
            stack.append((m - h, False))
            stack.append((h, False))
            continue
        b = out.pop()
        a = out.pop()
        out.append(a + b)
    return 0.0 + out[0]


def _argmax(values):
    k, best = 0, values[0]
    for j in range(1, len(values)):
        if values[j] > best:
            k, best = j, values[j]
    return k


def _proba32_batch(raw):
    """:func:`_proba32` for a numpy (n, k) array of float32 sums (exp in float64, rounded once)."""
    np = _np
    f32 = np.float32
    r = raw.astype(f32)
    if _LINK == "sigmoid":
        e = np.exp(np.minimum(-r[:, 0], f32(88.7)).astype(np.float64)).astype(f32)
        p = f32(1) / ((e + f32(1)) + f32(1e-16))
        return np.column_stack([f32(1) - p, p]).astype(np.float64)
    e = np.exp((r - r.max(axis=1, keepdims=True)).astype(np.float64)).astype(f32)
    s = np.zeros(len(r))
    for j in range(r.shape[1]):
        s += e[:, j]
    return (e / s.astype(f32)[:, None]).astype(np.float64)


#: section finish


def _proba(acc):
    """Class probabilities from the accumulators, in Model.predict_proba's arithmetic."""
    if _COMBINE == "sum":
        if _F32:
            return _proba32(acc)
        if _LINK == "sigmoid":
            p = _sigmoid(acc[0])
            return [1.0 - p, p]
        top = max(acc)
        e = [_exp(r - top) for r in acc]
        s = _sum(e)
        return [v / s for v in e]
    if _COMBINE == "single":
        return list(acc)
    if _F32:
        return _avg32(acc)
    return [v / _NTREES for v in acc]


def _label(acc):
    """The class label from the accumulators (raw scores decide when the source says so)."""
    if _DECISION is not None:
        if _LINK == "sigmoid":
            hit = acc[0] >= 0 if _DECISION == "raw>=0" else acc[0] > 0
            return CLASSES[1 if hit else 0]
        return CLASSES[_argmax(acc)]
    return CLASSES[_argmax(_proba(acc))]


#: section table_row


def _table_acc(x):
    """Accumulators of every tree walked through the table (the form for very large models)."""
    if _COMBINE == "sum":
        acc = list(_BASE)
        for t, root in enumerate(_ROOTS):
            acc[_TOUT[t]] += _LVAL[_walk(root, x)][0]
            if _F32:
                acc[_TOUT[t]] = _r32(acc[_TOUT[t]])
        return acc
    acc = [0.0] * _NOUT
    if _COMBINE == "vote":  # hard voting: one vote per tree for its leaf's first most probable class
        for root in _ROOTS:
            acc[_LVOTE[_walk(root, x)]] += 1.0
        return acc
    for root in _ROOTS:
        v = _LVAL[_walk(root, x)]
        for k in range(_NOUT):
            acc[k] = _r32(acc[k] + _r32(v[k] / _NTREES)) if _F32 else acc[k] + v[k]
    return acc


#: section columns


_DOMS = None


def _doms():
    """Sorted integer domains (and their order) for encoding whole numeric columns at once."""
    global _DOMS
    if _DOMS is None:
        np = _np
        doms = []
        for j, nom in enumerate(_NOMINAL):
            if nom is not None and nom[1]:
                dom = np.asarray(_DOMAINS[j], np.int64)
                order = np.argsort(dom)
                doms.append((dom[order], order))
            else:
                doms.append(None)
        _DOMS = doms
    return _DOMS


def _columns(X):
    """Columns of ``X`` in FEATURES order: by name for data frames and mappings, else by position."""
    np = _np
    if hasattr(X, "columns") and not isinstance(X, np.ndarray):
        names = {str(c): c for c in X.columns}
        if all(n in names for n in FEATURES):
            return [np.asarray(X[names[n]]) for n in FEATURES], len(X)
        if len(names) == _F and all(isinstance(c, int) for c in X.columns):
            return [np.asarray(X.iloc[:, j]) for j in range(_F)], len(X)
        missing = next(n for n in FEATURES if n not in names)
        raise ValueError(f"data has no column {missing!r}")
    if hasattr(X, "keys"):
        try:
            cols = [np.asarray(X[n]) for n in FEATURES]
        except KeyError as err:
            raise ValueError(f"data has no column {err.args[0]!r}") from None
        return cols, (len(cols[0]) if cols else 0)
    arr = np.asarray(X)
    if arr.ndim == 1:
        arr = arr.reshape(0 if arr.size == 0 else 1, -1 if arr.size else _F)
    if arr.ndim != 2 or arr.shape[1] != _F:
        raise ValueError(f"data must have shape (n, {_F}), got {arr.shape}")
    return [arr[:, j] for j in range(_F)], arr.shape[0]


def _rows(X):
    """Rows of ``X`` without numpy: a mapping of columns or a sequence of rows."""
    if hasattr(X, "keys"):
        cols = [list(X[n]) for n in FEATURES]
        return [list(r) for r in zip(*cols)]
    return list(X)


def _encode(cols, doms):
    """Numeric columns as float64 (NaN missing); nominal columns as int codes (-1 unseen, -2 missing)."""
    np = _np
    out = []
    for j, col in enumerate(cols):
        nom = _NOMINAL[j]
        kind = col.dtype.kind
        if nom is None:
            if kind in "fiub":
                out.append(col.astype(np.float64))
            else:
                out.append(np.array([_num(v, j) for v in col.tolist()], np.float64))
        elif nom[1] and kind in "fiub":  # integer domain, numbers: truncate (or match exactly)
            x = col.astype(np.float64)
            codes = np.full(x.shape[0], -1, np.int64)
            miss = np.isnan(x)
            with np.errstate(invalid="ignore"):
                t = np.trunc(x)
            ok = ~miss & np.isfinite(t) & (np.abs(t) < 2.0 ** 62)
            if nom[2]:
                ok &= t == x
            sorted_dom, order = doms[j]
            if sorted_dom.size:
                ti = t[ok].astype(np.int64)
                pos = np.searchsorted(sorted_dom, ti).clip(0, sorted_dom.size - 1)
                codes[ok] = np.where(sorted_dom[pos] == ti, order[pos], -1)
            codes[miss] = -2
            out.append(codes)
        else:
            out.append(np.array([_code(v, j) for v in col.tolist()], np.int64))
    return out


#: section batch


_TABLES = None


def _tables():
    global _TABLES
    if _TABLES is None:
        np = _np
        nodes = np.asarray(_COL, np.intp), np.asarray(_CUT, np.float64), np.asarray(_FIRST, np.intp)
        leafno = np.asarray(_LEAFNO, np.intp)
        lval = np.asarray(_LVALF, np.float64).reshape(-1, _K)
        derived = [(d[0], d[1], np.asarray(d[2], np.float64)) if d[0] == "route" else d for d in _DERIVED]
        _TABLES = nodes, leafno, lval, _doms(), derived, np.asarray(_ROOTS, np.intp)
    return _TABLES


def _augment(enc, derived, lo, hi):
    """The augmented rows ``lo:hi``: features, derived columns, their negations, NaN."""
    np = _np
    A = _A
    E = np.empty((hi - lo, 2 * A + 1))
    for j in range(_F):
        E[:, j] = enc[j][lo:hi]
    for k, d in enumerate(derived):
        if d[0] == "route":
            E[:, _F + k] = d[2][enc[d[1]][lo:hi] + 2]
        else:
            feats, weights = d[1], d[2]
            with np.errstate(invalid="ignore", over="ignore"):  # inf - inf: NaN, routed as missing
                s = weights[0] * E[:, feats[0]]
                for i in range(1, len(feats)):
                    s = s + weights[i] * E[:, feats[i]]
            E[:, _F + k] = s
    np.negative(E[:, :A], out=E[:, A:2 * A])
    E[:, 2 * A] = _NAN
    return E


def _apply(E, tables):
    """Leaf row (in _LVAL) reached by every (row, tree): all trees advance one level per step."""
    np = _np
    (col, cut, first), leafno, roots = tables[0], tables[1], tables[5]
    m, w = E.shape
    flat = E.ravel()
    node = np.tile(roots, m)
    base = np.repeat(np.arange(m, dtype=np.intp) * w, roots.size)
    idx = np.empty_like(node)
    v = np.empty(node.size)
    le = np.empty(node.size, bool)
    if _DEPTH <= 64:
        for _ in range(_DEPTH):
            np.take(col, node, out=idx)
            idx += base
            np.take(flat, idx, out=v)
            np.less_equal(v, cut[node], out=le)
            node = first[node]
            node += le
        return leafno[node].reshape(m, roots.size)
    done = np.empty_like(node)
    alive = np.arange(node.size)
    left = _DEPTH
    while left > 0 and alive.size:  # deep trees: drop finished rows every 32 steps
        for _ in range(min(32, left)):
            v = flat[col[node] + base]
            node = first[node] + (v <= cut[node])
        left -= 32
        done[alive] = node
        keep = col[node] != _LEAFCOL
        alive, node, base = alive[keep], node[keep], base[keep]
    done[alive] = node
    return leafno[done].reshape(m, roots.size)


def _raw_batch(X):
    """Model.raw_output for ``X`` (chunked; same arithmetic, tree order kept)."""
    np = _np
    tables = _tables()
    cols, n = _columns(X)
    enc = _encode(cols, tables[3])
    lval = tables[2]
    n_trees = len(_ROOTS)
    raw = np.empty((n, _NOUT))
    step = max(1, min(262144 // n_trees, 4194304 // (2 * _A + 1)))  # (row, tree) pairs and cells
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        leaves = _apply(_augment(enc, tables[4], lo, hi), tables)
        if _COMBINE == "single":
            raw[lo:hi] = lval[leaves[:, 0]]
        elif _COMBINE == "average" and _F32:  # float32(v / n) added in tree order in float32
            acc = np.zeros((hi - lo, _NOUT), np.float32)
            for t in range(n_trees):
                acc += (lval[leaves[:, t]] / n_trees).astype(np.float32)
            if _NOUT == 2:
                acc[:, 0] = np.float32(1) - acc[:, 1]
            raw[lo:hi] = acc
        elif _COMBINE == "average":
            raw[lo:hi] = np.cumsum(lval[leaves], axis=1)[:, -1] / n_trees
        elif _COMBINE == "vote":
            votes = np.argmax(lval, axis=1)[leaves]
            for k in range(_NOUT):
                raw[lo:hi, k] = (votes == k).sum(axis=1)
            raw[lo:hi] /= n_trees
        else:
            vals = lval[leaves, 0]
            for k in range(_NOUT):
                if _F32:  # float32 additions in tree order, as XGBoost
                    acc = np.full(hi - lo, _BASE[k], np.float32)
                    for t in range(n_trees):
                        if _TOUT[t] == k:
                            acc += vals[:, t].astype(np.float32)
                    raw[lo:hi, k] = acc
                    continue
                trees = [t for t in range(n_trees) if _TOUT[t] == k]
                seq = np.empty((hi - lo, len(trees) + 1))
                seq[:, 0] = _BASE[k]
                seq[:, 1:] = vals[:, trees]
                raw[lo:hi, k] = np.cumsum(seq, axis=1)[:, -1]
    return raw


def _proba_batch(raw):
    np = _np
    if _COMBINE != "sum":
        return raw
    if _F32:
        return _proba32_batch(raw)
    if _LINK == "sigmoid":
        p = np.array([_sigmoid(r) for r in raw[:, 0].tolist()], np.float64)
        return np.column_stack([1.0 - p, p])
    z = raw - raw.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _labels_batch(raw):
    np = _np
    kinds = {type(c) for c in CLASSES}
    labels = np.asarray(CLASSES, dtype=None if len(kinds) == 1 else object)
    if _DECISION is not None:
        if _LINK == "sigmoid":
            hit = raw[:, 0] >= 0 if _DECISION == "raw>=0" else raw[:, 0] > 0
            return labels[hit.astype(np.int64)]
        return labels[np.argmax(raw, axis=1)]
    return labels[np.argmax(_proba_batch(raw), axis=1)]


#: section rules


def _div(a, b):
    """``a / b`` as numpy divides: inf or NaN for a zero divisor, never an exception."""
    if b == 0.0:
        if a != a or a == 0.0:
            return _NAN
        return _math.copysign(_INF, a) * _math.copysign(1.0, b)
    return a / b


def _rb_row(x):
    """(value vector, class index or -1) of one converted row, decided as rulekit's rule engine does."""
    if _SEMANTICS == "ensemble":
        return _rb_combine([g(x) for g in _GROUPS])
    if _SEMANTICS == "first-hit":
        i = _first(x)  # -1: the default, stored last
        return _RVEC[i], _RCLS[i]
    m = _matches(x)
    if _SEMANTICS == "vote":
        if _TASK == "regression":  # the weighted mean of the matching values
            if not m:
                return _RVEC[-1], -1
            w = [0.0] * _R
            for i in m:
                w[i] = _RW[i]
            s = 0.0
            for i in m:
                s += w[i] * _RVEC[i][0]
            return (_div(s, _sum(w)),), -1
        if not m:
            return _RVEC[-1], _RCLS[-1]
        votes = [0.0] * len(CLASSES)
        for i in m:
            votes[_RCLS[i]] += _RW[i]
        tot = _sum(votes)
        return ([v / tot for v in votes] if tot > 0 else [0.0] * len(votes)), _argmax(votes)
    total = list(_RVEC[-1])  # weighted-sum: the default plus weight * value of every match
    for i in m:
        w = _RW[i]
        total = [t + w * v for t, v in zip(total, _RVEC[i])]
    if _TASK == "regression":
        return total, -1
    s = _sum(total)
    return ([v / s for v in total] if s > 0 else [0.0] * len(total)), _argmax(total)


def _rb_combine(hits):
    """Groups (trees) combined as the model's combiner does, in its arithmetic order."""
    vals = [_RVEC[h] for h in hits]
    if _COMBINE == "sum":
        raw = list(_BASE)
        for k, v in zip(_TOUT, vals):
            raw[k] += v[0]
            if _F32:  # XGBoost's float32 additions, in tree order
                raw[k] = _r32(raw[k])
        if _TASK == "regression":
            return raw[:1], -1
        if _F32:  # XGBoost's float32 link; the raw-score decision below still decides
            proba = _proba32(raw)
        elif _LINK == "sigmoid":
            p = _sigmoid(raw[0])
            proba = [1.0 - p, p]
        else:
            top = max(raw)
            e = [_exp(r - top) for r in raw]
            s = _sum(e)
            proba = [v / s for v in e]
        if _DECISION is None:
            return proba, _argmax(proba)
        if _LINK == "sigmoid":
            return proba, 1 if (raw[0] >= 0 if _DECISION == "raw>=0" else raw[0] > 0) else 0
        return proba, _argmax(raw)
    if _COMBINE == "vote":
        votes = [0.0] * len(CLASSES)
        for v in vals:
            votes[_argmax(v)] += 1.0
        proba = [v / _NGROUPS for v in votes]
        return proba, _argmax(proba)
    if _COMBINE == "average" and _F32:
        total = [0.0] * len(vals[0])
        for v in vals:
            total = [_r32(a + _r32(b / _NGROUPS)) for a, b in zip(total, v)]
        proba = _avg32(total)
        return proba, _argmax(proba)
    total = list(vals[0])
    for v in vals[1:]:
        total = [a + b for a, b in zip(total, v)]
    if _COMBINE == "average":
        total = [v / _NGROUPS for v in total]
    if _TASK == "regression":
        return total, -1
    return total, _argmax(total)


#: section rules_batch


def _rb_batch(X):
    """(values (n, width), class index per row or None) for every row of ``X``, vectorized."""
    np = _np
    cols, n = _columns(X)
    C = _encode(cols, _doms())
    vec = np.asarray(_RVEC, np.float64).reshape(len(_RVEC), -1)
    cls_of = np.asarray(_RCLS, np.int64)
    R = len(_RVEC) - 1
    if _SEMANTICS == "ensemble":
        return _rb_combine_batch([g(C, n) for g in _GROUPS_BATCH], vec, n)
    if _SEMANTICS == "first-hit":
        hit = _first_batch(C, n)
        return vec[hit], (cls_of[hit] if _TASK == "classification" else None)
    match = _matches_batch(C, n)
    none = ~match.any(axis=1)
    weight = np.asarray(_RW, np.float64)
    if _SEMANTICS == "vote":
        if _TASK == "regression":
            w = match * weight[:R]
            tot = w.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                val = (w @ vec[:R, 0]) / tot
            val = np.where(none, vec[R, 0], val)
            return val[:, None], None
        K = len(CLASSES)
        votes = np.zeros((n, K))
        for i in range(R):
            votes[match[:, i], cls_of[i]] += weight[i]
        tot = votes.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            proba = np.where(tot > 0, votes / np.where(tot > 0, tot, 1.0), 0.0)
        proba[none] = vec[R]
        cls = np.argmax(votes, axis=1)
        cls[none] = cls_of[R]
        return proba, cls
    total = np.tile(vec[R], (n, 1))
    for i in range(R):
        m = match[:, i]
        if m.any():
            total[m] += weight[i] * vec[i]
    if _TASK == "regression":
        return total, None
    cls = np.argmax(total, axis=1)
    s = total.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        proba = np.where(s > 0, total / np.where(s > 0, s, 1.0), 0.0)
    return proba, cls


def _rb_combine_batch(hits, vec, n):
    np = _np
    vals = [vec[h] for h in hits]  # -1 indexes the default, stored last
    if _COMBINE == "sum":
        raw = np.tile(np.asarray(_BASE, dtype=np.float32 if _F32 else np.float64), (n, 1))
        for k, v in zip(_TOUT, vals):
            raw[:, k] += v[:, 0].astype(raw.dtype)  # float32 additions in tree order when _F32
        raw = raw.astype(np.float64)
        if _TASK == "regression":
            return raw[:, :1], None
        if _F32:  # XGBoost's float32 link; the raw-score decision below still decides
            proba = _proba32_batch(raw)
        elif _LINK == "sigmoid":
            p = np.array([_sigmoid(r) for r in raw[:, 0].tolist()], np.float64)
            proba = np.column_stack([1.0 - p, p])
        else:
            z = raw - raw.max(axis=1, keepdims=True)
            e = np.exp(z)
            proba = e / e.sum(axis=1, keepdims=True)
        if _DECISION is None:
            return proba, np.argmax(proba, axis=1)
        if _LINK == "sigmoid":
            hit = raw[:, 0] >= 0 if _DECISION == "raw>=0" else raw[:, 0] > 0
            return proba, hit.astype(np.int64)
        return proba, np.argmax(raw, axis=1)
    if _COMBINE == "vote":
        votes = np.zeros((n, len(CLASSES)))
        rows = np.arange(n)
        for v in vals:
            votes[rows, np.argmax(v, axis=1)] += 1.0
        proba = votes / _NGROUPS
        return proba, np.argmax(proba, axis=1)
    if _COMBINE == "average" and _F32:
        acc = np.zeros((n, vals[0].shape[1]), np.float32)
        for v in vals:
            acc += (v / _NGROUPS).astype(np.float32)
        if acc.shape[1] == 2:
            acc[:, 0] = np.float32(1) - acc[:, 1]
        proba = acc.astype(np.float64)
        return proba, np.argmax(proba, axis=1)
    total = None
    for v in vals:
        total = v.copy() if total is None else total + v
    if _COMBINE == "average":
        total = total / _NGROUPS
    if _TASK == "regression":
        return total, None
    return total, np.argmax(total, axis=1)
