"""Small helpers with no better home."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small objects (graphs of big forests).

    Building a 100-tree forest allocates ~100k dicts; each automatic collection rescans all of them,
    which made conversion 5-7x slower. Nothing built here forms reference cycles worth collecting.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def count(n: int, word: str, plural: str | None = None) -> str:
    """``n`` and ``word`` in the right number for messages: '1 rule', '2 rules', '12,000 rows'."""
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


def round_significant(x: Decimal, digits: int, rounding) -> Decimal:
    """``x`` to ``digits`` significant digits with a :mod:`decimal` rounding mode (0 stays 0): the
    step the readable thresholds and the scorecard's cuts take towards their shortest decimal."""
    if x == 0:
        return x
    exp = x.adjusted() - digits + 1
    return x.quantize(Decimal(1).scaleb(exp), rounding=rounding)


def significant_digits(x: float) -> int:
    """Significant digits of ``repr(x)`` (``2383.93`` has 6, ``9000000000.0`` has 1)."""
    return len(Decimal(repr(x)).normalize().as_tuple().digits)
