"""Columns of user-facing values keyed by feature name (no pandas needed): what runtimes receive.

A table holds float64 arrays (NaN = missing) for numeric features and object arrays of labels
(None = missing) for nominal ones. It converts to and from rulekit's float64 code matrix.
CSV input for the commands is read here too, keeping each row's line for FILE:LINE errors.
"""

from __future__ import annotations

import csv
import sys
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from rulekit.errors import DataError
from rulekit.input_kind import SNIFF_CHARS, looks_like
from rulekit.na import parse_na_values
from rulekit.ir.data import to_matrix

Table = dict[str, np.ndarray]

UNSEEN_TEXT = "\u2047unseen"  # a label no domain contains
UNSEEN_INT = -(2**31)


def from_matrix(features: Sequence[Any], M: np.ndarray) -> Table:
    """Labels back from codes: code -1 becomes a value outside the domain, NaN becomes None."""
    out: Table = {}
    for j, f in enumerate(features):
        col = M[:, j]
        if f.kind != "nominal":
            out[f.name] = col.astype(np.float64)
            continue
        dom = list(f.domain)
        ints = all(isinstance(v, int) for v in dom)
        vals = np.empty(col.size, dtype=object)
        for i, c in enumerate(col):
            if np.isnan(c):
                vals[i] = None
            elif c < 0 or c >= len(dom):
                vals[i] = UNSEEN_INT if ints else UNSEEN_TEXT
            else:
                vals[i] = dom[int(c)]
        out[f.name] = vals
    return out


def from_data(X: Any, features: Sequence[Any]) -> Table:
    """Any accepted data (frame, mapping, array, CSV columns of text) as a table."""
    return from_matrix(features, to_matrix(X, features))


def n_rows(table: Table) -> int:
    return len(next(iter(table.values()))) if table else 0


def records(table: Table, names: Sequence[str]) -> list[dict[str, Any]]:
    """One dict per row with plain Python values; missing as None."""
    cols = [table[n] for n in names]
    out = []
    for i in range(n_rows(table)):
        row = {}
        for n, c in zip(names, cols):
            v = c[i]
            if v is None or (isinstance(v, (float, np.floating)) and np.isnan(v)):
                row[n] = None
            elif isinstance(v, np.generic):
                row[n] = v.item()
            else:
                row[n] = v
        out.append(row)
    return out


class CsvColumns(dict):
    """Columns of CSV text keyed by header name (empty cell = missing), remembering where each
    row came from so that errors can name the file and line."""

    path: str
    header: list[str]
    lines: list[int]  # the line each data row starts on (1-based; the header is line 1)


def rows_of(columns: CsvColumns, keep: Sequence[int]) -> CsvColumns:
    """The rows ``keep`` of ``columns``, still naming their file and lines."""
    out = CsvColumns({k: [v[i] for i in keep] for k, v in columns.items()})
    out.path, out.header = columns.path, columns.header
    out.lines = [columns.lines[i] for i in keep]
    return out


def read_csv(path: str | Path, na_values: Iterable[str] | str | None = None,
             values: Mapping[str, Iterable[str]] | None = None) -> CsvColumns:
    """Read a comma-separated file with a header row; one-line errors with FILE:LINE for a missing
    or unreadable file, an empty or duplicated header, a row with the wrong number of fields.

    Cells whose whole text is one of ``na_values`` (default: pandas' NA strings, see
    :func:`parse_na_values`) become empty, i.e. missing, as pandas and spreadsheets write them;
    ``values``: per column, texts that stay values there (a rules file declares 'N/A' a category)."""
    missing = (parse_na_values(na_values) if na_values is None or isinstance(na_values, str)
               else frozenset(na_values) | {""})
    p = Path(path)
    limit = csv.field_size_limit()
    csv.field_size_limit(sys.maxsize)  # a long text cell is data, not a malformed file
    try:
        with p.open(newline="", encoding="utf-8-sig") as fh:
            _refuse_other_kinds(fh.read(SNIFF_CHARS), str(p))
            fh.seek(0)
            reader = csv.reader(fh)
            header = next(reader, None)
            if header is None:
                raise DataError("empty file, expected a CSV header row", file=str(p))
            if not header or all(h.strip() == "" for h in header):
                raise DataError("the header row is empty", file=str(p), line=1)
            _check_header(header, str(p))
            cols: list[list[str]] = [[] for _ in header]
            by_column = [missing - frozenset((values or {}).get(h, ())) for h in header]
            lines: list[int] = []
            start = reader.line_num + 1
            for row in reader:
                if row:
                    if len(row) != len(header):
                        raise DataError(f"{len(row)} field{'s' * (len(row) != 1)}, the header has "
                                        f"{len(header)}", file=str(p), line=start)
                    for c, na, v in zip(cols, by_column, row):
                        c.append("" if v in na else v)
                    lines.append(start)
                start = reader.line_num + 1
    except FileNotFoundError:
        raise DataError("no such file", file=str(p)) from None
    except IsADirectoryError:
        raise DataError("is a directory, expected a CSV file", file=str(p)) from None
    except OSError as err:
        raise DataError(f"cannot read ({err.strerror or err})", file=str(p)) from None
    except UnicodeDecodeError as err:
        raise DataError(f"not UTF-8 text ({err.reason} at byte {err.start})", file=str(p)) from None
    except csv.Error as err:
        raise DataError(f"malformed CSV ({err})", file=str(p), line=reader.line_num) from None
    finally:
        csv.field_size_limit(limit)
    out = CsvColumns(zip(header, cols))
    out.path, out.header, out.lines = str(p), header, lines
    return out


