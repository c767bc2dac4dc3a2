"""Syntax errors in words: what was expected where, for people who do not read grammars."""

from __future__ import annotations

import difflib
import re

from rulekit.dsl.grammar import NAME_RE
from rulekit.dsl.literals import quote

_WORDS = {
    "COMP": "a comparison (< <= > >= = !=)", "IS": "'is'", "IN": "'in'", "NOT": "'not'",
    "THEN": "'then'", "AND": "'and'", "OR": "'or'", "NAME": "a name", "STRING": "a name",
    "NUMBER": "a number", "INF": "a number", "NAN": "a number", "ADDOP": "'+' or '-'",
    "TRUE": "true or false", "FALSE": "true or false", "LPAR": "'('", "RPAR": "')'", "LBRACE": "'{'",
    "RBRACE": "'}'", "LSQB": "'['", "RSQB": "']'", "COMMA": "','", "COLON": "':'", "STAR": "'*'",
    "EQUAL": "'='", "IF": "'if'", "MISSING": "'missing'", "CLASSES": "'classes'",
    "NUMERIC": "'numeric' or 'nominal'", "NOMINAL": "'numeric' or 'nominal'",
    "CLASSIFICATION": "'classification', 'regression' or 'classes'",
    "REGRESSION": "'classification', 'regression' or 'classes'",
    "FIRST_HIT": "first-hit, vote or weighted-sum", "WEIGHTED_SUM": "first-hit, vote or weighted-sum",
    "FLOAT32": "float32 or float64", "FLOAT64": "float32 or float64",
    "SINGLE": "single, average, vote or sum", "AVERAGE": "single, average, vote or sum",
    "SUM": "single, average, vote or sum", "IDENTITY": "identity, sigmoid or softmax",
    "SIGMOID": "identity, sigmoid or softmax", "SOFTMAX": "identity, sigmoid or softmax",
    "LINK": "'link'", "BASE_SCORE": "'base_score'", "TREE_OUTPUT": "'tree_output'",
    "WEIGHT": "'weight'", "WITH": "'with'", "VALUE": "'value'", "LABEL": "'label'",
    "NOTHING": "'nothing'", "$END": "the end of the file",
}
_HEADER_WORDS = ["rulebase", "target", "feature", "semantics", "precision", "combiner", "default", "group"]
_STATEMENTS = {"RULEBASE", "TARGET", "FEATURE", "SEMANTICS", "PRECISION", "COMBINER", "DEFAULT", "GROUP"}


