"""The viewer's page in a real headless Chromium: it loads without script errors and draws the scene.

Chromium is driven over its DevTools protocol (the websocket client is ``websockets``, which viser
installs): load the page, screenshot it until two screenshots in a row agree (the scene has arrived and
drawn), then hide the shapes and screenshot again. The two must differ over a good part of the page:
the difference is what the browser drew of the two Ant worlds and their floors.
"""

import base64
import io
import json
import os
import shutil
import subprocess
import time
import urllib.request

import numpy as np
import pytest

pytest.importorskip("viser", reason="the viewer needs viser (pip install 'newton-gym[view]')")
Image = pytest.importorskip("PIL.Image", reason="reading the screenshots needs Pillow")
ws_client = pytest.importorskip("websockets.sync.client", reason="driving Chromium needs websockets (viser's)")

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium (/usr/bin/chromium or chromium on PATH)")

WIDTH, HEIGHT = 800, 600
SETTLE_S = 30.0  # longest wait for the page to stop changing


class DevTools:
    """A headless Chromium with one page, driven over the DevTools protocol."""

    def __init__(self, profile):
        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless=new",
                "--disable-gpu",
                "--no-sandbox",
                "--no-first-run",
                "--enable-unsafe-swiftshader",  # software WebGL, without the deprecation notice
                f"--user-data-dir={profile}",
                f"--window-size={WIDTH},{HEIGHT}",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 20.0
        while not (port_file.exists() and port_file.read_text().strip()):
            assert time.monotonic() < deadline and self.proc.poll() is None, "Chromium did not open DevTools"
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            page = next(t for t in json.load(r) if t["type"] == "page")
        self.ws = ws_client.connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10)
        self.next_id = 0
        self.console: list[str] = []  # "<level>: <text>" of every console message and uncaught exception
        for method in ("Runtime.enable", "Page.enable", "Log.enable"):
            self.call(method)
        # the page's own size (--window-size counts the headless window's frame too)
        self.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT, deviceScaleFactor=1, mobile=False)

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=30))
            if msg.get("id") == self.next_id:
                assert "error" not in msg, f"{method}: {msg['error']}"
                return msg.get("result", {})
            self._event(msg)

    def open(self, url: str):
        """Navigate to ``url`` and wait for its load event."""
        self.loaded = False
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + SETTLE_S
        while not self.loaded:
            assert time.monotonic() < deadline, f"{url} did not load in {SETTLE_S} s"
            self._event(json.loads(self.ws.recv(timeout=SETTLE_S)))

    def _event(self, msg: dict):
        p = msg.get("params", {})
        if msg.get("method") == "Page.loadEventFired":
            self.loaded = True
        elif msg.get("method") == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            self.console.append(f"{p.get('type')}: {text}")
        elif msg.get("method") == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.console.append(f"exception: {d.get('exception', {}).get('description') or d.get('text')}")
        elif msg.get("method") == "Log.entryAdded":
            self.console.append(f"{p['entry'].get('level')}: {p['entry'].get('text')}")

    def screenshot(self) -> np.ndarray:
        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        assert data[:8] == b"\x89PNG\r\n\x1a\n", "the screenshot is not a PNG"
        with Image.open(io.BytesIO(data)) as im:
            return np.asarray(im.convert("RGB"))

    def settled(self, previous: np.ndarray | None = None) -> np.ndarray:
        """A screenshot equal to the one taken 0.5 s before it (and unlike ``previous``, if given)."""
        last, deadline = None, time.monotonic() + SETTLE_S
        while time.monotonic() < deadline:
            shot = self.screenshot()
            if last is not None and np.array_equal(shot, last) and not np.array_equal(shot, previous):
                return shot
            last = shot
            time.sleep(0.5)
        raise AssertionError(f"the page kept changing (or never changed) for {SETTLE_S} s")

    def close(self):
        self.ws.close()
        self.proc.terminate()
        self.proc.wait(timeout=10)


def test_page_draws_the_ant_worlds(tmp_path):
    from newton_gym.view import Viewer

    viewer = Viewer("Newton/Ant-v0", num_envs=2, port=0, log=lambda line: None)
    browser = None
    try:
        viewer.step()
        browser = DevTools(tmp_path / "profile")
        browser.open(viewer.url)
        shown = browser.settled()
        for handle in viewer.view.handles:
            handle.visible = False
        hidden = browser.settled(previous=shown)
        console = list(browser.console)
    finally:
        if browser is not None:
            browser.close()
        viewer.close()
    assert shown.shape == (HEIGHT, WIDTH, 3)
    errors = [line for line in console if line.startswith(("error", "exception"))]
    assert not errors, "\n".join(errors)
    assert any("Connected!" in line for line in console)  # the client reached the server's websocket
    colours = np.unique(shown.reshape(-1, 3), axis=0)
    assert len(colours) > 100, f"the page is nearly flat: {len(colours)} colours"
    changed = np.abs(shown.astype(int) - hidden.astype(int)).max(axis=2) > 16
    assert changed.mean() > 0.02, f"the shapes cover only {changed.mean():.2%} of the page"
    # the robots' shapes are drawn in the palette's colours, the floor is grey
    r, g, b = (shown[..., k].astype(int) for k in range(3))
    coloured = (np.maximum(np.maximum(r, g), b) - np.minimum(np.minimum(r, g), b)) > 40
    assert (coloured & changed).sum() > 100, "no coloured robot pixels where the shapes are"
