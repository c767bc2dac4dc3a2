"""The header comment that says which rows a rules file's numbers count, and its refresh.

``rulekit rules`` writes it where the shares and the ``with N rows`` counts come from different rows
(pruning rows, training and pruning rows, the rows ``--induce`` learned from); ``rulekit stats``
recomputes every number on other rows, so it rewrites this comment (and only this one) to name them:
a comment that named the old rows would be a wrong statement about the new numbers.
"""

from __future__ import annotations

import unicodedata

SHARES_HEAD = "{class: share}: classes of the rows each rule decides"
FIRST_HIT = " (the first rule that holds)"
# a vote file's shares are counted as a first-hit list would decide (they are not what the vote adds up)
VOTE_HIT = " (as the first rule that holds would; in this vote every rule that holds adds its weight)"
WITH_HEAD = "'with N rows, M correct': "
LEARNED_HEAD = "numbers counted on the "
LEARNED_NEXT = "{class: share} of the rows each rule decides"


def shown(source: str) -> str:
    """``source`` (a path) as a comment may hold it: quoted with escapes when it holds a line break or
    another control character, which would end the comment and start a statement."""
    if any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") for ch in source):
        return repr(source)
    return source


def basis_comment(*, n_prune: int | None = None, n_train: int | None = None, dnf: bool = False,
                  learned: str | None = None, vote: bool = False) -> str:
    """The comment for ``rulekit rules``: ``{class: share}`` are the classes of the rows each rule
    decides (first hit; ``vote``: said to be counted so), ``with N rows, M correct`` the rows its
    condition holds on. ``learned``: DATA of ``--induce`` (both on its rows)."""
    hit = VOTE_HIT if vote else FIRST_HIT
    if learned is not None:
        return (f"{LEARNED_HEAD}{n_train:,} rows of {shown(learned)} the rules were learned from:\n"
                f"{LEARNED_NEXT}{hit}, 'with N rows' the rows its condition holds on")
    shares = (f"the {n_prune:,} pruning rows" if dnf or n_train is None
              else f"the {n_train:,} training and {n_prune:,} pruning rows")
    return f"{SHARES_HEAD}{hit} among {shares};\n{WITH_HEAD}the {n_prune:,} pruning rows its condition holds on"


SPLIT_LINE = ("{class: share} after 'then': how the rule's weight splits into points per class "
              "(points = weight x share); the default's braces are each class's start points")


def scorecard_comment(n_rows: int, source: str, *, split: bool = False) -> str:
    """The comment for ``rulekit rules DATA --scorecard`` (a weight is no share: only the counts);
    ``split``: a card of three or more classes, whose rules give points to several classes (the
    braces elsewhere are the classes of the rows a rule decides, so they are said to differ here)."""
    line = f"{WITH_HEAD}the {n_rows:,} rows of {shown(source)} the card was learned from that its condition holds on"
    return f"{line}\n{SPLIT_LINE}" if split else line


def refreshed_with(n_rows: int, source: str) -> str:
    """The ``with N rows`` line for statistics ``rulekit stats`` computed on ``n_rows`` rows of ``source``."""
    return f"{WITH_HEAD}the {n_rows:,} rows of {shown(source)} its condition holds on"


def with_basis(rb, line: str):
    """``rb`` with ``line`` (a :func:`basis_comment`) last among its header comments."""
    return rb.model_copy(update={"comments": tuple(rb.comments) + (line,)})


def refresh_basis(text: str, n_rows: int, source: str) -> str:
    """``text`` with the ``with N rows`` half of its basis comment (the two ``#`` lines
    :func:`basis_comment` writes, or :func:`scorecard_comment`'s one, among the comment lines that
    open the file) naming the ``n_rows`` rows of ``source`` (:func:`refreshed_with`). The shares half
    stays: ``stats`` does not change a rule's class shares (they are its probabilities). Other bytes
    are unchanged, and ``text`` itself is returned where there is no such comment (a person's own
    comments are theirs)."""
    lines = text.splitlines(keepends=True)
    said = [line.lstrip()[1:].strip() if line.lstrip().startswith("#") else None for line in lines]
    for i, line in enumerate(lines):
        if said[i] is None:
            if line.strip():
                break
            continue
        end = line[len(line.rstrip("\r\n")):] or "\n"
        a, b = said[i], (said[i + 1] if i + 1 < len(lines) else None) or ""
        if a.startswith(WITH_HEAD):  # a scorecard's one line
            return "".join(lines[:i]) + f"# {refreshed_with(n_rows, source)}{end}" + "".join(lines[i + 1:])
        if a.startswith(SHARES_HEAD) and b.startswith(WITH_HEAD):
            shares = a
        elif a.startswith(LEARNED_HEAD) and b.startswith(LEARNED_NEXT):
            rows = a[len(LEARNED_HEAD):].rstrip(":")  # "500 rows of d.csv the rules were learned from"
            shares = f"{SHARES_HEAD}{VOTE_HIT if VOTE_HIT in b else FIRST_HIT} among the {rows};"
        else:
            continue
        return "".join(lines[:i]) + f"# {shares}{end}# {refreshed_with(n_rows, source)}{end}" + "".join(lines[i + 2:])
    return text
