"""Start-up cost (issue 23): `rulekit --help` and `--version` load none of the heavy libraries, and
`rulekit check` on a rules file never loads the tree IR (networkx, which alone cost ~120 ms of a
0.5 s start), the exporters' libraries, rich (drawn progress only), typer (rulekit.cli runs check
itself) or the rule engine, nor numpy (the linter's own arithmetic is plain Python for small files;
literal_sets.prime_canonical, the one numpy user on check's import path, imports it inside). Checked on the module names
a run leaves in ``sys.modules``, never on time (timings: bench/bench_startup.py)."""

import re
import subprocess
import sys
import textwrap

RULES = """rulebase r
target y: classes {a, b}
feature x: numeric
default b
r1: if x <= 1 then a
"""


def _modules_after(code: str) -> set[str]:
    probe = textwrap.dedent(f"""
        import builtins, sys
        _import, _numpy_by = builtins.__import__, []

        def _spy(name, globals=None, locals=None, fromlist=(), level=0):  # who imports numpy
            by = (globals or {{}}).get("__name__") or ""
            if name.split(".")[0] == "numpy" and by.startswith("rulekit") and by not in _numpy_by:
                _numpy_by.append(by)
            return _import(name, globals, locals, fromlist, level)

        builtins.__import__ = _spy
        {code}
        print(" ".join(sorted(sys.modules) + ["numpy-by:%s" % m for m in _numpy_by]))
    """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.splitlines()[-1].split())  # the last line: the CLI's own output comes first


# Libraries a command loads only where it uses them.
HEAVY = {"numpy", "networkx", "pydantic", "lark", "rich", "sqlglot", "onnx", "onnxruntime", "scipy",
         "pandas", "sklearn", "duckdb"}
CHECK_NEEDS = {"pydantic", "lark"}  # rule bases are pydantic models; the parser is lark's
# rulekit modules check must not load: the tree IR, the rule engine and its data/links, numpy's users
NOT_FOR_CHECK = {"rulekit.ir.model", "rulekit.exporters.sql", "rulekit.rules.engine", "rulekit.ir.data",
                 "rulekit.ir.links", "rulekit.ir.float32", "rulekit.dsl.readable", "rulekit.cli_app"}
INVALID = RULES.replace("x <= 1", "x <= <= 1") + "r2: if y > 2 then c\n"


def _cli(*argv: str) -> str:
    return f"""
        from rulekit.cli import main
        try:
            main({list(argv)!r})
        except SystemExit as stop:
            assert stop.code in (0, None), stop.code
    """


def test_help_and_version_load_no_heavy_library():
    for argv in (["--help"], ["--version"]):
        loaded = _modules_after(_cli(*argv))
        assert "typer" in loaded  # the probe ran the CLI
        assert not loaded & HEAVY, (argv, sorted(loaded & HEAVY))
    loaded = _modules_after(_cli("export", "--help"))  # typer itself loads pydantic for a command
    assert not loaded & (HEAVY - {"pydantic"}), sorted(loaded & HEAVY)


def test_version_prints_the_version():
    out = subprocess.run([sys.executable, "-m", "rulekit", "--version"], capture_output=True, text=True,
                         check=True)
    assert re.fullmatch(r"rulekit \d+\.\d+\.\d+\S*\n", out.stdout)


def _check_loads(path) -> set[str]:
    loaded = _modules_after(f"""
        from rulekit.cli import main
        try:
            main(["check", {str(path)!r}])
        except SystemExit as stop:
            assert stop.code in (0, 1), stop.code
    """)
    assert "rulekit.dsl.parser" in loaded and "rulekit.dsl.lint" in loaded  # the probe ran check
    return loaded


def test_check_through_the_cli_loads_only_what_it_uses(tmp_path):
    (tmp_path / "r.rules").write_text(RULES)
    (tmp_path / "bad.rules").write_text(INVALID)
    for name in ("r.rules", "bad.rules"):
        loaded = _check_loads(tmp_path / name)
        assert not loaded & (HEAVY - CHECK_NEEDS), sorted(loaded & (HEAVY - CHECK_NEEDS))
        assert not loaded & NOT_FOR_CHECK, sorted(loaded & NOT_FOR_CHECK)
        assert "typer" not in loaded and "click" not in loaded  # rulekit.cli runs check itself
        numpy_by = {m.removeprefix("numpy-by:") for m in loaded if m.startswith("numpy-by:")}
        assert not numpy_by and "numpy" not in loaded, sorted(numpy_by)  # who would have loaded it


def test_check_does_not_load_the_tree_ir(tmp_path):
    path = tmp_path / "r.rules"
    path.write_text(RULES)
    loaded = _modules_after(f"""
        from rulekit.commands import check
        assert check.run({str(path)!r}, quiet=True) == 0
    """)
    assert "rulekit.dsl.lint" in loaded  # the probe ran the whole check
    assert "networkx" not in loaded and "rulekit.ir.model" not in loaded
