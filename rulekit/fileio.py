"""Writing files whole or not at all, and telling a model file from a rules file by content."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from rulekit.errors import RulekitError


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it into place.

    The new file gets the mode a plain ``open`` would give it (the old file's mode when it
    replaces one, else 0666 less the umask), not mkstemp's 0600; a symlink is followed, so the
    file it points at is replaced. Any failure is a one-line RulekitError and leaves no file.
    A path that exists and is not a regular file (/dev/null, /dev/stdout, a FIFO) is written to
    directly: renaming over it would replace the device itself. ``-`` is standard output."""
    if str(path) == "-":
        to_stdout(data)
        return
    p = check_output_path(path)
    mode = "wb" if isinstance(data, bytes) else "w"
    text_kw = {} if isinstance(data, bytes) else {"encoding": "utf-8", "newline": ""}
    if p.exists() and not p.is_file():
        try:
            with open(p, mode, **text_kw) as fh:
                fh.write(data)
        except OSError as err:
            raise RulekitError(f"cannot write {path}: {err.strerror or err}") from None
        return
    if p.is_symlink():
        p = p.resolve()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as err:
        raise RulekitError(f"cannot write {path}: {err.strerror or err}") from None
    try:
        with os.fdopen(fd, mode, **text_kw) as fh:
            fh.write(data)
        os.chmod(tmp, _new_file_mode(p))
        os.replace(tmp, p)
    except BaseException as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(err, OSError):
            raise RulekitError(f"cannot write {path}: {err.strerror or err}") from None
        raise


def _new_file_mode(p: Path) -> int:
    try:
        return p.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it where Linux says it (threads may be writing)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def check_output_path(path: str | Path) -> Path:
    """``path`` as a Path once it can name an output file (not a directory, parent exists)."""
    text = str(path)
    p = Path(path)
    if text == "" or text.endswith(("/", os.sep)) or p.is_dir():
        raise RulekitError(f"cannot write {text!r}: it names a directory, expected a file path")
    parent = p.parent
    if not parent.exists():
        raise RulekitError(f"cannot write {p}: directory {parent} does not exist")
    if not parent.is_dir():
        raise RulekitError(f"cannot write {p}: {parent} is not a directory")
    return p


def check_distinct(output: str | Path | None, **inputs: str | Path | None) -> None:
    """Refuse an output path that is one of the inputs (it would be replaced by the output)."""
    if output is None or str(output) == "-":
        return
    out = Path(output)
    for what, given in inputs.items():
        if given is None:
            continue
        try:
            same = out.exists() and os.path.samefile(out, given)
        except OSError:
            same = False
        if same:
            raise RulekitError(f"-o {output} is also the input {what.upper().replace('_', '-')}; "
                               f"write the output somewhere else")


def to_stdout(result: str | bytes) -> None:
    """The artefact alone on stdout (binary ONNX as bytes), for pipes: ``-o - | psql``."""
    if isinstance(result, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(result)
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(result)
        sys.stdout.flush()


def is_stdout(path: str | Path) -> bool:
    """True when ``path`` is ``-`` or the file stdout writes to (``-o /dev/stdout``): a 'wrote ...'
    line printed there would land inside the artefact."""
    if str(path) == "-":
        return True
    try:
        a, b = os.stat(path), os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes, or a one-line RulekitError saying why it cannot be read."""
    p = Path(path)
    try:
        return p.read_bytes()
    except FileNotFoundError:
        raise RulekitError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise RulekitError(f"{p}: is a directory, expected a file") from None
    except OSError as err:
        raise RulekitError(f"{p}: cannot read ({err.strerror or err})") from None


def read_text(path: str | Path) -> str:
    """The file as UTF-8 text, or a one-line RulekitError."""
    return decode_text(read_bytes(path), path)


def decode_text(data: bytes, path: str | Path) -> str:
    """``data`` (the bytes of ``path``) as UTF-8 text, or a one-line RulekitError."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        hint = "; it looks like a binary file" if b"\x00" in data[:4096] else ""
        raise RulekitError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start}){hint}") from None


def sniff_source(text: str) -> str:
    """``"model"`` for rulekit model JSON, ``"rules"`` for rule DSL text (by content, not extension)."""
    head = text.lstrip("\ufeff \t\r\n")
    return "model" if head[:1] in ("{", "[") else "rules"


def report_written(path: str | Path, detail: str = "", *, quiet: bool = False) -> None:
    """The one line every command prints on stderr after writing a file (unless quiet):
    ``wrote PATH (detail)``. stderr, so that stdout carries nothing but a command's output."""
    if not quiet and str(path) != "-":
        print(f"wrote {path}" + (f" ({detail})" if detail else ""), file=sys.stderr)


def report_warnings(caught: list, *, quiet: bool = False, only: type[Warning] = Warning) -> None:
    """Warnings recorded while a command worked (``warnings.catch_warnings(record=True)``), of
    category ``only``, as one ``rulekit: warning: ...`` line each on stderr (unless quiet)."""
    if quiet:
        return
    for w in caught:
        if issubclass(w.category, only):
            print(f"rulekit: warning: {' '.join(str(w.message).split())}", file=sys.stderr)
