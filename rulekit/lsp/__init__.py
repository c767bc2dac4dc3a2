"""``rulekit lsp``: a Language Server for ``*.rules`` files (pygls, stdio).

The DSL is the one source of truth: diagnostics are ``rulekit check``'s (parser errors, then the
lint), formatting is ``rulekit fmt``'s (``rulekit.dsl.dumps``), completion words come from the grammar.
"""