# header words a ':' was typed after (`default: no`, `semantics: first-hit`): a rule's id takes one
_HEADER_TOKENS = _STATEMENTS | {"MISSING", "UNSEEN"}
_FIRST_NAME = re.compile(r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s:]+)\s*:?\s*(.*)""")


# words that take an argument (`semantics first-hit`, `classes {..}`): an error after one is about
# the argument, so the hint to quote the word as a name does not apply (audit 3: 'semantics
# firsthit' was told to write "semantics" in quotes)
_ARGUMENT_WORDS = _HEADER_TOKENS | {"CLASSES", "NOMINAL", "MATCH", "LINK", "BASE_SCORE", "TREE_OUTPUT"}


def colon_after_header_word(word, colon, text: str) -> str | None:
    """The message for a ':' typed after the header word ``word`` (a token starting its line), or
    None when ``word`` is no header word (then a rule id: the rule before may be unfinished). The
    fix is spelled out from the line itself: ``default: no`` -> ``default no``; ``target`` and
    ``feature`` take the ':' after their name (``target: y classes {a, b}`` -> ``target y: classes
    {a, b}``)."""
    if word.type not in _HEADER_TOKENS:
        return None
    end = text.find("\n", colon.end_pos)
    rest = text[colon.end_pos:end if end >= 0 else len(text)].strip()
    kw = word.value
    if re.match(r"if\b", rest):  # a rule whose id is a header word
        return f"'{kw}' is a header word: a rule with this id is written with quotes, \"{kw}\": if ..."
    if word.type in ("TARGET", "FEATURE"):
        m = _FIRST_NAME.fullmatch(rest)
        fix = f"{kw} {m.group(1)}: {m.group(2)}".rstrip() if m and rest else f"{kw} NAME: ..."
        return f"the ':' goes after the {kw}'s name, not after '{kw}': write {_q(fix)}"
    fix = f"{kw} {rest}" if rest else f"{kw} ..."
    return f"no ':' after '{kw}' (a rule's id takes one, a header word does not): write {_q(fix)}"


def _q(text: str) -> str:
    text = text if len(text) <= 40 else text[:37] + "..."
    return "'" + text + "'"


def _found(tok) -> str:
    return "the end of the file" if tok.type == "$END" else _q(tok.value)


def _expected(exp: set[str], prev, starts_line: bool = False) -> str:
    after = f" after {_q(prev.value)}" if prev is not None else ""
    if "NOT" in exp and "LPAR" in exp and "NAME" in exp:
        return f"expected a condition{after} (like 'age > 30' or 'colour in {{red, blue}}')"
    if "COMP" in exp and "IS" in exp:
        return (f"expected a comparison{after} (like '{prev.value} > 3', '= value', 'in {{...}}' or "
                "'is missing')" if prev is not None else "expected a comparison")
    if "COMP" in exp and "ADDOP" in exp:
        return f"expected a comparison{after} (< <= > >=) or another term ('+ 2*x')"
    if "NUMBER" in exp and "TRUE" in exp and "NOT" not in exp and "NOTHING" not in exp:
        return f"expected a number or a value{after}"
    if "NOTHING" in exp:
        return (f"expected a conclusion{after}: a class label or a number, '[probabilities]', "
                "'value N' or 'nothing'")
    if "THEN" in exp:
        return f"expected 'then' (or 'and' / 'or'){after}"
    if "RPAR" in exp and "AND" in exp:
        return f"expected ')' (or 'and' / 'or'){after}"
    if {"COMMA", "RBRACE"} <= exp:  # inside braces (LALR merges a set's state with statement starts)
        return f"expected ',' or '}}'{after}"
    if "IF" in exp and _STATEMENTS & exp:
        if "WEIGHT" in exp or "WITH" in exp or "LSQB" in exp or "VALUE" in exp:
            return (f"expected the next rule ('if ... then ...') or a header line{after}, or more of "
                    "this conclusion ('[probabilities]', 'value N', 'weight N', 'with key = N')")
        return f"expected a rule ('if ... then ...') or a header line{after}"
    if exp == {"IF"}:
        return f"expected 'if'{after}"
    if exp == {"COLON"}:
        if prev is not None and prev.type == "NAME" and starts_line:
            near = difflib.get_close_matches(prev.value, _HEADER_WORDS, n=1, cutoff=0.75)
            if near:
                return f"expected ':'{after} (did you mean the header word '{near[0]}'?)"
            return f"expected ':'{after} (a rule starts 'ID: if ...' or just 'if ...')"
        return f"expected ':'{after}"
    if "MISSING" in exp:
        return f"expected 'missing' or 'not missing'{after}"
    if exp == {"LBRACE"}:
        return f"expected '{{'{after} (a set of values is written {{red, blue}})"
    words = []
    for t in sorted(exp):
        w = _WORDS.get(t) or ("a header line or a rule" if t in _STATEMENTS else t.lower())
        if w not in words:
            words.append(w)
    # 'vote' is already in 'first-hit, vote or weighted-sum' (was: '... or weighted-sum or vote')
    words = [w for w in words if not any(o != w and w in re.split(r", | or ", o) for o in words)]
    if len(words) > 1:
        body = ", ".join(words[:-1]) + " or " + words[-1]
    else:
        body = words[0] if words else "something else"
    return f"expected {body}{after}"


def syntax_message(e, prev, text: str):
    """(message, (line, column, width)) for an lark ``UnexpectedToken``."""
    tok = e.token
    exp = set(e.expected)
    starts = prev is not None and not text[text.rfind("\n", 0, prev.start_pos) + 1:prev.start_pos].strip()
    msg = f"{_expected(exp, prev, starts)}, found {_found(tok)}"
    if tok.type != "$END" and tok.value == "=" and prev is not None and prev.value in ("=", "<", ">", "!"):
        msg += " (equality is a single '=')"
    elif prev is not None and prev.type not in ("NAME", "STRING") and NAME_RE.fullmatch(prev.value) \
            and prev.type not in ("IF", "THEN", "AND", "OR", "NOT", "IS", "IN", "WITH", "WEIGHT") \
            and prev.type not in _ARGUMENT_WORDS:
        msg += (f" ('{prev.value}' is a word of the rule language here: to use it as a name or label, "
                f"write it in quotes, \"{prev.value}\")")
    elif tok.type == "COLON" and prev is not None and prev.type in ("NAME", "STRING", "NUMBER"):
        msg += " (the rule before this one may be missing its conclusion)"
    else:
        msg += _quote_hint(prev, tok, text)
    if tok.type == "$END":
        if prev is None:
            return msg, (1, 1, 1)
        return msg, (prev.line, prev.end_column, 1)
    return msg, (tok.line, tok.column, max(1, tok.end_pos - tok.start_pos))


_VALUE_RUN = re.compile(r"(.+?)\s*(?=[,}\n]|\s+(?:then|and|or)\b|$)")


def _quote_hint(prev, tok, text: str) -> str:
    """Where a value is expected (after '=', '{' or ',') and a name runs on with '-' or a space
    (``North West``, ``Île-de-France``): the value in quotes, as the header writes it (audit 3: the
    errors spoke of comparisons, terms and conclusions)."""
    if prev is None or prev.type != "NAME" or tok.type not in ("ADDOP", "NAME", "NUMBER"):
        return ""
    if not text[:prev.start_pos].rstrip().endswith(("=", "{", ",")):
        return ""
    m = _VALUE_RUN.match(text, prev.start_pos)
    raw = m.group(1) if m else ""
    if not raw or raw == prev.value:
        return ""
    hint = f"a value with '-' or spaces is written in quotes: {quote(raw)}"
    parts = raw.split()
    if _in_braces(text, prev.start_pos) and len(parts) > 1 and all(NAME_RE.fullmatch(p) for p in parts):
        # `{no yes}` is more often two values missing their ',' than one value with a space (a
        # review: following the quotes hint alone gave a file with ONE class "no yes")
        before = "..., " if not text[:prev.start_pos].rstrip().endswith("{") else ""
        after = "" if text[m.end():].lstrip().startswith("}") else ", ..."
        return f" (put ',' between values: {{{before}{', '.join(parts)}{after}}}; or, for one value, {hint})"
    return f" ({hint})"


_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"' + r"|'(?:[^'\\\n]|\\.)*'")


def _in_braces(text: str, pos: int) -> bool:
    """Whether ``pos`` is inside a ``{...}`` opened on its line (quoted names left out: a '}' in
    ``"a}"`` closes nothing)."""
    line = text[text.rfind("\n", 0, pos) + 1:pos]
    line = _QUOTED.sub(lambda q: "_" * len(q.group()), line)
    return line.rfind("{") > line.rfind("}")

