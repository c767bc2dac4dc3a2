"""The ``rulekit`` command line's typer application: every command's options and help.

Each command parses its options here and hands over to ``rulekit.commands.<name>``; the entry point
(:func:`rulekit.cli.main`) runs it and turns errors into one line. Loaded only when a command needs
typer (``rulekit check RULES`` does not: see :mod:`rulekit.cli`).
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from rulekit import exporters
from rulekit.errors import RulekitError
from rulekit.na import NA_VALUES_HELP

# rich_markup_mode=None: click's plain help, which shows a flag as a flag ("-q, --quiet"); typer's
# rich panels print "<bool>" after every flag, --help included, as if it took a value
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None,
                  help="rulekit: decision trees as rules, Python, SQL and ONNX that agree exactly.")


QUIET_HELP = "no progress and no messages on success (errors and findings still print)"


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        print(f"rulekit {version('rulekit')}")
        raise typer.Exit(0)


@app.callback()
def _options(show_version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                               help="print rulekit's version and exit")) -> None:
    """rulekit: decision trees as rules, Python, SQL and ONNX that agree exactly."""


def _na_values() -> Optional[str]:
    return typer.Option(None, "--na-values", metavar="TEXTS", help=NA_VALUES_HELP)


def _run(quiet: bool, fn, *args, **kwargs) -> int:
    """Run a command with progress on stderr (unless quiet or stderr is not a terminal)."""
    from rulekit import progress

    with progress.reporter(quiet=quiet):
        return fn(*args, quiet=quiet, **kwargs)


class Algorithm(str, Enum):
    id3 = "id3"
    c45 = "c45"
    cart = "cart"


class Task(str, Enum):
    classification = "classification"
    regression = "regression"


class Prune(str, Enum):
    none = "none"
    reduced_error = "reduced-error"
    pessimistic = "pessimistic"
    cost_complexity = "cost-complexity"


class Candidates(str, Enum):
    tree = "tree"
    pool = "pool"


class Unseen(str, Enum):
    parent = "parent"
    missing = "missing"


class Ensemble(str, Enum):
    bagging = "bagging"
    random_forest = "random-forest"
    extra_trees = "extra-trees"


class ImportFormat(str, Enum):
    sklearn = "sklearn"
    xgboost = "xgboost"
    lightgbm = "lightgbm"
    onnx = "onnx"
    pmml = "pmml"
    spark = "spark"
    catboost = "catboost"


class Arithmetic(str, Enum):
    float32 = "float32"
    float64 = "float64"


class Order(str, Enum):
    first_hit = "first-hit"
    vote = "vote"


# --to and --dialect choices: the exporters' registry (rulekit.exporters.TARGETS / DIALECTS)
Target = Enum("Target", [(name, name) for name in exporters.TARGETS], type=str)


class SqlForm(str, Enum):
    select = "select"
    expression = "expression"
    view = "view"
    function = "function"
    dbt = "dbt"


Dialect = Enum("Dialect", [(name, name) for name in exporters.DIALECTS], type=str)


class DType(str, Enum):
    auto = "auto"
    float = "float"
    double = "double"


class ShowFormat(str, Enum):
    text = "text"
    dot = "dot"
    mermaid = "mermaid"
    svg = "svg"


@app.command()
def demo(out: Path = typer.Option(Path("rulekit-demo"), "--out", help="directory for the artefacts"),
         quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP)) -> None:
    """The whole pipeline on a bundled data set, end to end, with embedded SQLite/DuckDB."""
    from rulekit.commands import demo as cmd

    raise typer.Exit(_run(quiet, cmd.run, out=out))


@app.command()
def fit(data: Path = typer.Argument(..., help="CSV with a header row"),
        target: str = typer.Option(..., "--target", help="the column to predict"),
        algorithm: Algorithm = typer.Option(Algorithm.cart, "--algorithm",
                                             help="id3 and c45: classification only"),
        task: Optional[Task] = typer.Option(None, "--task", help="default: from the target column"),
        criterion: Optional[str] = typer.Option(None, "--criterion",
                                                help="gini|entropy|gain-ratio|mse|sdr"),
        max_depth: Optional[int] = typer.Option(None, "--max-depth", help="default: no limit"),
        min_samples_leaf: int = typer.Option(1, "--min-samples-leaf", help="fewest rows in a leaf"),
        prune: Prune = typer.Option(Prune.none, "--prune",
                                    help="reduced-error and cost-complexity use --prune-data"),
        prune_data: Optional[Path] = typer.Option(None, "--prune-data",
                                                  help="CSV held out for pruning (same columns as DATA)"),
        ensemble: Optional[Ensemble] = typer.Option(None, "--ensemble", help="default: a single tree"),
        n_trees: int = typer.Option(100, "--n-trees", help="trees in an --ensemble"),
        seed: int = typer.Option(0, "--seed", help="random seed (same seed, same model)"),
        output: str = typer.Option(..., "-o", "--output", help="the model file to write (JSON)"),
        na_values: Optional[str] = _na_values(),
        unseen: Optional[Unseen] = typer.Option(None, "--unseen",
                                                help="id3/c45: values never seen in training take their "
                                                     "own branch with the parent's distribution (parent, "
                                                     "default) or the missing values' branch (missing)"),
        keep: list[str] = typer.Option(
            [], "--keep", metavar="COL",
            help="use this text column although it looks like an identifier: fit leaves out text "
                 "columns with over 20 distinct values, more than half as many as their non-empty "
                 "cells; repeatable"),
        quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP)) -> None:
    """Learn a tree or ensemble from DATA."""
    from rulekit.commands import fit as cmd

    raise typer.Exit(_run(quiet, cmd.run, data=data, target=target, algorithm=algorithm.value,
                          task=task.value if task else None, criterion=criterion,
                          max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                          prune=prune.value, prune_data=prune_data,
                          ensemble=ensemble.value if ensemble else None, n_trees=n_trees,
                          seed=seed, output=output, na_values=na_values,
                          unseen=unseen.value if unseen else None, keep=tuple(keep)))


@app.command("import")
def import_(file: Path = typer.Argument(
                ..., help="a scikit-learn pickle/joblib (a Pipeline too), XGBoost JSON/UBJ, LightGBM text, "
                     "CatBoost JSON/.cbm, ONNX, PMML, or a saved Spark ML model directory"),
            format: Optional[ImportFormat] = typer.Option(None, "--format", help="default: sniffed"),
            allow_pickle: bool = typer.Option(False, "--allow-pickle",
                                              help="load a scikit-learn pickle/joblib (runs its code!)"),
            output: str = typer.Option(..., "-o", "--output", help="the model file to write (JSON)"),
            rename: list[str] = typer.Option(
                [], "--rename", metavar="OLD=NEW",
                help="name feature OLD as NEW in the model file (and so in every target); repeatable"),
            rename_file: Optional[Path] = typer.Option(
                None, "--rename-file", metavar="FILE",
                help='feature names to change: a JSON object {"old": "new"} or a CSV of old,new rows'),
            arithmetic: Optional[Arithmetic] = typer.Option(
                None, "--arithmetic",
                help="XGBoost only: float32 sums as XGBoost does (default); float64 sums in float64, "
                     "so every SQL dialect sums alike"),
            assume_complete: bool = typer.Option(
                False, "--assume-complete",
                help="PMML only: read trees that give no prediction on a missing value (as "
                     "sklearn2pmml writes them); the model then matches the file on complete rows"),
            quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP)) -> None:
    """Convert a model from scikit-learn, XGBoost, LightGBM, CatBoost, Spark ML, ONNX or PMML into a
    rulekit model file."""
    from rulekit.commands import import_model as cmd

    raise typer.Exit(_run(quiet, cmd.run, file=file, format=format.value if format else None,
                          allow_pickle=allow_pickle, output=output, rename=rename,
                          rename_file=rename_file,
                          arithmetic=arithmetic.value if arithmetic else None,
                          assume_complete=assume_complete))


@app.command()
def rules(model: Path = typer.Argument(..., help="a rulekit model file (with --induce or --scorecard: a "
                                                   "CSV of data)"),
          prune_data: Optional[Path] = typer.Option(None, "--prune-data",
                                                    help="CSV with the target column: prune, order by class"),
          prune: Optional[str] = typer.Option(
              None, "--prune", help="default with --prune-data: reduced-error on the tree, then each rule "
                                    "generalised by pessimistic error; or pessimistic, reduced-error (rules only)"),
          select: str = typer.Option("mdl", "--select",
                                     help="mdl: keep each class's rules of shortest description; none: keep all"),
          cf: Optional[float] = typer.Option(None, "--cf", help="with --prune-data: C4.5's confidence factor "
                                             "for generalising rules (lower prunes more; default 0.5, "
                                             "0.25 with --prune pessimistic)"),
          min_rules: int = typer.Option(0, "--min-rules", help="with --prune-data: when the MDL choice "
                                        "leaves fewer rules, choose without it and keep at least this many"),
          train_data: Optional[Path] = typer.Option(None, "--train-data", help="with --prune-data: the CSV "
                                                    "the tree was grown on; each class's rules are chosen "
                                                    "on it and the pruning data together"),
          candidates: Optional[Candidates] = typer.Option(
              None, "--candidates", help="with --prune-data and training rows: tree (default): the "
                                         "tree's rules; pool: also rules of 10 trees regrown on bootstrap "
                                         "samples of the training rows (docs/rules.md, session 7)"),
          induce: bool = typer.Option(False, "--induce",
                                      help="learn rules from the data file MODEL directly (needs --target)"),
          scorecard: bool = typer.Option(False, "--scorecard",
                                         help="learn a scorecard from the data file MODEL (needs --target): "
                                              "rules of one or two tests whose weights add up per class"),
          terms: Optional[int] = typer.Option(None, "--terms", help="with --scorecard: at most this many "
                                              "tests (default 18; a rule of two tests counts 2)"),
          target: Optional[str] = typer.Option(None, "--target",
                                               help="with --induce or --scorecard: the class column"),
          keep: list[str] = typer.Option(
              [], "--keep", metavar="COL",
              help="with --induce or --scorecard: use this text column even though it looks like an "
                   "identifier (as fit, which leaves such columns out); repeatable"),
          dnf: bool = typer.Option(False, "--dnf", help="merge into one rule per class"),
          order: Order = typer.Option(Order.first_hit, "--order",
                                   help="first-hit: the first rule that fires decides; vote: all that fire"),
          output: str = typer.Option(..., "-o", "--output", help="the rules file to write"),
          exact: bool = typer.Option(False, "--exact",
                                     help="write every digit (default: statistics to 4 digits, float32 "
                                          "thresholds as the shortest decimal that is the same test)"),
          na_values: Optional[str] = _na_values(),
          quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP)) -> None:
    """Extract, simplify and prune a rule base from a model."""
    from rulekit.commands import rules as cmd

    if prune not in (None, "pessimistic", "reduced-error"):
        raise RulekitError(f"--prune must be pessimistic or reduced-error (got {prune!r})")
    raise typer.Exit(_run(quiet, cmd.run, model=model, prune_data=prune_data, dnf=dnf,
                          order=order.value, output=output, prune=prune, na_values=na_values,
                          select=select, induce=induce, target=target, exact=exact, cf=cf,
                          min_rules=min_rules, train_data=train_data,
                          candidates=candidates.value if candidates else None,
                          scorecard=scorecard, terms=terms, keep=tuple(keep)))


@app.command()
def export(source: Path = typer.Argument(..., help="a model file or rules file"),
           to: Target = typer.Option(..., "--to", help="what to write: " + "; ".join(
               f"{name}, {what}" for name, (_, what) in exporters.TARGETS.items())),
           dialect: Optional[Dialect] = typer.Option(None, "--dialect", help="SQL: the database, one of "
                                                     + ", ".join(exporters.DIALECTS.values())
                                                     + " (default: sqlite)"),
           table: Optional[str] = typer.Option(
               None, "--table", help="SQL: a SELECT over this table (default: a bare prediction expression)"),
           key: Optional[str] = typer.Option(None, "--key", help="SQL: a column of --table to select first"),
           proba: bool = typer.Option(False, "--proba",
                                      help="SQL: a probability column per class (needs --table, or --form function)"),
           form: Optional[SqlForm] = typer.Option(
               None, "--form", help="SQL: select, expression, view (CREATE VIEW over --table) or function (of "
                                    "the features) (default: select with --table, else expression)"),
           name: Optional[str] = typer.Option(None, "--name",
                                              help="SQL: the view or function name (default: from the table or target)"),
           replace: bool = typer.Option(False, "--replace", help="SQL: replace an existing view or function"),
           max_statement_bytes: Optional[int] = typer.Option(
               None, "--max-statement-bytes", help="SQL: refuse a statement longer than this (default: the "
                                                   "dialect's documented limit: BigQuery 1,024K characters, T-SQL 256 MB)"),
           dtype: Optional[DType] = typer.Option(None, "--dtype",
                                                 help="ONNX: the input type of X (default: auto = double when any test of "
                                                      "the model compares in float64, else float)"),
           opset: Optional[str] = typer.Option(None, "--opset",
                                     help="ONNX: auto, 5 (TreeEnsemble) or 3 (legacy TreeEnsemble*) "
                                               "(default: auto)"),
           output: str = typer.Option(..., "-o", "--output", help="file, or - for stdout"),
           quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP)) -> None:
    """Write a deployable artefact (--to: Python, SQL, ONNX, rules, JSON, dot, PMML)."""
    from rulekit.commands import export as cmd

    given = {"--dialect": dialect is not None, "--table": table is not None, "--key": key is not None,
             "--proba": proba, "--dtype": dtype is not None, "--opset": opset is not None,
             "--form": form is not None, "--name": name is not None, "--replace": replace,
             "--max-statement-bytes": max_statement_bytes is not None}
    applies = {"--dialect": "sql", "--table": "sql", "--key": "sql", "--proba": "sql",
               "--dtype": "onnx", "--opset": "onnx", "--form": "sql", "--name": "sql", "--replace": "sql",
               "--max-statement-bytes": "sql"}
    for option, is_given in given.items():
        if is_given and to.value != applies[option]:
            raise RulekitError(f"{option} applies to --to {applies[option]}, not --to {to.value}")
    opset = opset or "auto"
    if opset not in ("auto", "5", "3"):
        raise RulekitError(f"--opset must be auto, 5 or 3 (got {opset!r})")
    raise typer.Exit(_run(quiet, cmd.run, source=source, to=to.value,
                          dialect=(dialect or Dialect.sqlite).value, table=table, key=key, proba=proba,
                          dtype=(dtype or DType.auto).value, output=output,
                          opset=opset if opset == "auto" else int(opset),
                          form=form.value if form else None, name=name, replace=replace,
                          max_statement_bytes=max_statement_bytes))


@app.command()
def predict(source: Path = typer.Argument(..., help="a model file or rules file"),
            data: Path = typer.Argument(..., help="CSV with a header row (empty and NA cells: missing; see --na-values)"),
            proba: bool = typer.Option(False, "--proba", help="a proba:<class> column per class"),
            explain: bool = typer.Option(False, "--explain",
                                         help="an explanation column: the rule or path that decided"),
            output: Optional[str] = typer.Option(None, "-o", "--output",
                                                 help="CSV file to write (default, or -: stdout)"),
            csv_guard: bool = typer.Option(
                True, "--csv-guard/--no-csv-guard",
                help="text cells starting with = + - @ tab or CR (labels, rules from the data) get a "
                     "leading ' so spreadsheets do not run them as formulas; numbers never change"),
            na_values: Optional[str] = _na_values(),
            quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP)) -> None:
    """Score the rows of DATA (CSV out, rows in input order)."""
    from rulekit.commands import predict as cmd

    raise typer.Exit(_run(quiet, cmd.run, source=source, data=data, proba=proba, explain=explain,
                          output=output, csv_guard=csv_guard, na_values=na_values))


@app.command()
def check(rules_file: Path = typer.Argument(..., metavar="RULES", help="a rules file"),
          strict: bool = typer.Option(False, "--strict", "--warnings-as-errors",
                                      help="lint warnings count as errors (exit 1)"),
          quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP)) -> None:
    """Validate and lint a rules file: exit 0 when valid, 1 with FILE:LINE:COL messages when not."""
    from rulekit.commands import check as cmd

    raise typer.Exit(_run(quiet, cmd.run, rules_file, strict=strict))


@app.command()
def fmt(rules_file: Path = typer.Argument(..., metavar="RULES", help="a rules file, rewritten in place"),
        check_only: bool = typer.Option(False, "--check", help="exit 1 if it would change"),
        exact: bool = typer.Option(False, "--exact", help="every digit of statistics and thresholds"),
        expand_missing: bool = typer.Option(False, "--expand-missing",
                                            help="missing-value routing on every literal, no declarations"),
        quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP)) -> None:
    """Rewrite a rules file in canonical form."""
    from rulekit.commands import fmt as cmd

    raise typer.Exit(_run(quiet, cmd.run, rules_file, check=check_only, exact=exact,
                          expand_missing=expand_missing))


@app.command()
def lsp() -> None:
    """Serve the Language Server for *.rules files on stdin/stdout (editors start it)."""
    from rulekit.commands import lsp as cmd

    raise typer.Exit(cmd.run())


@app.command()
def verify(source: Path = typer.Argument(..., help="a model file or rules file"),
           data: Path = typer.Argument(..., help="CSV with a header row (probe rows are added)"),
           backends: Optional[str] = typer.Option(
               None, "--backends",
               help="comma list: python,python-batch,sqlite,duckdb,postgres,mysql,onnx (the default "
                    "export, --dtype auto),onnx-float,onnx-double (default: all but onnx-float, and "
                    "onnx-double only when onnx takes float; unreachable ones are skipped unless "
                    "named here)"),
           all_rows: bool = typer.Option(
               False, "--all-rows",
               help="run the Python per-row functions on every data row too (default: every probe "
                    "row and a sample of 2,000 data rows; python-batch always scores every row)"),
           jobs: int = typer.Option(1, "--jobs", "-j",
                                    help="backends run at once (threads; their times then overlap)"),
           source_model: Optional[Path] = typer.Option(
               None, "--source-model",
               help="the XGBoost JSON/UBJ, LightGBM text or scikit-learn pickle file SOURCE was "
                    "imported from: its library also scores the rows, every backend is compared with it "
                    "(default: the XGBoost/LightGBM file SOURCE names, when it lies next to SOURCE)"),
           against_source: Optional[bool] = typer.Option(
               None, "--against-source/--no-against-source",
               help="compare with the source library (default: on when --source-model is given and "
                    "its library is installed)"),
           allow_pickle: bool = typer.Option(False, "--allow-pickle",
                                             help="let --source-model load a scikit-learn pickle"),
           na_values: Optional[str] = _na_values(),
           quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP)) -> None:
    """Run every backend on DATA and report disagreements with the source (exit 1 on any)."""
    from rulekit.commands import verify as cmd

    raise typer.Exit(_run(quiet, cmd.run, source=source, data=data, backends=backends,
                          all_rows=all_rows, jobs=jobs, na_values=na_values,
                          source_model=source_model, against_source=against_source,
                          allow_pickle=allow_pickle))


@app.command()
def show(source: Path = typer.Argument(..., help="a model file or rules file"),
         format: ShowFormat = typer.Option(ShowFormat.text, "--format"),
         output: Optional[str] = typer.Option(None, "-o", "--output",
                                              help="file to write (default, or -: stdout)"),
         quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP)) -> None:
    """A human view of a model or rule base."""
    from rulekit.commands import show as cmd

    raise typer.Exit(_run(quiet, cmd.run, source=source, format=format.value, output=output))


@app.command()
def stats(rules_file: Path = typer.Argument(..., metavar="RULES", help="a rules file"),
          data: Path = typer.Argument(..., help="CSV with a header row and the target column"),
          target: Optional[str] = typer.Option(None, "--target",
                                               help="the target column (default: the rules' target)"),
          output: str = typer.Option(..., "-o", "--output", help="the rules file to write (may be RULES)"),
          exact: bool = typer.Option(False, "--exact",
                                     help="every digit (default: 4 significant digits, as rules print)"),
          na_values: Optional[str] = _na_values(),
          quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP)) -> None:
    """Recompute every rule's statistics on DATA, keeping the file's comments and layout."""
    from rulekit.commands import stats as cmd

    raise typer.Exit(_run(quiet, cmd.run, rules=rules_file, data=data, output=output, exact=exact,
                          target=target,
                          na_values=na_values))


@app.command()
def studio(source: Path = typer.Argument(..., help="a rules file or a model file (opened as its rules)"),
           data: Optional[Path] = typer.Option(None, "--data", help="CSV: show what each edit does to its rows"),
           target: Optional[str] = typer.Option(None, "--target",
                                                help="the target column of --data (default: the rules' target)"),
           port: int = typer.Option(8765, "--port", help="the port to listen on"),
           host: str = typer.Option("127.0.0.1", "--host",
                                    help="the address to listen on (other than 127.0.0.1: a warning)"),
           no_browser: bool = typer.Option(False, "--no-browser", help="do not open a browser tab")) -> None:
    """A local browser workbench: edit rules with live lint, picture and impact on data; save; export."""
    from rulekit.commands import studio as cmd

    raise typer.Exit(cmd.run(source=source, data=data, target=target, port=port, host=host,
                             no_browser=no_browser))


class DiffFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"


@app.command()
def diff(a: Path = typer.Argument(..., metavar="A", help="a model file or rules file (before)"),
         b: Path = typer.Argument(..., metavar="B", help="a model file or rules file (after)"),
         data: Optional[Path] = typer.Option(None, "--data", help="CSV: rows whose prediction changes"),
         format: DiffFormat = typer.Option(DiffFormat.text, "--format"),
         max_regions: int = typer.Option(50, "--max-regions", help="regions listed (all are counted)"),
         na_values: Optional[str] = _na_values(),
         quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP)) -> None:
    """What changed between A and B: rules, the input regions where they disagree, changed rows.
    Exit 0 when they agree on every input, 1 when they differ."""
    from rulekit.commands import diff as cmd

    raise typer.Exit(_run(quiet, cmd.run, a=a, b=b, data=data, format=format.value,
                          max_regions=max_regions, na_values=na_values))
