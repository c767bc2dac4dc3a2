"""The IR's plain schema types: an input feature, how trees combine, a class label.

They live apart from :mod:`rulekit.ir.model` (the tree graphs, networkx and numpy) so that the
rule base and the DSL, which only name features and combiners, load without those libraries.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

Label = str | bool | int | float


class Feature(BaseModel):
    """One input column: numeric, or nominal with its domain (codes are indices into it).

    ``match`` (nominal, all-integer domain): how a number finds its category. ``None``/"truncate":
    truncated toward zero like a C cast (LightGBM); "exact": only an equal number matches, so 1.5
    is unseen (scikit-learn's OrdinalEncoder, used by HistGradientBoosting).
    """

    model_config = ConfigDict(frozen=True)
    name: str
    kind: Literal["numeric", "nominal"] = "numeric"
    domain: tuple[str | int, ...] | None = None
    match: Literal["truncate", "exact"] | None = None

    @model_validator(mode="after")
    def _check(self) -> Feature:
        if self.kind == "nominal" and self.domain is None:
            raise ValueError(f"nominal feature {self.name!r} needs a domain")
        if self.kind == "numeric" and self.domain is not None:
            raise ValueError(f"numeric feature {self.name!r} cannot have a domain")
        if self.kind == "numeric" and self.match is not None:
            raise ValueError(f"numeric feature {self.name!r} cannot have a category match rule")
        if self.domain is not None and len(set(map(repr, self.domain))) != len(self.domain):
            raise ValueError(f"nominal feature {self.name!r} has duplicate values in its domain")
        return self


class Combiner(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["single", "average", "vote", "sum"] = "single"
    base_score: tuple[float, ...] = ()
    link: Literal["identity", "sigmoid", "softmax"] = "identity"
    tree_output: tuple[int, ...] | None = None
    decision: Literal["raw>=0", "raw>0"] | None = None
    arithmetic: Literal["float32"] | None = None

    @property
    def n_outputs(self) -> int:
        return max(1, len(self.base_score))
