"""The combiner semantics stand on their own: :mod:`rulekit.semantics.combiners` and its float32
arithmetic (:mod:`rulekit.semantics.float32`, formerly ``rulekit.ir.float32``) load no module of
the tree IR, and the old name still gives the very same functions."""

from __future__ import annotations

import subprocess
import sys

import rulekit.ir.float32 as old_home
import rulekit.semantics.float32 as new_home


def test_the_old_name_re_exports_the_same_objects():
    assert set(old_home.__all__) == set(new_home.__all__)
    for name in new_home.__all__:
        assert getattr(old_home, name) is getattr(new_home, name), name


def test_combiners_load_no_tree_ir():
    code = ("import sys, rulekit.semantics.combiners; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('rulekit'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = out.stdout.split()
    assert "rulekit.semantics.float32" in loaded
    assert not [m for m in loaded if m == "rulekit.ir" or m.startswith("rulekit.ir.")], loaded
