"""`rulekit studio SOURCE [--data DATA] [--target COL] [--port N] [--host H] [--no-browser]`: a local
browser workbench for a rules file or a model (opened as its extracted rules).

The page (rulekit/studio/app.py) edits the text with the lint's findings inline and, with DATA, shows
what the edit does to the rows; Save, Save As and the export buttons write files. Bound to 127.0.0.1
unless ``--host`` says otherwise (with a warning). Bad input at start-up (unreadable SOURCE or DATA,
unknown --target, a taken port) is one line and exit 2; bad input later is shown on the page.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rulekit.errors import RulekitError


def run(*, source: Path, data: Path | None, target: str | None, port: int, host: str,
        no_browser: bool, quiet: bool = False) -> int:
    from rulekit.studio.server import LOCAL_HOST, check_port, serve
    from rulekit.studio.session import Session

    session = Session(source, data, target)
    check_port(host, port)
    try:
        import nicegui  # noqa: F401
    except ImportError:
        raise RulekitError("rulekit studio needs NiceGUI: pip install 'rulekit[studio]'") from None
    if host != LOCAL_HOST:
        print(f"rulekit: warning: the studio listens on {host}, not only {LOCAL_HOST}: anyone who can "
              f"reach this machine on port {port} can read and write the files it opens", file=sys.stderr)
    if data is not None:
        from rulekit import progress

        with progress.reporter(quiet=quiet), progress.phase(f"scoring {data}"):
            session.warm()
    serve(session, host=host, port=port, open_browser=not no_browser)
    return 0
