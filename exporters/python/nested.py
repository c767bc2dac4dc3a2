"""One tree as nested ``if`` code (explicit stack, never recursion), laid out for CPython's speed.

Plain form (ensembles, which accumulate): ``if test: first else: second`` for every split.

Single-tree form (every leaf returns), see :class:`Layout`. On CPython 3.11 a float comparison is
only specialized (~4x cheaper) when its conditional jump follows it directly, and a jump over more
than 255 code units needs an ``EXTENDED_ARG`` prefix in between, which leaves the comparison
generic. So the short branch goes first (the test negated when needed, NaN still routed by the
source), and a split whose branches are both long is written as a trampoline::

    while test:  # true: go on after the else block
        break
    else:
        <branch where the test is false>
    <branch where the test is true>

The conditional jump only skips the ``break``; the ``break`` (an unconditional jump, which may take
EXTENDED_ARG) leads to the lighter branch (fewer training rows, else fewer leaves). Unlike
``while True: if test: break`` this adds no NOP, and the ``else`` block is outside the loop, so
trampolines nest to any depth (CPython allows only 20 nested loop blocks).

Measured and left out (wall time on random rows, bench/bench_python.py): binding re-tested features
to locals (``:=``) or unpacking the row into locals saves instructions but runs slower; so did
placing leaves on one side of each split and ordering constants so hot thresholds need no
EXTENDED_ARG.
"""

from __future__ import annotations

from collections.abc import Callable

from . import flat
from .text import INDENT, num, nums

TRAMPOLINE = "  # true: go on after the else block"
SHORT_JUMP = 240  # code units a conditional jump skips without EXTENDED_ARG (255), with a margin


class Layout:
    """Per-node facts for the single-tree form, computed bottom-up over the first ``limit`` levels:
    ``units`` (estimated bytecode size of the subtree's code) and ``mass`` (training rows, else
    leaves). ``cell``: code units to read a feature (7 for ``row[k]``, 1 for a local)."""

    def __init__(self, t: flat.Tree, limit: int, cell: int):
        kind, kids = t.kind, t.kids
        n = len(kind)
        self.units = units = [12] * n  # (a frontier: one walker call)
        weights = t.weight if all(w > 0 for w in t.weight) else None
        mass = [0.0] * n
        order = [(t.root, 0)]
        for i, level in order:  # pre-order (children after their parent), down to the frontier
            if level < limit:
                step = max(1, len(kids[i]) - 1)
                order.extend((c, level + step) for c in kids[i])
        for i, level in reversed(order):
            k = kind[i]
            if k == flat.LEAF or level >= limit:
                units[i] = 4 if k == flat.LEAF else 12
                mass[i] = weights[i] if weights else 1.0
                continue
            mass[i] = weights[i] if weights else sum(mass[c] for c in kids[i])
            units[i] = (cell + 6 if k == flat.NUMERIC else 4 * cell + 12) + sum(units[c] for c in kids[i])
        self.mass = mass


