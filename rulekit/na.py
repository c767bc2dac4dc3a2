"""Which CSV cell texts mean "missing": pandas' default NA strings unless ``--na-values`` says
otherwise (kept free of numpy so that the CLI's help can show the list without importing it)."""

from __future__ import annotations

# pandas' default NA strings (pandas.read_csv's na_values; tests compare with pandas' own list)
PANDAS_NA_VALUES = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
                    "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")
NA_VALUES_HELP = ("comma list of cell texts read as missing (an empty cell always is; --na-values '' "
                  "adds none). Default: pandas' list: " + ",".join(PANDAS_NA_VALUES[1:]))


def parse_na_values(option: str | None) -> frozenset[str]:
    """The cell texts read as missing for a ``--na-values`` option: None gives pandas' defaults,
    ``""`` only the empty cell, ``"NA,-"`` those two and the empty cell."""
    if option is None:
        return frozenset(PANDAS_NA_VALUES)
    return frozenset(v for v in option.split(",")) | {""}
