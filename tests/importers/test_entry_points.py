"""The Python entry points of the importers that read files (issue 21/22): `rulekit.from_spark`
and `rulekit.from_pmml` give the model `rulekit import` writes."""

import pytest

import rulekit
from rulekit.ir.modelfile import dumps_model


def test_from_pmml_equals_the_import_command(tmp_path):
    pytest.importorskip("lxml")
    from tests.importers.test_pmml_refusals import tree

    body = ('<Node score="yes"><SimplePredicate field="x" operator="lessOrEqual" value="1"/></Node>'
            '<Node score="no"><True/></Node>')
    src = tmp_path / "m.pmml"
    src.write_text(tree(body, 'missingValueStrategy="nullPrediction"'))
    with pytest.raises(rulekit.RulekitError, match="assume"):
        rulekit.from_pmml(src)
    from rulekit.commands.import_model import load_foreign

    got = rulekit.from_pmml(src, assume_complete=True)
    want = load_foreign(src, None, False, assume_complete=True)
    assert dumps_model(got) == dumps_model(want)


def test_from_spark_reads_a_saved_directory(tmp_path):
    pytest.importorskip("pyarrow")
    import numpy as np

    from tests.importers.test_spark_import_files import _categorical_tree

    folder = _categorical_tree(tmp_path, (1.0,))
    model = rulekit.from_spark(folder)
    rows = np.array([[0.5, 1.0], [np.nextafter(0.5, 1), 1.0], [np.nan, 1.0]])
    assert model.predict(rows).tolist() == [10, 20, 20]
    from rulekit.commands.import_model import load_foreign

    assert dumps_model(model) == dumps_model(load_foreign(folder, None, False))
    with pytest.raises(rulekit.RulekitError):
        rulekit.from_spark(tmp_path / "nonexistent")
