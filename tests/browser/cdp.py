"""A small Chrome DevTools protocol driver for the kprof HTML page tests.

Drives Debian's /usr/bin/chromium headless over the DevTools websocket with
the standard library and Debian's python3-websocket (websocket-client 1.2.3).
Run with /usr/bin/python3.

    with Browser(width=1280, height=900) as b:
        b.open("file:///tmp/diff.html")        # waits for body[data-ready="1"]
        n = b.evaluate("document.querySelectorAll('.frame').length")
        b.click(100, 200)
        b.screenshot("/tmp/diff.png")
        assert b.errors() == []
"""

import base64
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request

import websocket

CHROMIUM = "/usr/bin/chromium"


class CDPError(Exception):
    """A DevTools command failed, a page threw, or something timed out."""


class Browser:
    """One headless chromium with one page target, as a context manager."""

    def __init__(self, width=1280, height=900, chromium=CHROMIUM, timeout=30.0,
                 extra_args=()):
        self.width = width
        self.height = height
        self.timeout = timeout
        self._next_id = 0
        self._events = []        # every event seen, in order (method, params)
        self._errors = []        # strings, see errors()
        self._proc = None
        self._ws = None
        self._log = None
        self._dir = tempfile.mkdtemp(prefix="kprof-cdp-")
        try:
            self._launch(chromium, list(extra_args))
            self._connect()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ lifecycle

    def _launch(self, chromium, extra_args):
        profile = os.path.join(self._dir, "profile")
        os.mkdir(profile)
        args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-extensions",
                "--remote-debugging-port=0", "--user-data-dir=" + profile,
                "--window-size=%d,%d" % (self.width, self.height)] + extra_args + ["about:blank"]
        self._log = open(os.path.join(self._dir, "chromium.log"), "wb")
        self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self._log,
                                      stderr=subprocess.STDOUT, start_new_session=True)
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.monotonic() + 20
        self.port = None
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise CDPError("chromium exited with status %s: %s"
                               % (self._proc.returncode, self._log_tail()))
            try:
                with open(port_file) as f:
                    first = f.readline().strip()
                if first.isdigit():
                    self.port = int(first)
                    break
            except OSError:
                pass
            time.sleep(0.05)
        if self.port is None:
            raise CDPError("chromium did not write %s within 20 s: %s"
                           % (port_file, self._log_tail()))

    def _log_tail(self):
        try:
            self._log.flush()
            with open(os.path.join(self._dir, "chromium.log"), "rb") as f:
                return f.read()[-2000:].decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    def _connect(self):
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        url = "http://127.0.0.1:%d/json/list" % self.port
        deadline = time.monotonic() + 20
        target = None
        while target is None:
            try:
                with opener.open(url, timeout=5) as r:
                    targets = json.loads(r.read().decode("utf-8"))
                target = next((t for t in targets if t.get("type") == "page"
                               and t.get("webSocketDebuggerUrl")), None)
            except (OSError, ValueError):
                target = None
            if target is None:
                if time.monotonic() > deadline:
                    raise CDPError("no page target at " + url)
                time.sleep(0.1)
        self._ws = websocket.create_connection(
            target["webSocketDebuggerUrl"], timeout=self.timeout, suppress_origin=True,
            http_no_proxy=["127.0.0.1", "localhost"])
        for domain in ("Runtime", "Page", "Log"):
            self.send(domain + ".enable")

    def close(self):
        """Closes the connection, kills chromium and removes its profile."""
        if self._ws is not None:
            try:
                self._ws.close()
            except Exception:
                pass
            self._ws = None
        if self._proc is not None:
            if self._proc.poll() is None:
                try:
                    os.killpg(self._proc.pid, signal.SIGTERM)
                except OSError:
                    pass
                try:
                    self._proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    try:
                        os.killpg(self._proc.pid, signal.SIGKILL)
                    except OSError:
                        pass
                    self._proc.wait(timeout=5)
            self._proc = None
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    # ------------------------------------------------------------ protocol

    def _recv(self, timeout):
        """One message as a dict, or None when none came within timeout."""
        self._ws.settimeout(max(timeout, 0.001))
        try:
            raw = self._ws.recv()
        except websocket.WebSocketTimeoutException:
            return None
        except websocket.WebSocketConnectionClosedException:
            raise CDPError("the DevTools connection closed: " + self._log_tail())
        msg = json.loads(raw)
        if "method" in msg:
            self._on_event(msg["method"], msg.get("params", {}))
        return msg

    def _on_event(self, method, params):
        self._events.append((method, params))
        if method == "Runtime.exceptionThrown":
            d = params.get("exceptionDetails", {})
            ex = d.get("exception") or {}
            text = ex.get("description") or d.get("text", "exception")
            self._errors.append("exception: %s (%s:%s)" % (text, d.get("url", ""),
                                                           d.get("lineNumber", "")))
        elif method == "Runtime.consoleAPICalled":
            kind = params.get("type")
            if kind in ("error", "warning", "assert"):
                parts = []
                for a in params.get("args", []):
                    if "value" in a:
                        parts.append(str(a["value"]))
                    else:
                        parts.append(a.get("description", a.get("type", "")))
                self._errors.append("console.%s: %s" % (kind, " ".join(parts)))
        elif method == "Log.entryAdded":
            e = params.get("entry", {})
            if e.get("level") in ("error", "warning"):
                self._errors.append("log %s: %s %s" % (e.get("level"), e.get("text", ""),
                                                       e.get("url", "")))

    def send(self, method, params=None, timeout=None):
        """Sends one command and returns its result; events meanwhile are recorded."""
        self._next_id += 1
        mid = self._next_id
        self._ws.send(json.dumps({"id": mid, "method": method, "params": params or {}}))
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("no reply to %s within the timeout" % method)
            msg = self._recv(left)
            if msg is None or msg.get("id") != mid:
                continue
            if "error" in msg:
                raise CDPError("%s failed: %s" % (method, msg["error"].get("message", msg["error"])))
            return msg.get("result", {})

    def wait_event(self, method, timeout=None, since=0):
        """Waits for an event named method (seen after index since); returns its params."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            for m, p in self._events[since:]:
                if m == method:
                    return p
            since = len(self._events)
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("no %s event within the timeout" % method)
            self._recv(left)

    def drain(self, timeout=0.1):
        """Reads the messages pending now (waiting up to timeout for each)."""
        while self._recv(timeout) is not None:
            pass

    # ------------------------------------------------------------ page API

    def open(self, url, timeout=None, ready=True):
        """Navigates to url, waits for the load event, then for body[data-ready="1"]."""
        timeout = self.timeout if timeout is None else timeout
        since = len(self._events)
        res = self.send("Page.navigate", {"url": url}, timeout)
        if res.get("errorText"):
            raise CDPError("navigating to %s failed: %s" % (url, res["errorText"]))
        self.wait_event("Page.loadEventFired", timeout, since)
        if ready:
            self.wait_for('document.body && document.body.dataset.ready === "1"', timeout,
                          what='document.body.dataset.ready === "1" on ' + url)

    def wait_for(self, expr, timeout=None, what=None):
        """Polls the JS expression expr until it is truthy; returns its value."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            v = self.evaluate(expr)
            if v:
                return v
            if time.monotonic() > deadline:
                errs = self.errors()
                raise CDPError("timed out waiting for %s%s" % (
                    what or expr, ("; page errors: " + " | ".join(errs)) if errs else ""))
            time.sleep(0.05)

    def evaluate(self, expr, timeout=None):
        """Evaluates a JS expression in the page; returns its value (promises awaited)."""
        res = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                             "awaitPromise": True, "userGesture": True},
                        timeout)
        if "exceptionDetails" in res:
            d = res["exceptionDetails"]
            ex = d.get("exception") or {}
            raise CDPError("evaluate(%r) threw: %s" % (
                expr[:200], ex.get("description") or d.get("text", "exception")))
        r = res.get("result", {})
        return r.get("value")

    def _mouse(self, kind, x, y, **extra):
        p = {"type": kind, "x": x, "y": y}
        p.update(extra)
        self.send("Input.dispatchMouseEvent", p)

    def _into_view(self, x, y):
        """Scrolls so that viewport point (x, y) is on screen; returns the point
        after the scroll and the scroll position to restore (None: no scroll).
        Chromium drops mouse events outside the viewport, and (x, y) is usually
        from getBoundingClientRect() of an element below the fold."""
        w, h, sx, sy = self.evaluate("[innerWidth, innerHeight, scrollX, scrollY]")
        if 0 <= x < w and 0 <= y < h:
            return x, y, None
        nx, ny = self.evaluate(
            "(() => { const x0 = scrollX, y0 = scrollY;"
            " scrollTo(x0 + %r - innerWidth / 2, y0 + %r - innerHeight / 2);"
            " return [%r - (scrollX - x0), %r - (scrollY - y0)]; })()" % (x, y, x, y))
        return nx, ny, (sx, sy)

    def _restore(self, scroll):
        if scroll is not None:
            self.evaluate("scrollTo(%r, %r)" % scroll)

    def hover(self, x, y):
        """Moves the mouse to (x, y), CSS pixels of the viewport as it is now.
        A point outside the viewport is scrolled into view for the event and
        the scroll position put back after it, as click() does."""
        x, y, scroll = self._into_view(x, y)
        self._mouse("mouseMoved", x, y)
        self._restore(scroll)

    def click(self, x, y):
        """A left click at (x, y), CSS pixels of the viewport as it is now. A
        point outside the viewport is scrolled into view for the click, and the
        scroll position is put back after it, so that coordinates measured
        before the call still hold after it."""
        x, y, scroll = self._into_view(x, y)
        self._mouse("mouseMoved", x, y)
        self._mouse("mousePressed", x, y, button="left", buttons=1, clickCount=1)
        self._mouse("mouseReleased", x, y, button="left", buttons=0, clickCount=1)
        self._restore(scroll)

    def click_selector(self, selector):
        """Scrolls the first element matching selector into view and clicks its centre."""
        box = self.evaluate(
            "(() => { const e = document.querySelector(%s); if (!e) return null;"
            " e.scrollIntoView({block: 'center', inline: 'nearest'});"
            " const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()" % json.dumps(selector))
        if box is None:
            raise CDPError("no element matches %s" % selector)
        self.click(box[0], box[1])

    def type_into(self, selector, text):
        """Focuses the input matching selector, replaces its value, fires 'input'."""
        ok = self.evaluate(
            "(() => { const e = document.querySelector(%s); if (!e) return false;"
            " e.focus(); e.value = %s;"
            " e.dispatchEvent(new Event('input', {bubbles: true}));"
            " e.dispatchEvent(new Event('change', {bubbles: true})); return true; })()"
            % (json.dumps(selector), json.dumps(text)))
        if not ok:
            raise CDPError("no element matches %s" % selector)

    def set_viewport(self, width, height):
        """Emulates a viewport of width x height CSS pixels (fires resize)."""
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def set_color_scheme(self, scheme):
        """Emulates prefers-color-scheme: 'light', 'dark' or '' (none)."""
        self.send("Emulation.setEmulatedMedia",
                  {"features": [{"name": "prefers-color-scheme", "value": scheme}]})

    def set_media(self, media):
        """Emulates a media type: 'print', 'screen' or '' (none)."""
        self.send("Emulation.setEmulatedMedia", {"media": media})

    def screenshot(self, path, full_page=False):
        """Writes a PNG of the viewport (or of the whole page) to path."""
        params = {"format": "png"}
        if full_page:
            size = self.evaluate("[document.documentElement.scrollWidth,"
                                 " document.documentElement.scrollHeight]")
            params["captureBeyondViewport"] = True
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        res = self.send("Page.captureScreenshot", params, max(self.timeout, 60))
        with open(path, "wb") as f:
            f.write(base64.b64decode(res["data"]))
        return path

    def errors(self, timeout=0.2):
        """Every page exception, console error/warning/assert and log error/warning so far."""
        self.drain(timeout)
        return list(self._errors)

    def clear_errors(self):
        self.drain(0.05)
        self._errors = []
