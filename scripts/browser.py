"""Headless Chromium as the book's checks launch it: the binary, its flags, the site served.

The browser tests (tests/site_check.py) and the live cells' measurement
(scripts/live_seconds.py) share these: one list of flags, one way to find the binary.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

#: Flags that keep Debian's Chromium off the network (see shared notes: toolchain.md).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]

INSTALL_HINT = (
    "no Chromium found: install Debian's headless build with "
    "`sudo apt-get install chromium-headless-shell` (or point SINPE_CHROMIUM at a "
    "Chrome/Chromium binary); no browser download is needed"
)


def find_chromium() -> str | None:
    """Path of a Chromium/Chrome binary, or None."""
    # Debian's chromium-headless-shell first: Chromium's headless-only build, which
    # Playwright itself runs for headless tests. Measured on 2 cores (the whole sweep,
    # three runs of each, alternated): 142-162 s of browser CPU and 81-89 s of wall
    # time, against 187-209 s and 100-112 s for the full chromium.
    candidates = [
        os.environ.get("SINPE_CHROMIUM"),
        "chromium-headless-shell",
        "chromium",
        "chromium-browser",
        "chrome",
    ]
    for candidate in candidates:
        if candidate and (found := shutil.which(candidate)):
            return found
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@contextlib.contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve ``site`` on a free loopback port; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


#: Keeps the browser offline: a request that leaves the loopback address (where the
#: book is served) goes to a proxy that does not exist, and fails. (Not `page.route`:
#: intercepting requests turns the browser's HTTP cache off, and every page would
#: load MathJax and the theme afresh.)
OFFLINE = {"server": "http://127.0.0.1:9", "bypass": "127.0.0.1"}
