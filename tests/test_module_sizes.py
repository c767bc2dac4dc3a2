"""Modules with one job (issue #23): a module of ``rulekit/`` or ``exporters/`` longer than ``LIMIT``
lines says why at its top, in a module docstring line that starts with ``MARKER`` (one or two lines:
what keeps it one module; "Why one module of ~N lines:" and "Why one file of ~N lines:" count too).
The files in ``ALLOWED`` were over the limit when this test came in and are being split by their
owners; an entry goes when its file is back under the limit or says why."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rulekit", "exporters")
LIMIT = 500  # lines
MARKER = "Why this module is long:"
_SAYS_WHY = re.compile(r"Why (this module is long|one (module|file) of [^:]*lines):")

# Over the limit without the marker when this test came in (2026-11-24), owned by others.
ALLOWED: set[str] = set()


def n_lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def says_why(path: Path) -> bool:
    """Whether the module docstring has a line starting with MARKER (or its two other spellings)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return any(_SAYS_WHY.match(line.strip()) for line in doc.splitlines())


def offenders(root: Path, packages=PACKAGES, limit: int = LIMIT) -> dict[str, int]:
    """Relative path -> line count of every module over ``limit`` lines that does not say why."""
    out = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            n = n_lines(path)
            if n > limit and not says_why(path):
                out[path.relative_to(root).as_posix()] = n
    return out


def test_long_modules_say_why():
    found = {p: n for p, n in offenders(ROOT).items() if p not in ALLOWED}
    assert not found, (f"over {LIMIT} lines with no '{MARKER} ...' line in the module docstring "
                       f"(split the module by job, or say in one or two lines why it stays one): {found}")


def test_the_allowed_modules_are_still_long():
    shrunk = {p: n_lines(ROOT / p) for p in sorted(ALLOWED) if (ROOT / p).exists() and p not in offenders(ROOT)}
    gone = sorted(p for p in ALLOWED if not (ROOT / p).exists())
    assert not shrunk and not gone, f"remove from ALLOWED (now short, marked or gone): {shrunk} {gone}"


def _module(path: Path, n: int, doc: str = "A module.") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'"""{doc}"""\n' + "x = 1\n" * (n - 1), encoding="utf-8")


def test_the_check_finds_a_long_module_and_reads_the_marker(tmp_path):
    _module(tmp_path / "rulekit" / "long.py", LIMIT + 1)
    _module(tmp_path / "rulekit" / "at_limit.py", LIMIT)
    _module(tmp_path / "exporters" / "sub" / "deep.py", LIMIT + 40)
    _module(tmp_path / "exporters" / "marked.py", LIMIT + 40,
            f"A module.\n\n{MARKER} one state that every step reads and writes.\n")
    _module(tmp_path / "exporters" / "marked_too.py", LIMIT + 40,
            "A module.\n\nWhy one file of ~540 lines: it is read as text, section by section.\n")
    _module(tmp_path / "exporters" / "elsewhere.py", LIMIT + 40, "A module.")
    (tmp_path / "exporters" / "elsewhere.py").write_text(
        (tmp_path / "exporters" / "elsewhere.py").read_text() + f'NOTE = """\n{MARKER} not the docstring\n"""\n')
    assert offenders(tmp_path) == {"rulekit/long.py": LIMIT + 1, "exporters/sub/deep.py": LIMIT + 40,
                                   "exporters/elsewhere.py": LIMIT + 43}
