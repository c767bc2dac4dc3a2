"""Rebuild a condition bottom-up with an explicit stack (no recursion), changing its literals.

The one traversal that the DSL's readable printing, missing-value declarations and their folding
share: ``leaf`` maps each literal (anything but And, Or, Not); ``whole`` may take over a node
before its children are visited (returning its replacement, or None to go on). A subtree nothing
changed comes back as the same object.
"""

from __future__ import annotations

from collections.abc import Callable

from rulekit.rules.conditions import And, Not, Or


def rewrite(root, leaf: Callable, whole: Callable | None = None):
    """``root`` with every literal replaced by ``leaf(literal)`` (see the module docstring)."""
    done: dict[int, object] = {}
    stack = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        t = type(node)
        if not expanded:
            taken = whole(node) if whole is not None else None
            if taken is not None:
                done[id(node)] = taken
                continue
            if t in (And, Or, Not):
                stack.append((node, True))
                stack.extend((k, False) for k in (node.items if t is not Not else (node.item,)))
                continue
        if t in (And, Or):
            items = tuple(done[id(k)] for k in node.items)
            same = all(a is b for a, b in zip(items, node.items))
            done[id(node)] = node if same else node.model_copy(update={"items": items})
        elif t is Not:
            item = done[id(node.item)]
            done[id(node)] = node if item is node.item else node.model_copy(update={"item": item})
        else:
            done[id(node)] = leaf(node)
    return done[id(root)]