def _refuse_other_kinds(head: str, path: str) -> None:
    """A model JSON or a rules file given as DATA: one line saying so (a CSV reader would complain
    about its 'header' instead)."""
    kind = looks_like(head)
    if kind == "json":
        raise DataError("looks like JSON (a model file?), expected a CSV data file with a header row", file=path)
    if kind == "rules":
        raise DataError("looks like a rules file, expected a CSV data file with a header row", file=path)


def _check_header(header: list[str], path: str) -> None:
    """Two columns with one name would leave it to chance which one a model reads (unnamed
    columns, as trailing commas make, are left alone: no feature reads them)."""
    seen: dict[str, int] = {}
    for j, name in enumerate(header, start=1):
        if name in seen and name.strip():
            raise DataError(f"column {name!r} appears twice in the header (fields {seen[name]} and {j})",
                            file=path, line=1)
        seen[name] = j


def fill_unused(columns: CsvColumns, features: Sequence[Any], used: Iterable[str]) -> None:
    """Give each feature that no split or rule reads (``used``: the names that are read) an
    all-missing column when the data lacks it: its value cannot change a prediction, so data
    without it is scored, not refused. Columns the data has are left as they are."""
    used = set(used)
    n = len(next(iter(columns.values()))) if columns else len(getattr(columns, "lines", ()))
    for f in features:
        if f.name not in columns and f.name not in used:
            columns[f.name] = [""] * n


def check_columns(columns: Mapping[str, Any], features: Sequence[Any]) -> None:
    """Every feature must have a column (a one-line error naming the first one missing) and
    numeric features hold plain numbers (:func:`check_plain_numbers`)."""
    _check_present(columns, features)
    check_plain_numbers(columns, features)


def _check_present(columns: Mapping[str, Any], features: Sequence[Any]) -> None:
    names = [f.name for f in features]
    missing = [n for n in names if n not in columns]
    if not missing:
        return
    path = getattr(columns, "path", None)
    have = getattr(columns, "header", None) or list(columns)  # the file's, not filled-in columns
    hint = header_hint(have, missing[0])
    raise DataError(f"no column {missing[0]!r}, which the model needs{hint}",
                    file=path, line=1 if path else None)


def header_hint(have: Sequence[str], name: str) -> str:
    """What a header without column ``name`` suggests, as the tail of a message: the name with
    spaces around it (in the header or in ``name``) or in another case, a header that is one field
    (a ';' or tab file), else the columns there are (the first 20 and how many more: a wide file
    said only "no column 'y'")."""
    stripped = {h.strip(): h for h in have}
    folded = {unicodedata.normalize("NFC", h.strip()).casefold(): h for h in have}
    key = unicodedata.normalize("NFC", name.strip()).casefold()
    if name.strip() in stripped:
        h = stripped[name.strip()]
        return f"; the header has {h!r} ({'spaces around the name' if h != h.strip() else 'no spaces around it'})"
    if key in folded:
        return f"; the header has {folded[key]!r} (names must match exactly)"
    if len(have) == 1 and any(sep in have[0] for sep in ";\t|"):
        return "; the header is one field: rulekit reads comma-separated files"
    more = f" and {len(have) - 20} more" if len(have) > 20 else ""
    return f" (columns: {', '.join(map(repr, list(have)[:20]))}{more})"


def check_plain_numbers(columns: Mapping[str, Any], features: Sequence[Any]) -> None:
    """Numeric cells must be plain ASCII numbers: Python's float() also reads '1_5' as 15 and
    Arabic-Indic or full-width digits, which no other reader of the file would (a silent wrong
    value). Checked at C speed on the joined column; cells are looked at only on a hit."""
    for f in features:
        if f.kind == "nominal" or f.name not in columns:
            continue
        col = columns[f.name]
        if not col or not isinstance(col[0], str):
            continue
        joined = "\x00".join(col)
        if joined.isascii() and "_" not in joined:
            continue
        for i, v in enumerate(col):
            if v.isascii() and "_" not in v:
                continue
            path, lines = getattr(columns, "path", None), getattr(columns, "lines", None)
            header = getattr(columns, "header", None) or list(columns)
            row = "" if lines else f"row {i + 1}: "
            raise DataError(f"{row}column {f.name!r} (field {header.index(f.name) + 1}): {v!r} is not a "
                            f"plain number (digit separators and non-ASCII digits are not read)",
                            file=path, line=lines[i] if lines else None)


@contextmanager
def located(columns: Mapping[str, Any], features: Sequence[Any]) -> Iterator[None]:
    """Turn a data error raised while scoring ``columns`` (a CSV) into one that names the file,
    line and column of the first cell a numeric feature cannot read."""
    try:
        yield
    except DataError:
        where = _bad_cell(columns, features)
        if where is None:
            raise
        raise where from None


def _bad_cell(columns: Mapping[str, Any], features: Sequence[Any]) -> DataError | None:
    path = getattr(columns, "path", None)
    lines = getattr(columns, "lines", None)
    header = getattr(columns, "header", None) or list(columns)
    for f in features:
        if f.kind == "nominal" or f.name not in columns:
            continue
        for i, v in enumerate(columns[f.name]):
            if not isinstance(v, str) or v == "":
                continue
            try:
                float(v)
            except ValueError:
                field = header.index(f.name) + 1
                line = lines[i] if lines else None
                row = "" if lines else f"row {i + 1}: "
                return DataError(f"{row}column {f.name!r} (field {field}): {v!r} is not a number",
                                 file=path, line=line)
    return None
