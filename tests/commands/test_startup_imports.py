"""Start-up cost (issue 23): `rulekit --help` loads neither numpy nor networkx, and `rulekit check`
on a rules file never loads the tree IR (networkx), which alone cost ~120 ms of a 0.5 s start."""

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
    return set(out.stdout.split())


def test_help_loads_neither_numpy_nor_networkx():
    loaded = _modules_after("""
        from rulekit.cli import main
        try:
            main(["--help"])
        except SystemExit:
            pass
    """)
    assert "networkx" not in loaded and "numpy" not in loaded


def test_check_does_not_load_the_tree_ir(tmp_path):
    path = tmp_path / "r.rules"
    path.write_text(RULES)
    loaded = _modules_after(f"""
        from rulekit.commands import check
        assert check.run({str(path)!r}, quiet=True) == 0
    """)
    assert "rulekit.dsl.lint" in loaded  # the probe ran the whole check
    assert "networkx" not in loaded and "rulekit.ir.model" not in loaded
