"""`rulekit import`: read a model trained elsewhere, convert it to the IR, save the model file."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Sequence
from pathlib import Path

from rulekit import progress
from rulekit.commands.source import describe
from rulekit.errors import RulekitError
from rulekit.fileio import check_distinct, check_output_path, report_warnings, report_written, write_atomic
from rulekit.foreign import identify
from rulekit.rename import merge, parse_pairs, read_mapping, rename_features
from rulekit.util import count

PICKLE_MAGIC = (b"\x80",)


def sniff_format(path: Path, head: bytes) -> str:
    """Guess the source library of a model file from its first bytes."""
    stripped = head.lstrip()
    if head.startswith(b"CBM1") or (stripped.startswith(b"{") and (
            b'"features_info"' in head or stripped[1:].lstrip().startswith(b'"ctr_data"'))):
        return "catboost"
    if stripped.startswith(b"{"):
        if b'"learner"' in head or path.suffix == ".json":
            return "xgboost"
    if path.suffix == ".ubj" or stripped.startswith(b"{L") or stripped.startswith(b"{$"):
        return "xgboost"
    if stripped.startswith(b"tree\n") or stripped.startswith(b"tree\r\n") or b"\nversion=v" in head[:200]:
        return "lightgbm"
    if head.startswith(PICKLE_MAGIC) or path.suffix in (".pkl", ".pickle", ".joblib"):
        return "sklearn"
    if path.suffix.lower() == ".onnx" or (identify(head, path) or ("", ""))[1] == "onnx":
        return "onnx"
    if stripped.startswith(b"<") and b"<PMML" in head[:2000]:
        return "pmml"
    raise RulekitError(f"{path}: cannot tell which library wrote this model; pass --format (rulekit imports "
                       f"scikit-learn pickles, XGBoost JSON/UBJ, LightGBM text, CatBoost JSON/.cbm, ONNX and PMML "
                       f"files, and saved Spark ML model directories)")


def load_foreign(file: Path, format: str | None, allow_pickle: bool, arithmetic: str | None = None,
                 assume_complete: bool = False):
    """The IR Model for a foreign model file. ``arithmetic`` (XGBoost only): "float32" sums as
    XGBoost does (the default), "float64" sums in float64 (every SQL dialect then sums alike).
    ``assume_complete`` (PMML only): read trees that give no prediction on a missing value."""
    if file.is_dir():  # a saved Spark ML model is a directory (metadata/ + data/ or stages/)
        if format not in (None, "spark"):
            raise RulekitError(f"{file}: is a directory; only --format spark reads one (a saved Spark ML model)")
        return _load(file, "spark", allow_pickle, arithmetic, assume_complete)
    try:
        with file.open("rb") as fh:
            head = fh.read(4096)
    except FileNotFoundError:
        raise RulekitError(f"{file}: no such file") from None
    except OSError as err:
        raise RulekitError(f"{file}: cannot read ({err.strerror or err})") from None
    if b'"rulekit-model"' in head[:300]:
        raise RulekitError(f"{file}: already a rulekit model file; use it as it is (no import needed)")
    if format is None:
        _refuse_unimportable(file, head)
    fmt = format or sniff_format(file, head)
    try:
        return _load(file, fmt, allow_pickle, arithmetic, assume_complete)
    except RulekitError as err:
        if err.file is None and str(file) not in str(err):
            raise type(err)(f"{file}: {err.message}") from None
        raise


def _refuse_unimportable(file: Path, head: bytes) -> None:
    """A rulekit rules file named as such instead of 'cannot tell' (every library file that
    :func:`rulekit.foreign.identify` names now has an import format)."""
    lines = (line.strip() for line in head.decode("utf-8", "replace").splitlines())
    first = next((line for line in lines if line and not line.startswith("#")), "")
    if first.startswith("rulebase "):
        raise RulekitError(f"{file}: already a rulekit rules file; use it as it is (no import needed)")


# import format -> "module:function" taking the file (a directory for spark) and returning a Model;
# the module is imported on first use, so an optional library is needed only for its own format
LOADERS = {
    "lightgbm": "rulekit.importers.lightgbm:load_file",
    "onnx": "rulekit.importers.onnx:load_file",
    "pmml": "rulekit.importers.pmml:load_file",
    "spark": "rulekit.importers.spark:load_dir",
    "catboost": "rulekit.importers.catboost:load_file",
}


def _load(file: Path, fmt: str, allow_pickle: bool, arithmetic: str | None = None,
          assume_complete: bool = False):
    if arithmetic is not None and fmt != "xgboost":
        raise RulekitError(f"--arithmetic applies to XGBoost models (XGBoost sums in float32); "
                           f"a {fmt} model keeps its library's float64 arithmetic")
    if assume_complete and fmt != "pmml":
        raise RulekitError(f"--assume-complete applies to PMML files (trees that give no prediction "
                           f"on a missing value); a {fmt} model routes missing values itself")
    if fmt == "pmml" and assume_complete:
        from rulekit.importers.pmml import load_file as load_pmml

        return load_pmml(file, assume_complete=True)
    if fmt == "xgboost":
        from rulekit.importers.xgboost import load_file as load_xgboost

        return load_xgboost(file, arithmetic=arithmetic or "float32")
    if fmt == "sklearn":
        if not allow_pickle:
            raise RulekitError(f"{file}: a scikit-learn model is a pickle, which runs code when "
                               f"loaded; pass --allow-pickle if you trust this file")
        from rulekit.importers.sklearn import load_pickled

        return load_pickled(file)
    target = LOADERS.get(fmt)
    if target is None:
        raise RulekitError(f"unknown import format {fmt!r}")
    module_name, function = target.split(":")
    module = importlib.import_module(module_name)  # rulekit's own: an ImportError is a broken install
    return getattr(module, function)(file)


def run(*, file: Path, format: str | None, allow_pickle: bool, output: Path, quiet: bool = False,
        rename: Sequence[str] = (), rename_file: Path | None = None,
        arithmetic: str | None = None, assume_complete: bool = False) -> int:
    """``rename`` (``old=new`` pairs) and ``rename_file`` (JSON or CSV) rename features in the
    model file, so every target made from it uses the new names."""
    from rulekit.dsl.printer import dumps as dumps_rules
    from rulekit.ir.modelfile import dumps_model
    from rulekit.rules.base import RuleBase
    from rulekit.util import gc_paused

    check_output_path(output)
    check_distinct(output, file=file, rename_file=rename_file)
    mapping = merge(read_mapping(rename_file) if rename_file is not None else {}, parse_pairs(rename))
    with progress.phase(f"converting {file}"), gc_paused(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = load_foreign(file, format, allow_pickle, arithmetic, assume_complete)
        if isinstance(model, RuleBase):  # a PMML RuleSetModel: a rules file, not a model file
            if mapping:
                raise RulekitError(f"{file}: --rename applies to models; this file holds a rule set "
                                   f"(rename its features in the rules text)")
            if Path(output).suffix.lower() == ".json":
                raise RulekitError(f"{file}: holds a rule set, which imports as a rules file; name the "
                                   f"output *.rules, not {Path(output).name}")
            with progress.phase(f"writing {output} ({describe(model)})"):
                write_atomic(output, dumps_rules(model))
            report_written(output, f"{describe(model)}, {count(len(model.features), 'feature')}", quiet=quiet)
            report_warnings(caught, quiet=quiet, only=UserWarning)
            return 0
        if mapping:
            model = rename_features(model, mapping)
    with progress.phase(f"writing {output} ({describe(model)})"):
        write_atomic(output, dumps_model(model))
    report_written(output, f"{describe(model)}, {count(model.n_features, 'feature')}", quiet=quiet)
    report_warnings(caught, quiet=quiet, only=UserWarning)  # what the importer could not check
    return 0
