"""The README's set-up (issue 25): exactly two set-up commands (CI runs the second), clone/cd/venv
guidance, the suite's duration, a [bench] extra holding every peer bench/*.py imports, and a
checkout folder name that cannot shadow the package."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
SETUP = README[README.index("## Set up"):README.index("\n## ", README.index("## Set up") + 1)]

# import name -> distribution name, for the optional peers of bench/*.py
PEERS = {"chefboost": "chefboost", "m2cgen": "m2cgen", "skl2onnx": "skl2onnx",
         "onnxmltools": "onnxmltools", "wittgenstein": "wittgenstein", "imodels": "imodels",
         "orbital": "orbital"}


def test_two_setup_commands_and_the_marker():
    blocks = re.findall(r"```sh\n(.*?)\n```", SETUP, flags=re.S)
    assert len(blocks) == 2 and all("\n" not in b for b in blocks), blocks
    assert blocks[0].startswith("pip install -e '.[all]'") and "rulekit demo" in blocks[0]
    after_marker = SETUP.split("<!-- test-command -->\n", 1)[1].splitlines()
    assert after_marker[0] == "```sh" and after_marker[1] == blocks[1]


def test_fresh_machine_guidance():
    for needle in ("git clone", "cd rulekit-src", "python3 -m venv", "activate", "about 11 minutes",
                   'python -m pytest -m "not slow" -n 2 -q', "about 3½ minutes", "'.[bench]'"):
        assert needle in SETUP, needle
    clone = re.search(r"git clone \S+ (\S+)", SETUP)
    assert clone and clone.group(1) != "rulekit"  # a 'rulekit' folder would shadow the package


def test_bench_extra_holds_every_peer_the_benchmarks_import():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    bench = " ".join(extras["bench"])
    imported = set()
    for path in (ROOT / "bench").glob("*.py"):
        imported |= set(re.findall(r"^\s*(?:import|from) (\w+)", path.read_text(), flags=re.M))
    peers = imported & set(PEERS)
    assert peers == set(PEERS), imported  # a new peer: add it to PEERS and to the extra
    for name in peers:
        assert re.search(rf'(^|[" ]){PEERS[name]}([<>=~!]|"|$)', bench), name
    assert "rulekit[all,spark]" in bench


def test_a_checkout_named_otherwise_does_not_shadow(tmp_path):
    """From the parent folder of a checkout named as the README says, `import rulekit` is the
    package (a folder named `rulekit` there would be an empty namespace package)."""
    (tmp_path / "rulekit-src").symlink_to(ROOT)
    res = subprocess.run([sys.executable, "-c", "import rulekit; print(callable(rulekit.load))"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "True", res.stderr
