"""rulekit's own exceptions: each carries one clear line for the user (and where, when known)."""

from __future__ import annotations


class RulekitError(Exception):
    """Bad input or usage. The CLI prints ``str(err)`` on one line and exits 2."""

    exit_code = 2

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 column: int | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        super().__init__(self.location_prefix() + message)

    def location_prefix(self) -> str:
        parts = [str(p) for p in (self.file, self.line, self.column) if p is not None]
        return ":".join(parts) + ": " if parts else ""


class ModelFileError(RulekitError):
    """A model file that cannot be read or fails validation."""


class DataError(RulekitError):
    """Input data that does not fit the model's feature schema."""


class NotBuiltError(RulekitError):
    """A capability that exists in the contract but is not implemented yet. Nothing raises it now
    (every target and import format is built); kept for callers that catch it. A rulekit module that
    fails to import is a broken install and stays an ImportError."""


class ExportError(RulekitError):
    """A model or rule base that a target cannot represent (or would represent wrongly)."""
