"""Statistics in reviewer words: ``with 714 rows, 622 correct`` instead of ``with n = 714, e = 92``.

A rule's statistics stay keyed as the IR keys them (``n``, ``e``, ``train_n``, ...); only the text
differs. Whole counts are written as ``NUMBER WORD`` (``714 rows``: rows the rule covers,
``622 correct``: n - e, ``3 training_rows``: ``train_n``), everything else as ``key = number``.
Words are used only where they are exact (whole numbers, so n - (n - e) == e), so round trip stays
exact in both the readable and the exact form. ``622 correct (87.1%)``: the share is derived, never
stored; the parser checks it against the counts (within the rounding of the digits written, so a
hand edit of a count that forgets the share is an error, not a silent contradiction). The printer, ``rulekit stats`` and the parser all
go through this module, so the three agree.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from fractions import Fraction

from rulekit.dsl.grammar import NO_WORDS
from rulekit.dsl.literals import name, number

WORDS = {"rows": "n", "correct": "correct", "training_rows": "train_n"}
# statistics the readable form keeps; the rest (laplace, support, lift, fired, ...) only in --exact
READABLE_KEYS = ("n", "e", "train_n")


def _whole(v) -> bool:
    return isinstance(v, float) and v.is_integer() and abs(v) < 2.0 ** 53 and v >= 0


def stats_items(stats: dict[str, float]) -> list[str]:
    """The items of a ``with`` clause for ``stats``, in words where exact."""
    rest = dict(stats)
    out = []
    n, e = rest.get("n"), rest.get("e")
    if n is not None and _whole(n):
        out.append(f"{number(n)} rows")
        del rest["n"]
        if e is not None and _whole(e) and e <= n:
            out.append(f"{number(n - e)} correct" + (f" ({percent_text(n - e, n)}%)" if n > 0 else ""))
            del rest["e"]
    t = rest.get("train_n")
    if t is not None and _whole(t):
        out.append(f"{number(t)} training_rows")
        del rest["train_n"]
    out.extend(f"{name(k, NO_WORDS)} = {number(v)}" for k, v in rest.items())
    return out


def stats_text(stats: dict[str, float]) -> str:
    """``with 12 rows, 11 correct`` (empty for no statistics)."""
    return "with " + ", ".join(stats_items(stats)) if stats else ""


def word_key(word: str) -> str | None:
    """The IR key a stats word stands for (``correct`` is resolved by :func:`resolve`); None if unknown."""
    return WORDS.get(word)


def resolve(out: dict[str, float]) -> str | None:
    """Turn a parsed ``correct`` into ``e = n - correct`` in place; an error message, or None."""
    if "correct" not in out:
        return None
    c = out.pop("correct")
    if "n" not in out:
        return "'correct' needs the rows it is out of (e.g. 'with 10 rows, 9 correct')"
    if "e" in out:
        return "statistic 'e' is given twice (as 'e' and as 'correct')"
    if c > out["n"]:
        return f"{number(c)} correct is more than the {number(out['n'])} rows"
    out["e"] = out["n"] - c
    return None


def percent_text(correct: float, n: float) -> str:
    """``correct`` of ``n`` as a percentage with one decimal, rounded exactly (half to even) from the
    fraction, not from a float quotient; ``.0`` is left out (``100``, ``50``)."""
    k = round(Fraction(int(correct) * 1000, int(n)))
    return str(k // 10) if k % 10 == 0 else f"{k // 10}.{k % 10}"


def percent_problem(text: str, correct: float, n: float | None) -> str | None:
    """An error message when ``text`` (the number before ``%``) is not ``correct`` of ``n`` rows to
    within the rounding of its own digits (``87%`` and ``87.11%`` both read 622 of 714); else None."""
    if n is None or n <= 0:
        return "a percentage needs the rows it is out of (e.g. 'with 10 rows, 9 correct (90%)')"
    try:
        p = Decimal(text)
    except InvalidOperation:
        return f"{text}% is not a percentage"
    exp = p.as_tuple().exponent
    half = Fraction(1, 2 * 10 ** max(0, -exp)) if isinstance(exp, int) else None
    exact = Fraction(int(correct) * 100, int(n))
    if half is None or abs(Fraction(p) - exact) > half:
        return f"{text}% is not {number(correct)} of {number(n)} rows ({percent_text(correct, n)}%)"
    return None
