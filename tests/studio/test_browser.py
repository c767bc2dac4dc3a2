"""The studio in a real browser (Debian's Chromium through /usr/bin/chromedriver and Selenium): open a
rules file, type an edit, see the lint finding at its line, see the changed-row count `rulekit diff`
gives, save, export SQL and run it in SQLite; a screenshot is kept under tests/studio/output/."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rulekit import dsl
from rulekit.table import read_csv
from tests.studio import browser, cases

REQUIRE = os.environ.get("RULEKIT_REQUIRE_SERVERS") == "1"
OUTPUT = Path(__file__).parent / "output"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def driver():
    why = browser.missing()
    if why:
        if REQUIRE:
            pytest.fail(f"{why} (RULEKIT_REQUIRE_SERVERS=1: CI must run the browser tests)")
        pytest.skip(why)
    drv = browser.chrome()
    yield drv
    drv.quit()


def cli(*args):
    return subprocess.run([sys.executable, "-m", "rulekit", *map(str, args)], check=False, capture_output=True, text=True)


def _text(drv, css):
    from selenium.webdriver.common.by import By

    return drv.find_element(By.CSS_SELECTOR, css).text


def _tab(drv, name: str) -> None:
    from selenium.webdriver.common.by import By

    tab = next(t for t in drv.find_elements(By.CSS_SELECTOR, ".q-tab") if t.text.strip().lower() == name.lower())
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].click()", tab)


def _go_to_line(drv, line: int):
    """Put the cursor at the end of ``line`` (1-based) of the editor."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    drv.find_element(By.CSS_SELECTOR, ".cm-content").click()
    chain = ActionChains(drv).key_down(Keys.CONTROL).send_keys(Keys.HOME).key_up(Keys.CONTROL)
    for _ in range(line - 1):
        chain = chain.send_keys(Keys.DOWN)
    chain.send_keys(Keys.END).perform()


