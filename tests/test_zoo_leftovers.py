"""Building the zoo leaves nothing behind in the temporary directory (each test process builds it;
a Spark model folder left per process had piled up in /tmp)."""

from __future__ import annotations

import tempfile

from tests import zoo


def test_spark_directory_entry_removes_its_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    model, frame = zoo.ZOO["spark_dir_categorical"].__wrapped__()
    assert len(frame) > 0 and model.n_features == 2
    assert list(tmp_path.iterdir()) == []
