"""Human views of a model: an indented text tree and Graphviz dot (no recursion, readable numbers).

Names are escaped by :mod:`rulekit.picture_text`: control characters show as ``\\u001b`` in dot
labels and in the text tree (an escape sequence in a name cannot drive the terminal)."""

from __future__ import annotations

from rulekit.ir.model import Model
from rulekit.ir.tree import children_by_branch, root_of
from rulekit.picture_text import dot_string, visible
from rulekit.semantics import routing


def readable(x: float) -> str:
    """A threshold or value at readable precision (6 significant digits)."""
    return f"{x:.6g}"


def count_text(n: float) -> str:
    """A node's sample count for pictures: ``n = 12``; a weighted count rounded, ``n ≈ 1``."""
    return f"n = {n:.0f}" if float(n).is_integer() else f"n ≈ {n:.0f}"


def split_subject(model: Model, tree, node: int) -> str:
    """What a split tests: the feature name, or the linear expression of an oblique split."""
    a = tree.nodes[node]
    if a["kind"] == "linear":
        return " + ".join(f"{readable(w)}*{model.features[f].name}"
                          for f, w in zip(a["features"], a["weights"]))
    return model.features[a["feature"]].name


def branch_tests(model: Model, tree, node: int) -> list[str]:
    """One test per branch of a split node without its subject, e.g. ``<= 40`` / ``> 40``."""
    a = tree.nodes[node]
    if a["kind"] in ("numeric", "linear"):
        neg = ">=" if a["op"] == "<" else ">"
        t = readable(a["threshold"])
        tests = [f"{a['op']} {t}", f"{neg} {t}"]
    else:
        domain = model.features[a["feature"]].domain
        # the codes each branch really takes (rulekit.semantics.routing): with overlapping lists the
        # last edge wins, and codes no edge lists go to the "other" edge, else the missing branch
        kids = children_by_branch(tree, node)
        table = routing.nominal_table(tree.succ[node].values(), routing.missing_branch(a), len(domain))
        taken = routing.codes_by_branch(table, len(kids))
        tests = []
        for branch, child in enumerate(kids):
            if tree.edges[node, child].get("values") is None:
                tests.append("is other")
                continue
            names = [str(domain[v]) for v in sorted(taken[branch] - {routing.UNSEEN})]
            tests.append(f"= {names[0]}" if len(names) == 1 else f"in {{{', '.join(names)}}}")
    tests[a["missing"]] += " (or missing)"
    return tests


def branch_labels(model: Model, tree, node: int) -> list[str]:
    """One human label per branch of a split node, e.g. ``age <= 40`` / ``age > 40``."""
    subject = split_subject(model, tree, node)
    return [f"{subject} {t}" for t in branch_tests(model, tree, node)]


def leaf_label(model: Model, value) -> str:
    if model.task == "regression" or model.combiner.kind == "sum":
        return f"value: {readable(value[0])}"
    best = max(range(len(value)), key=lambda k: (value[k], -k))
    dist = ", ".join(readable(v) for v in value)
    return f"class: {model.classes[best]}  [{dist}]"


MAX_INDENT = 40  # indentation levels drawn; deeper lines name their depth instead


def tree_text(model: Model, index: int = 0) -> str:
    tree = model.trees[index]
    lines: list[str] = []
    stack: list[tuple[int, int, str | None]] = [(root_of(tree), 0, None)]
    while stack:
        node, level, label = stack.pop()
        a = tree.nodes[node]
        indent = "|   " * level if level <= MAX_INDENT else \
            "|   " * MAX_INDENT + f"[depth {level}] "  # bounded width: a 20,000-deep chain stays small
        if label is not None:
            lines.append(f"{indent}|--- {label}")
        if a["kind"] == "leaf":
            lines.append(f"{indent}|   |--- {leaf_label(model, a['value'])}" if label is not None
                         else f"|--- {leaf_label(model, a['value'])}")
            continue
        kids = children_by_branch(tree, node)
        labels = branch_labels(model, tree, node)
        for child, lab in reversed(list(zip(kids, labels))):
            stack.append((child, level + (1 if label is not None else 0), lab))
    return "\n".join(map(visible, lines)) + "\n"  # no raw control character reaches a terminal


def value_legend(model: Model) -> str:
    """The line that says what a classification leaf's ``[...]`` holds: its value per class (the
    class shares of its training rows for a learned tree), in the model's class order; empty for
    regression and summed scores, whose leaves show one number."""
    if model.task == "regression" or model.combiner.kind == "sum":
        return ""
    return visible(f"# [..] at a leaf: its value for each class, in the order {', '.join(map(str, model.classes))}") + "\n"


def model_text(model: Model) -> str:
    head = f"{model!r}\n" + value_legend(model)
    if len(model.trees) == 1:
        return head + tree_text(model, 0)
    parts = [head + f"combiner: {model.combiner.model_dump_json()}\n"]
    for i in range(len(model.trees)):
        parts.append(f"\n# tree {i}\n" + tree_text(model, i))
    return "".join(parts)


def model_dot(model: Model) -> str:
    out = ["digraph rulekit {", '  node [shape=box, style="rounded", fontname="Helvetica"];',
           '  edge [fontname="Helvetica"];']
    for i, tree in enumerate(model.trees):
        prefix = f"t{i}_" if len(model.trees) > 1 else "n"
        for node, a in tree.nodes(data=True):
            if a["kind"] == "leaf":
                label = leaf_label(model, a["value"])
                out.append(f"  {prefix}{node} [label={dot_string(label)}, style=\"rounded,filled\", "
                           f"fillcolor=\"#e8f4ea\"];")
            else:
                name = (model.features[a["feature"]].name if a["kind"] != "linear" else "linear")
                n = a.get("n_samples")
                extra = "\\n" + count_text(n).replace(" ", "") if n is not None else ""
                tip = (f", tooltip={dot_string(f'n = {n!r} (weighted)')}"  # the exact count
                       if n is not None and not float(n).is_integer() else "")
                out.append(f"  {prefix}{node} [label={dot_string(name)[:-1]}{extra}\"{tip}];")
        for node in tree.nodes:
            if tree.nodes[node]["kind"] == "leaf":
                continue
            for child, lab in zip(children_by_branch(tree, node), branch_labels(model, tree, node)):
                out.append(f"  {prefix}{node} -> {prefix}{child} [label={dot_string(lab)}];")
    out.append("}")
    return "\n".join(out) + "\n"