def test_edit_lint_impact_save_export(driver, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    rb = cases.rulebase(40, seed=4)
    text = dsl.dumps(rb)
    rules, data = tmp_path / "r.rules", tmp_path / "d.csv"
    rules.write_text(text, encoding="utf-8")
    cases.write_csv(data, cases.columns(rb, 2000, seed=1))
    original = tmp_path / "original.rules"
    shutil.copy(rules, original)
    studio = browser.Studio(rules, "--data", data)
    drv = driver
    try:
        drv.get(studio.url)
        browser.wait_for(lambda: _text(drv, ".rk-changed") == "changed rows: 0 of 2,000", 60, "first impact")
        # every script, style and font came from the studio itself
        urls = drv.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        assert urls and all(u.startswith(studio.url) for u in urls), [u for u in urls if not u.startswith(studio.url)]

        # 1. an edit the lint flags: a rule typed at the end whose second test is implied by its first
        lines = text.split("\n")
        n_lines = len(lines) - 1 if lines[-1] == "" else len(lines)
        _go_to_line(drv, n_lines)
        typed = "if f0 <= 1 and f0 <= 2 then b"
        ActionChains(drv).send_keys(Keys.ENTER).send_keys(typed).perform()
        edited = text.rstrip("\n") + "\n" + typed + ("\n" if text.endswith("\n") else "")
        probe = tmp_path / "probe.rules"
        probe.write_text(edited, encoding="utf-8")
        want = [ln.replace(str(probe), str(rules)) for ln in cli("check", probe).stdout.splitlines()
                if ": warning: " in ln]
        assert any(f":{n_lines + 1}:16: warning: " in w for w in want), want
        browser.wait_for(lambda: [e.text for e in drv.find_elements(By.CSS_SELECTOR, ".rk-finding")] == want,
                         60, "the lint's findings")
        # the mark sits on the typed line, under the second 'f0' (column 16)
        line = next(e for e in drv.find_elements(By.CSS_SELECTOR, ".cm-line") if e.text == typed)
        marked = line.find_elements(By.CSS_SELECTOR, ".rk-warning")
        # (rows reach it only with a missing value: that rule-level warning marks its first letter)
        assert [m.text for m in marked] == ["i", "f0"]
        offset = drv.execute_script(
            "const r = document.createRange(); r.setStart(arguments[0], 0); r.setEndBefore(arguments[1]);"
            "return r.toString().length", line, marked[-1])
        assert offset == 15 and typed[15:17] == "f0"

        # 2. an edit that changes predictions: rule r0's label
        r0 = next(i for i, ln in enumerate(lines) if ln.startswith("r0: "))
        old_label = lines[r0].rsplit(" ", 1)[1]
        new_label = next(c for c in cases.CLASSES if c != old_label)
        _go_to_line(drv, r0 + 1)
        ActionChains(drv).send_keys(Keys.BACKSPACE).send_keys(new_label).perform()
        elines = edited.split("\n")
        elines[r0] = elines[r0][:-1] + new_label
        edited = "\n".join(elines)
        probe.write_text(edited, encoding="utf-8")
        d = json.loads(cli("diff", original, probe, "--data", data, "--format", "json").stdout)
        expected = f"changed rows: {d['rows']['changed']:,} of 2,000"
        assert d["rows"]["changed"] > 0
        accuracy = f"after {d['rows']['confusion']['accuracy_after']:.4f}"
        # both labels of the same analysis (the count alone can match an earlier keystroke's)
        browser.wait_for(lambda: _text(drv, ".rk-changed").startswith(expected)
                         and accuracy in _text(drv, ".rk-accuracy"), 60,
                         lambda: f"{expected} / {accuracy}: {_text(drv, '.rk-changed')} / {_text(drv, '.rk-accuracy')}")

        # 3. a rule clicked shows the rows it decides; a row clicked is explained
        cells = drv.find_elements(By.CSS_SELECTOR, ".rk-rules tbody tr")[1].find_elements(By.TAG_NAME, "td")
        name, decides = cells[0].text, int(cells[3].text)
        cells[0].click()
        browser.wait_for(lambda: _text(drv, ".rk-rows-title").startswith(f"rule {name} decides {decides:,} row"),
                         30, "rows of a rule")
        if decides:
            drv.find_elements(By.CSS_SELECTOR, ".rk-rows tbody tr")[0].click()
            browser.wait_for(lambda: _text(drv, ".rk-explanation").startswith("row "), 30, "explanation")

        # 4. save: the file is the editor's text, written whole
        drv.find_element(By.CSS_SELECTOR, ".rk-save").click()
        browser.wait_for(lambda: rules.read_text(encoding="utf-8") == edited, 30, "saved file")
        browser.wait_for(lambda: _text(drv, ".rk-changed").startswith("changed rows: 0 of"), 60, "new baseline")

        # 5. export SQL for SQLite: the bytes of rulekit export, run in SQLite
        _tab(drv, "Export")
        out = tmp_path / "out.sql"
        browser.wait_for(lambda: drv.find_element(By.CSS_SELECTOR, ".rk-export-table input").is_displayed(), 30,
                         "the export panel")  # the tab panel slides in (slow under load)
        drv.find_element(By.CSS_SELECTOR, ".rk-export-table input").send_keys("t")
        drv.find_element(By.CSS_SELECTOR, ".rk-export-path input").send_keys(str(out))
        drv.find_element(By.CSS_SELECTOR, ".rk-export").click()
        browser.wait_for(lambda: _text(drv, ".rk-export-message").startswith(f"wrote {out}"), 60, "export")
        theirs = tmp_path / "theirs.sql"
        assert cli("export", rules, "--to", "sql", "--dialect", "sqlite", "--table", "t", "-o", theirs).returncode == 0
        assert out.read_bytes() == theirs.read_bytes()
        X = read_csv(data)
        con = sqlite3.connect(":memory:")
        names = list(X)
        con.execute("CREATE TABLE t (" + ", ".join(
            '"' + n.replace('"', '""') + '"' + ("" if n in ("colour", "y") else " REAL") for n in names) + ")")
        rows = zip(*[[None if v == "" else (v if n in ("colour", "y") else float(v)) for v in X[n]] for n in names])
        con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(names))})", rows)
        got = [r[0] for r in con.execute(out.read_text(encoding="utf-8"))]
        assert got == dsl.loads(edited).predict(X).tolist()

        shot = tmp_path / "studio.png"
        _tab(drv, "Impact")
        drv.execute_script("window.scrollTo(0, 0)")
        time.sleep(1)  # the tab's slide animation
        drv.save_screenshot(str(shot))
        OUTPUT.mkdir(exist_ok=True)
        shutil.copy(shot, OUTPUT / "studio.png")
        print(f"screenshot: {shot} (copy: {OUTPUT / 'studio.png'})")
        assert shot.stat().st_size > 10_000
    finally:
        err = studio.stop()
    assert "Traceback" not in err, err


