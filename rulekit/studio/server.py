"""Starting the studio's web server: the port check, the host warning, NiceGUI's run."""

from __future__ import annotations

import errno
import os
import socket
import sys

from rulekit.errors import RulekitError
from rulekit.studio.session import Session

LOCAL_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def check_port(host: str, port: int) -> None:
    """A RulekitError (one line, exit 2) when ``port`` on ``host`` cannot be listened on, e.g. because
    another studio has it; checked before the server starts so that its own error never shows."""
    if not 0 < port < 65536:
        raise RulekitError(f"--port {port}: a port is 1 to 65535")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as err:
        raise RulekitError(f"--host {host}: unknown host ({err.strerror})") from None
    family, _, _, _, addr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        try:
            sock.bind(addr)
            sock.listen(1)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                raise RulekitError(f"port {port} on {host} is taken (another studio?): "
                                   f"choose another with --port") from None
            raise RulekitError(f"cannot listen on {host}:{port} ({err.strerror or err})") from None


def serve(session: Session, *, host: str, port: int, open_browser: bool) -> None:
    """Serve the studio until Ctrl-C."""
    from nicegui import run, ui

    from rulekit.studio.app import StudioPage

    def root() -> None:
        StudioPage(session)

    # NiceGUI runs its own test harness when it sees pytest's variable; a studio that a test (or a
    # tool run under pytest) starts is a real server all the same
    os.environ.pop("PYTEST_CURRENT_TEST", None)
    run.process_pool_start_method = "spawn"  # the lint's worker: fork is unsafe in a threaded server

    print(f"rulekit studio: http://{host}:{port}/ ({session.display}; Ctrl-C stops)", file=sys.stderr)
    ui.run(root=root, host=host, port=port, reload=False, show=open_browser, title="rulekit studio",
           show_welcome_message=False, uvicorn_logging_level="warning", favicon="🌳",
           reconnect_timeout=30.0)  # a long first analysis must not make the page reload
