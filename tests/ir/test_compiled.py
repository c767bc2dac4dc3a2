"""The C walker and the numpy walker give the same leaves on every zoo model and probe row."""

import shutil

import numpy as np
import pytest

from rulekit.ir import compiled
from tests import zoo


def test_fast_path_is_built_where_a_compiler_exists():
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler: rulekit runs on its numpy evaluator")
    assert compiled._fastpath is not None


@pytest.mark.parametrize("name", zoo.zoo_names())
def test_c_and_numpy_walkers_agree(name):
    model, data = zoo.get(name)
    M = model.matrix(data)
    cts = model._compiled_trees()
    numpy_leaves = compiled.apply_all(cts, None, M)
    forest = compiled.build_forest(cts)
    if forest is None:
        pytest.skip("model has nominal or linear splits: numpy walker only")
    assert np.array_equal(compiled.apply_all(cts, forest, M), numpy_leaves)
