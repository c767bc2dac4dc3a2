"""Every package directory is listed in pyproject.toml: a non-editable install ships only those
(an editable one finds any folder, so a forgotten entry shows only after release)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_is_listed():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(cfg["packages"])
    dirs = {name: ROOT / path for name, path in cfg["package-dir"].items()}
    found = set()
    for name, base in dirs.items():
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base)
            found.add(".".join([name, *rel.parts]) if rel.parts else name)
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"