def test_bad_edits_and_bad_data_do_not_stop_the_server(driver, tmp_path):
    """An unparsable text shows its errors; a renamed feature the data lacks shows one message; the
    page keeps answering."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    rb = cases.rulebase(5, seed=9)
    rules, data = tmp_path / "r.rules", tmp_path / "d.csv"
    rules.write_text(dsl.dumps(rb), encoding="utf-8")
    cases.write_csv(data, cases.columns(rb, 100))
    studio = browser.Studio(rules, "--data", data)
    drv = driver
    try:
        drv.get(studio.url)
        browser.wait_for(lambda: _text(drv, ".rk-changed").startswith("changed rows: 0"), 60, "first impact")
        _go_to_line(drv, 1)
        ActionChains(drv).send_keys(Keys.HOME).send_keys("garbage here ").perform()
        browser.wait_for(lambda: any(": error: " in e.text for e in drv.find_elements(By.CSS_SELECTOR, ".rk-finding")),
                         60, lambda: (_text(drv, ".rk-changed"), _text(drv, ".rk-status"),
                                      drv.execute_script("return document.querySelector('.cm-content').innerText")[:60]))
        assert "text has errors" in _text(drv, ".rk-changed")
        for _ in range(len("garbage here ")):
            ActionChains(drv).send_keys(Keys.BACKSPACE).perform()
        browser.wait_for(lambda: _text(drv, ".rk-changed").startswith("changed rows: 0"), 60,
                         lambda: drv.execute_script("return document.querySelector('.cm-content').innerText")[:80])
        text = drv.execute_script("return document.querySelector('.cm-content').innerText")
        f0_line = next(i for i, ln in enumerate(text.split("\n")) if ln.startswith("feature f0:")) + 1
        _go_to_line(drv, f0_line)  # a feature the data file does not have
        ActionChains(drv).send_keys(Keys.ENTER).send_keys("feature zz9: numeric").perform()
        browser.wait_for(lambda: "impact not computed" in _text(drv, ".rk-changed")
                         and "zz9" in _text(drv, ".rk-changed"), 60, lambda: _text(drv, ".rk-changed"))
        assert studio.proc.poll() is None
    finally:
        err = studio.stop()
    assert "Traceback" not in err, err


def test_a_model_opens_as_rules_with_its_tree(driver, tmp_path):
    """A model file opens as its extracted rules (the same text `rulekit rules` writes without data),
    its tree is drawn, and Save is off until Save As names a rules file."""
    from selenium.webdriver.common.by import By

    rb = cases.rulebase(5, seed=1)
    data, model = tmp_path / "d.csv", tmp_path / "m.json"
    cases.write_csv(data, cases.columns(rb, 300))
    assert cli("fit", data, "--target", "y", "--max-depth", "3", "-o", model, "-q").returncode == 0
    studio = browser.Studio(model, "--data", data)
    drv = driver
    try:
        drv.get(studio.url)
        browser.wait_for(lambda: _text(drv, ".rk-changed") == "changed rows: 0 of 300", 60, "first impact")
        save = drv.find_element(By.CSS_SELECTOR, ".rk-save")
        assert save.get_attribute("disabled") is not None
        _tab(drv, "Picture")
        tree = browser.wait_for(lambda: drv.find_elements(By.CSS_SELECTOR, ".rk-tree svg"), 30, "tree picture")
        assert tree[0].size["height"] > 50
        browser.wait_for(lambda: len(drv.find_elements(By.CSS_SELECTOR, ".rk-picture svg")) == 2, 60,
                         "the rules' picture (drawn by the lint worker when typing pauses)")
        target = tmp_path / "m.rules"
        drv.find_element(By.CSS_SELECTOR, ".rk-save-as-path input").send_keys(str(target))
        drv.find_element(By.CSS_SELECTOR, ".rk-save-as").click()
        browser.wait_for(target.exists, 30, "save as")
        rules_cli = tmp_path / "cli.rules"
        assert cli("rules", model, "-o", rules_cli, "-q").returncode == 0
        assert target.read_text(encoding="utf-8") == rules_cli.read_text(encoding="utf-8")
        browser.wait_for(lambda: drv.find_element(By.CSS_SELECTOR, ".rk-save").get_attribute("disabled") is None,
                         30, "save on")
        drv.save_screenshot(str(tmp_path / "model.png"))
        OUTPUT.mkdir(exist_ok=True)
        shutil.copy(tmp_path / "model.png", OUTPUT / "studio-model.png")
    finally:
        err = studio.stop()
    assert "Traceback" not in err, err