def emit_tree(t: flat.Tree, access: Callable[[int], str], leaf: Callable[[int], list[str]],
              frontier: Callable[[int], list[str]], indent: int, limit: int, out: list[str],
              domains: list[tuple] | None = None, layout: Layout | None = None) -> None:
    """Append the nested-``if`` code of tree ``t`` (subtrees past ``limit`` levels become
    ``frontier`` lines, which walk the table). ``layout``: the single-tree form (see the module
    docstring); every leaf and frontier line must then return."""
    stack: list[tuple] = [(t.root, indent, 0)]  # node, indent, level
    kind, kids, bound, missing, feature = t.kind, t.kids, t.bound, t.missing, t.feature
    names: dict[int, str] = {}
    bounds = nums(bound).split(", ")
    domains = domains or [()] * (max(feature) + 1)
    append, push, pop = out.append, stack.append, stack.pop
    numeric, leaf_kind, nominal = flat.NUMERIC, flat.LEAF, flat.NOMINAL
    units = layout.units if layout else None

    while stack:
        item = pop()
        i = item[0]
        if i.__class__ is str:  # a literal line
            append(INDENT[item[1]] + i)
            continue
        _, ind, level = item
        pad = INDENT[ind]
        k = kind[i]
        if k == leaf_kind:
            lines = leaf(i)
            append(pad + lines[0] if len(lines) == 1 else pad + ("\n" + pad).join(lines))
            continue
        if level >= limit:
            out.extend(pad + line for line in frontier(i))
            continue
        if k == nominal:
            _emit_nominal(t, i, access(feature[i]), ind, level, stack, out, domains[feature[i]])
            continue
        if k == numeric:
            f = feature[i]
            x = names.get(f) or names.setdefault(f, access(f))
        else:
            feats, weights = t.linear[i]
            x = " + ".join(f"{num(w)} * {access(f)}" for f, w in zip(feats, weights))
        left, right = kids[i]
        level += 1
        if units is not None and min(units[left], units[right]) > SHORT_JUMP:
            # trampoline: the test's jump skips only the ``break``; the lighter branch follows
            later = left if layout.mass[left] < layout.mass[right] else right
            nan_later = (missing[i] == 0) == (later == left)
            if later == left:
                test = f"not ({x} > {bounds[i]})" if nan_later else f"{x} <= {bounds[i]}"
            else:
                test = f"not ({x} <= {bounds[i]})" if nan_later else f"{x} > {bounds[i]}"
            append(f"{pad}while {test}:{TRAMPOLINE}")
            append(f"{INDENT[ind + 1]}break")
            append(f"{pad}else:")
            push((later, ind, level))
            push((left if later == right else right, ind + 1, level))
            continue
        if missing[i] == 1:  # NaN fails `x <= b`: lands right
            test, first, second = f"{x} <= {bounds[i]}", left, right
        else:  # NaN fails `x > b`: lands left
            test, first, second = f"{x} > {bounds[i]}", right, left
        if units is not None and units[first] > SHORT_JUMP:  # the short branch first (NaN stays)
            test, first, second = f"not ({test})", second, first
        append(f"{pad}if {test}:")
        push((second, ind + 1, level))
        push(("else:", ind))
        push((first, ind + 1, level))


def _label_comment(domain: tuple, codes: list[int]) -> str:
    """``  # 'red', 'blue', (missing)``: the labels behind codes (repr-escaped, at most 6)."""
    if not domain:
        return ""
    words = [repr(domain[c]) if c >= 0 else ("(other)" if c == -1 else "(missing)") for c in codes[:6]]
    return "  # " + ", ".join(words) + (", ..." if len(codes) > 6 else "")


def _emit_nominal(t: flat.Tree, i: int, x: str, ind: int, level: int, stack: list, out: list[str],
                  domain: tuple) -> None:
    """``if x in {codes}: … elif …: … else: …``; the branch with the most codes is the ``else``."""
    route = t.route[i]
    kids = t.kids[i]
    codes: list[list[int]] = [[] for _ in kids]
    for slot, branch in enumerate(route):
        codes[branch].append(slot - 2)
    if len(kids) == 1:
        stack.append((kids[0], ind, level))
        return
    order = sorted(range(len(kids)), key=lambda b: -len(codes[b]))
    rest, tests = order[0], [b for b in range(len(kids)) if b != order[0]]
    step = len(kids) - 1
    items: list[tuple] = []
    for n, b in enumerate(tests):
        cs = codes[b]
        cond = f"{x} == {cs[0]}" if len(cs) == 1 else f"{x} in {{{', '.join(map(str, cs))}}}"
        if not cs:
            cond = "False"
        items.append((("if " if n == 0 else "elif ") + cond + ":" + _label_comment(domain, cs), ind))
        items.append((kids[b], ind + 1, level + step))
    items.append(("else:", ind))
    items.append((kids[rest], ind + 1, level + step))
    first = items.pop(0)
    out.append(INDENT[first[1]] + first[0])
    stack.extend(reversed(items))
