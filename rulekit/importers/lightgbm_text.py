"""LightGBM's text model format read into a header, tree blocks and trailing sections, with line
numbers for every value (``ModelText``), and the error every LightGBM reading problem raises."""

from __future__ import annotations

from typing import Any

from rulekit import jsontext
from rulekit.errors import RulekitError


class LightGBMModelError(RulekitError):
    """A text that is not a (supported) LightGBM model."""


class ModelText:
    """The model text split into a header, tree blocks and trailing sections, with line numbers."""

    def __init__(self, text: str, file: str | None):
        self.file = file
        self.header: dict[str, tuple[str, int]] = {}
        self.flags: set[str] = set()
        self.trees: list[tuple[int, dict[str, tuple[str, int]]]] = []
        self.pandas_categorical: Any = None
        self.pandas_line = 0
        lines = text.splitlines()
        i = 0
        if not lines or lines[0].strip() != "tree":
            raise LightGBMModelError("not a LightGBM text model (the first line is not 'tree')",
                                     file=file, line=1)
        i = 1
        current: dict[str, tuple[str, int]] | None = None
        ended = False
        while i < len(lines):
            raw = lines[i].strip()
            lineno = i + 1
            i += 1
            if ended:
                if raw.startswith("pandas_categorical:"):
                    self._pandas(raw[len("pandas_categorical:"):], lineno)
                continue
            if not raw:
                current = None
                continue
            if raw == "end of trees":
                ended = True
                continue
            if raw.startswith("Tree="):
                current = {}
                self.trees.append((lineno, current))
                continue
            key, eq, value = raw.partition("=")
            if not eq:
                if current is None:
                    self.flags.add(raw)
                    continue
                raise LightGBMModelError(f"expected key=value, found {raw[:40]!r}", file=file,
                                         line=lineno)
            target = self.header if current is None else current
            target[key] = (value, lineno)
        if not ended:
            raise LightGBMModelError("truncated LightGBM model: no 'end of trees' line", file=file,
                                     line=len(lines))

    def _pandas(self, text: str, lineno: int) -> None:
        try:  # jsontext: also refuses huge integers and lone surrogates in category names
            self.pandas_categorical = jsontext.loads(text, error=LightGBMModelError)
        except LightGBMModelError as err:
            raise LightGBMModelError(f"pandas_categorical: {err.message}", file=self.file,
                                     line=lineno) from None
        self.pandas_line = lineno

    def get(self, block: dict[str, tuple[str, int]], key: str, where: str) -> tuple[str, int]:
        if key not in block:
            line = min((ln for _, ln in block.values()), default=None)
            raise LightGBMModelError(f"{where}: missing '{key}='", file=self.file, line=line)
        return block[key]

    def fail(self, msg: str, line: int | None = None) -> LightGBMModelError:
        if self.file is None and line:
            return LightGBMModelError(f"model text line {line}: {msg}")
        return LightGBMModelError(msg, file=self.file, line=line)


def numbers(t: ModelText, value: tuple[str, int], kind: type, what: str, size: int | None = None) -> list:
    text, line = value
    try:
        out = [kind(v) for v in text.split()]
    except ValueError:
        raise t.fail(f"{what}: not a list of {'integers' if kind is int else 'numbers'}", line) from None
    if size is not None and len(out) != size:
        raise t.fail(f"{what}: {len(out)} values, expected {size}", line)
    return out
