"""`rulekit lsp`: serve the rules Language Server on stdin/stdout (needs the ``lsp`` extra)."""

from __future__ import annotations

import importlib.util
import sys


def run() -> int:
    if importlib.util.find_spec("pygls") is None:
        print("rulekit: 'rulekit lsp' needs pygls: pip install 'rulekit[lsp]'", file=sys.stderr)
        return 2
    from rulekit.lsp import server  # optional dependency: imported only when it is installed

    return server.main()
