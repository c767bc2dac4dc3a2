"""Every exporter checks its options the same way: an unknown one is an ExportError naming it."""

from __future__ import annotations

import pytest

import rulekit
from rulekit import exporters
from rulekit.errors import ExportError
from tests import zoo


@pytest.mark.parametrize("target", exporters.targets())
@pytest.mark.parametrize("kind", ["model", "rules"])
def test_an_unknown_option_is_an_export_error_naming_it(target, kind):
    model, _ = zoo.get("sklearn_tree_binary")
    obj = model if kind == "model" else rulekit.to_rules(model)
    # one wording for every target: the option named, then what the target takes
    with pytest.raises(ExportError, match=r"^unknown \S.* export option\(s\): no_such_option \(it takes "):
        exporters.get(target)(obj, no_such_option=1)
