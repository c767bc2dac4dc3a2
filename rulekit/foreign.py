"""Tell a library's own model file (LightGBM text, a pickle, XGBoost JSON/UBJ, ONNX, PMML) from a
rulekit model or rules file by its first bytes, so that a command expecting a rulekit file can say
what it got and which ``rulekit import`` line converts it. Nothing is parsed or unpickled: this
only looks at bytes, so a hostile file cannot run code or cost more than reading its head.
"""

from __future__ import annotations

from pathlib import Path

from rulekit.shell_words import shell_word

HEAD_BYTES = 65536

# (what the file is, the --format rulekit import takes, or None when rulekit cannot import it)
LIGHTGBM = ("a LightGBM text model", "lightgbm")
PICKLE = ("a Python pickle (a scikit-learn model?)", "sklearn")
JOBLIB = ("a compressed joblib pickle (a scikit-learn model?)", "sklearn")
XGBOOST_JSON = ("an XGBoost JSON model", "xgboost")
XGBOOST_UBJ = ("an XGBoost UBJSON model", "xgboost")
ONNX = ("an ONNX model", "onnx")
PMML = ("a PMML document", "pmml")
CATBOOST_JSON = ("a CatBoost JSON model", "catboost")
CATBOOST_CBM = ("a CatBoost binary model", "catboost")


def identify(head: bytes, path: str | Path = "") -> tuple[str, str | None] | None:
    """``(description, import format)`` when ``head`` (a file's first bytes) is another library's
    model file, else None (a rulekit model or rules file, or something unknown)."""
    suffix = Path(path).suffix.lower()
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"{"):
        if b'"rulekit-model"' in head[:300]:
            return None
        if b'"learner"' in head and (b'"gradient_booster"' in head or b'"version"' in head):
            return XGBOOST_JSON
        if text[1:2] in (b"L", b"$", b"#", b"U", b"i", b"I") and b"learner" in head:
            return XGBOOST_UBJ
        if (b'"features_info"' in head and (b'"oblivious_trees"' in head or b'"float_features"' in head
                                            or b'"categorical_features"' in head)) \
                or text[1:].lstrip().startswith(b'"ctr_data"'):  # CatBoost writes its keys sorted
            return CATBOOST_JSON
        return None
    if head.startswith(b"CBM1"):
        return CATBOOST_CBM
    if (text.startswith(b"tree\n") or text.startswith(b"tree\r\n")) and b"version=v" in head[:400]:
        return LIGHTGBM
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return PICKLE
    if suffix in (".pkl", ".pickle", ".joblib") and _compressed(head):
        return JOBLIB
    if text.startswith(b"<") and b"<PMML" in head[:2000]:
        return PMML
    if head[:1] == b"\x08" and (b"ai.onnx" in head or b"onnx" in head[:200] or suffix == ".onnx"):
        return ONNX
    return None


def _compressed(head: bytes) -> bool:
    """zlib (a valid header: CMF*256+FLG divisible by 31), gzip, bz2, xz or lz4, as joblib writes."""
    zlib = head[:1] == b"\x78" and len(head) > 1 and (head[0] * 256 + head[1]) % 31 == 0
    return zlib or head.startswith((b"\x1f\x8b", b"BZh", b"\xfd7zXZ", b"\x04\x22\x4d\x18"))


def import_hint(path: str | Path, kind: tuple[str, str | None], expected: str) -> str:
    """The one-line message for a foreign model file given where ``expected`` was wanted."""
    what, fmt = kind
    name = shell_word(str(path))
    if fmt is None:
        return (f"{path}: {what}, not {expected}; rulekit cannot read it (import the model it came "
                f"from: 'rulekit import MODEL -o model.json' takes scikit-learn, XGBoost and LightGBM)")
    pickle_flag = " --allow-pickle" if fmt == "sklearn" else ""
    trust = " (loading a pickle runs its code: only for files you trust)" if fmt == "sklearn" else ""
    return (f"{path}: {what}, not {expected}; convert it first: "
            f"'rulekit import {name}{pickle_flag} -o model.json'{trust}")
