"""`rulekit show`: a human view of a model or rule base."""

from __future__ import annotations

import sys
from pathlib import Path

from rulekit.commands.source import load_source
from rulekit.fileio import write_atomic
from rulekit.ir.model import Model


def run(*, source: Path, format: str, output: Path | None) -> int:
    obj = load_source(source)
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

            text = dsl.dumps(obj)
        elif format == "dot":
            text = rule_pictures.rules_dot(obj)
        elif format == "mermaid":
            text = rule_pictures.rules_mermaid(obj)
        else:
            text = rule_pictures.rules_svg(obj)
    if output is None:
        sys.stdout.write(text)
    else:
        write_atomic(output, text)
    return 0
