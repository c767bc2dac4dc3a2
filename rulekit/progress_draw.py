"""The rich display behind :mod:`rulekit.progress`: a spinner, a bar for counted work, ``done/total``
and the elapsed time, on stderr. Loaded only when progress is drawn: importing rich was ~8% of
``rulekit check``'s import time (docs/house.md), and a check in a pipe or with -q draws nothing."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import (BarColumn, Progress, ProgressColumn, SpinnerColumn, TextColumn,
                           TimeElapsedColumn)
from rich.text import Text


def display(console: Any = None, *, force_terminal: bool | None = None) -> Progress:
    """A transient rich ``Progress`` on ``console`` (default: stderr) that leaves stdout alone."""
    if console is None:
        console = Console(stderr=True, force_terminal=force_terminal)
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), _BarColumn(), _CountColumn(),
                    TimeElapsedColumn(), console=console, transient=True, redirect_stdout=False,
                    redirect_stderr=False)


class _BarColumn(BarColumn):
    """A bar for counted work; nothing for a spinner (a pulsing bar says less than the spinner)."""

    def render(self, task):  # noqa: ANN001 - rich's signature
        return Text("") if task.total is None else super().render(task)


class _CountColumn(ProgressColumn):
    """``done/total`` with thousands separators; nothing for a spinner."""

    def render(self, task):  # noqa: ANN001 - rich's signature
        if task.total is None:
            return Text("")
        return Text(f"{int(task.completed):,}/{int(task.total):,}", style="progress.download")
