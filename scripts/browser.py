"""Headless Chromium driven over the DevTools protocol, for testing the HTML report and screenshotting it.

Chromium is started with ``--remote-debugging-pipe``: it reads protocol messages (JSON, each ended by
a NUL byte) on file descriptor 3 and writes its answers and events on descriptor 4. That needs only
the standard library -- no websocket client, no browser download -- and Debian's ``chromium`` package.

    python -m scripts.browser runs/latest/report.html docs/report.png --width 1280 --height 800
    python -m scripts.browser runs/latest/report.html docs/report-replay.png --hash '#game-249-ply-13' \
        --element '#player'

take a screenshot of a page's first screen, and of the rows of a page one element spans (the
README's ``docs/report.png`` and ``docs/report-replay.png`` were made this way).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["Browser", "BrowserError", "find_chromium"]

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class BrowserError(RuntimeError):
    """Chromium could not be started, closed the pipe, answered with an error, or timed out."""


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) executable on ``PATH``, or None."""
    return next((path for name in CANDIDATES if (path := shutil.which(name))), None)


class Browser:
    """One headless Chromium with one page. Use as a context manager; it is killed on exit.

    Args:
        width, height: the page's viewport in CSS pixels.
        timeout: seconds to wait for any one answer or event before :class:`BrowserError`.
        executable: the browser to run (default :func:`find_chromium`).

    Console messages of level error, uncaught exceptions and failed loads are collected, in order,
    in :attr:`errors`.

    Raises:
        BrowserError: no Chromium found, or it did not start.
    """

    def __init__(self, *, width: int = 1280, height: int = 900, timeout: float = 30.0,
                 executable: str | None = None) -> None:  # fmt: skip
        executable = executable or find_chromium()
        if executable is None:
            raise BrowserError("no Chromium found on PATH (tried " + ", ".join(CANDIDATES) + ")")
        self.timeout = timeout
        self.errors: list[str] = []
        self._profile = tempfile.TemporaryDirectory(prefix="connectx-chromium-", ignore_cleanup_errors=True)
        to_browser, self._to_browser = os.pipe()
        self._from_browser, from_browser = os.pipe()

        def descriptors() -> None:  # in the child: our pipe ends become its descriptors 3 and 4
            read, write = os.dup(to_browser), os.dup(from_browser)
            os.dup2(read, 3)
            os.dup2(write, 4)

        command = [
            executable, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--remote-debugging-pipe", f"--user-data-dir={self._profile.name}",
            f"--window-size={width},{height}", "about:blank",
        ]  # fmt: skip
        try:
            self._process = subprocess.Popen(
                command, preexec_fn=descriptors, close_fds=False, start_new_session=True,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
        except OSError as error:
            raise BrowserError(f"could not start {executable}: {error}") from None
        finally:
            os.close(to_browser)
            os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        target = self._call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self._call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)  # fmt: skip

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event (scripts run by then)."""
        self.call("Page.navigate", url=url)
        self._wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-serialisable values only).

        Raises:
            BrowserError: the expression threw.
        """
        answer = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in answer:
            raise BrowserError(f"{expression!r} threw: {answer['exceptionDetails'].get('text')}")
        return answer["result"].get("value")

    def screenshot(self, path: Path | str, *, full_page: bool = False, element: str | None = None) -> None:
        """Save the viewport (or the whole page) to ``path`` as PNG; with ``element`` (a CSS selector),
        the rows of the page that element spans, 12 CSS pixels above and below it, the window's full
        width."""
        params: dict[str, Any] = {"format": "png"}
        if element is not None:
            top, height, width = self.evaluate(
                f"(() => {{ const r = document.querySelector({json.dumps(element)}).getBoundingClientRect(); "
                "return [r.top + window.scrollY, r.height, document.documentElement.clientWidth]; })()"
            )
            margin = 12
            params["clip"] = {"x": 0, "y": max(0.0, top - margin), "width": width,
                              "height": height + 2 * margin, "scale": 1}  # fmt: skip
        elif full_page:
            width, height = self.evaluate(
                "[document.documentElement.scrollWidth, document.body.scrollHeight]"
            )
            params |= {"captureBeyondViewport": True, "clip": {"x": 0, "y": 0, "width": width,
                                                                "height": height, "scale": 1}}  # fmt: skip
        data = self.call("Page.captureScreenshot", **params)["data"]
        Path(path).write_bytes(base64.b64decode(data))

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one protocol command to the page and return its result; :class:`BrowserError` on an error."""
        return self._call(method, session=self._session, **params)

    def close(self) -> None:
        """Ask Chromium to quit, then end its process group (its helper processes too), wait, and
        remove its profile."""
        with contextlib.suppress(OSError):
            os.write(self._to_browser, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=5)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, signal.SIGKILL)  # its own session: only its processes
        self._process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        try:
            os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        except OSError as error:
            raise BrowserError(f"Chromium closed the pipe: {error}") from None
        answer = self._wait_for(self._next_id)
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error'].get('message')}")
        return answer["result"]

    def _wait_for(self, awaited: int | str) -> dict[str, Any]:
        """Read messages until the answer with id ``awaited`` (an int) or the event so named (a str)."""
        deadline = time.monotonic() + self.timeout
        while True:
            while b"\0" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                    raise BrowserError(
                        f"no answer from Chromium within {self.timeout:g} s (waiting for {awaited})"
                    )
                chunk = os.read(self._from_browser, 1 << 16)
                if not chunk:
                    raise BrowserError("Chromium closed the pipe")
                self._buffer += chunk
            text, _, self._buffer = self._buffer.partition(b"\0")
            message = json.loads(text)
            self._collect(message)
            if message.get("id") == awaited or message.get("method") == awaited:
                return message

    def _collect(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.errors.append(details.get("exception", {}).get("description") or details.get("text", ""))
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            self.errors.append(
                " ".join(str(arg.get("value", arg.get("description"))) for arg in params["args"])
            )
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            self.errors.append(params["entry"].get("text", ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.browser", description="Screenshot a page.")
    parser.add_argument("page", type=Path, help="an HTML file")
    parser.add_argument("png", type=Path, help="where to save the screenshot")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=1800)
    parser.add_argument("--hash", default="", help="a #fragment to open the page at, e.g. #game-3")
    parser.add_argument(
        "--element", default=None, help="a CSS selector: only the rows of the page it spans, e.g. '#player'"
    )
    args = parser.parse_args(argv)
    with Browser(width=args.width, height=args.height) as browser:
        browser.open(args.page.resolve().as_uri() + args.hash)
        browser.screenshot(args.png, element=args.element)
        for error in browser.errors:
            print(f"page error: {error}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
