"""`rulekit show`: a human view of a model or rule base."""

from __future__ import annotations

import sys
from pathlib import Path

from rulekit import progress
from rulekit.commands.source import describe, load_source_rows
from rulekit.fileio import check_distinct, check_output_path, report_written, write_atomic
from rulekit.ir.model import Model


def run(*, source: Path, format: str, output: Path | None, quiet: bool = False) -> int:
    """The picture goes to ``output`` (with a 'wrote' line on stderr unless ``quiet``) or stdout."""
    if output is not None and str(output) == "-":
        output = None  # -o - is stdout, as for export
    if output is not None:
        check_output_path(output)
        check_distinct(output, source=source)
    obj, rows = load_source_rows(source)
    with progress.phase(f"drawing {describe(obj)} as {format}"):
        text = _draw(obj, format, rows)
    if output is None:
        sys.stdout.write(text)
    else:
        write_atomic(output, text)
        report_written(output, f"{describe(obj)} as {format}", quiet=quiet)
    return 0


def _draw(obj, format: str, rows: tuple | None = None) -> str:
    """``rows``: a rules file's share denominators (load_source_rows), so the text keeps them."""
    from rulekit import render

    if isinstance(obj, Model):
        if format == "text":
            text = render.model_text(obj)
        elif format == "dot":
            text = render.model_dot(obj)
        elif format == "mermaid":
            from rulekit.pictures import model_mermaid

            text = model_mermaid(obj)
        else:
            from rulekit.pictures import model_svg

            text = model_svg(obj)
    else:
        from rulekit import rule_pictures

        if format == "text":
            from rulekit import dsl

            text = dsl.dumps(obj, share_rows=rows)
        elif format == "dot":
            text = rule_pictures.rules_dot(obj)
        elif format == "mermaid":
            text = rule_pictures.rules_mermaid(obj)
        else:
            text = rule_pictures.rules_svg(obj)
    return text
