"""Start-up cost (issue 23): `rulekit --help` and `--version` load none of the heavy libraries, and
`rulekit check` on a rules file never loads the tree IR (networkx, which alone cost ~120 ms of a
0.5 s start), the exporters' libraries or rich (drawn progress only). Checked on the module names
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
        import sys
        {code}
        print(" ".join(sorted(sys.modules)))
    """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.splitlines()[-1].split())  # the last line: the CLI's own output comes first


# Libraries a command loads only where it uses them.
HEAVY = {"numpy", "networkx", "pydantic", "lark", "rich", "sqlglot", "onnx", "onnxruntime", "scipy",
         "pandas", "sklearn", "duckdb"}
CHECK_NEEDS = {"numpy", "pydantic", "lark"}  # the linter computes with numpy; rule bases are pydantic


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


def test_check_through_the_cli_loads_only_what_it_uses(tmp_path):
    path = tmp_path / "r.rules"
    path.write_text(RULES)
    loaded = _modules_after(_cli("check", str(path)))
    assert "rulekit.dsl.lint" in loaded  # the probe ran the whole check
    assert not loaded & (HEAVY - CHECK_NEEDS), sorted(loaded & (HEAVY - CHECK_NEEDS))
    assert "rulekit.ir.model" not in loaded and "rulekit.exporters.sql" not in loaded


def test_check_does_not_load_the_tree_ir(tmp_path):
    path = tmp_path / "r.rules"
    path.write_text(RULES)
    loaded = _modules_after(f"""
        from rulekit.commands import check
        assert check.run({str(path)!r}, quiet=True) == 0
    """)
    assert "rulekit.dsl.lint" in loaded  # the probe ran the whole check
    assert "networkx" not in loaded and "rulekit.ir.model" not in loaded
