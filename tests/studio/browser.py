"""Helpers for the studio's browser tests and bench: a studio server in a subprocess and Debian's
Chromium driven by Selenium through /usr/bin/chromedriver (nothing is downloaded)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            return f"{path} not installed (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium not installed (pip install selenium)"
    try:
        import nicegui  # noqa: F401
    except ImportError:
        return "nicegui not installed (pip install 'rulekit[studio]')"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Studio:
    """``rulekit studio ARGS --no-browser --port P`` running until :meth:`stop`."""

    def __init__(self, *args: str, cwd=None, timeout: float = 120.0):
        # free_port()'s port is free when chosen; another process (the other xdist worker's
        # connections take ports from the same range) can take it before the studio binds it,
        # seconds later: the studio then refuses it ("is taken"), and another port is tried
        for _attempt in range(3):
            self.port = free_port()
            self.url = f"http://127.0.0.1:{self.port}/"
            self.proc = subprocess.Popen([sys.executable, "-m", "rulekit", "studio", *map(str, args),
                                          "--no-browser", "--port", str(self.port)], cwd=cwd,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            err = self._started(timeout)
            if err is None:
                return
            if "is taken" not in err:
                break
        raise RuntimeError(f"studio exited {self.proc.returncode}: {err}")

    def _started(self, timeout: float) -> str | None:
        """None once the page answers; the stderr of a studio that exited."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                return self.proc.stderr.read()
            try:
                urllib.request.urlopen(self.url, timeout=2).read()
            except OSError:
                time.sleep(0.2)
                continue
            # the page answered: ours, unless another server holds the port and ours is exiting
            time.sleep(0.3)
            if self.proc.poll() is None:
                return None
        self.stop()
        raise RuntimeError("studio did not start")

    def stop(self) -> str:
        """Stop the server (as Ctrl-C does) and return its stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(2)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return self.proc.stderr.read()


def chrome(width: int = 1600, height: int = 1000):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              f"--window-size={width},{height}", "--no-first-run", "--disable-extensions",
              "--disable-background-networking", "--disable-component-update"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)


def wait_for(fn, timeout: float = 20.0, what="condition"):
    """fn() once truthy (its value); ``what`` (text, or a function giving it) names it on time-out."""
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        try:
            last = fn()
            if last:
                return last
        except Exception as err:  # noqa: BLE001 - the page may still be rendering
            last = err
        time.sleep(0.05)
    what = what() if callable(what) else what
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


def have_chromium() -> bool:
    return shutil.which(CHROMIUM) is not None
