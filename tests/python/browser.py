"""A page opened in headless Chromium, checked through the DevTools protocol.

The protocol runs over `--remote-debugging-pipe` (JSON messages ended by a NUL byte on file
descriptors 3 and 4 of the browser): the standard library is enough, no websocket client,
no port. What the page logs arrives as protocol events, so the browser's own noise on its
stderr (D-Bus, GPU probing in a container) is never mistaken for the page's: console
errors and failed assertions (Runtime.consoleAPICalled), uncaught exceptions
(Runtime.exceptionThrown), the browser's errors about the page such as a resource that
failed to load (Log.entryAdded) and every request the page makes (Network.requestWillBeSent):
a self-contained page requests nothing but itself and data: URLs.

`find_chromium()` is None where no browser is installed; `Chromium(...)` raises
BrowserUnavailable where one is installed but cannot start (a snap stub, a missing library).
"""

import base64
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time

EXECUTABLES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
START_TIMEOUT_S = 30
COMMAND_TIMEOUT_S = 60
WIDTH, HEIGHT = 1280, 900
MAX_SCREENSHOT_HEIGHT = 6000  # the contents and first sections; a whole report runs to 80,000 px

# Run in the page after it loaded: what the checks need, as one JSON-able value.
PAGE_FACTS = r"""
(async () => {
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const byId = id => document.getElementById(id);
  const figures = [...document.querySelectorAll('figure')].map(figure => {
    const drawing = figure.querySelector('svg, img');
    const box = drawing ? drawing.getBoundingClientRect() : {width: 0, height: 0};
    const marks = !drawing ? 0 : drawing.tagName === 'IMG' ? drawing.naturalWidth
                : drawing.querySelectorAll('path, use, text, rect, line, polyline').length;
    return {id: figure.id, kind: drawing ? drawing.tagName.toLowerCase() : 'none',
            width: box.width, height: box.height, marks};
  });
  const seen = new Set(), duplicates = [];
  for (const element of document.querySelectorAll('[id]')) {
    if (seen.has(element.id)) duplicates.push(element.id); else seen.add(element.id);
  }
  const links = [...document.querySelectorAll('a[href^="#"]')].map(a => a.getAttribute('href'));
  const brokenLinks = links.filter(href => !byId(decodeURIComponent(href.slice(1))));
  const references = [];
  for (const element of document.querySelectorAll('svg [clip-path], svg use')) {
    const text = element.getAttribute('clip-path') || element.getAttribute('xlink:href')
               || element.getAttribute('href') || '';
    const match = /#([^)"']+)/.exec(text);
    if (match) references.push(match[1]);
  }
  return {title: document.title, figures, duplicates, links: links.length, brokenLinks,
          svgReferences: references.length,
          brokenSvgReferences: references.filter(id => !byId(id)),
          pageWidth: document.documentElement.scrollWidth, viewWidth: window.innerWidth,
          pageHeight: document.documentElement.scrollHeight};
})()
"""


# Where the answer lies and how large the figures' text is drawn: the summary's verdict table
# (the first table after #summary) and the comparison's per-suite answer (the first list after
# the heading "The answer…"), as page offsets of their top and bottom (null where absent);
# every figure's SVG text as drawn, in CSS px (its font size times the scale the page draws
# the figure at), those under 8 px listed.
FIRST_SCREEN_FACTS = r"""
(() => {
  const extent = (heading, selector) => {
    if (!heading) return null;
    for (let e = heading.nextElementSibling; e && !/^H[12]$/.test(e.tagName); e = e.nextElementSibling) {
      const found = e.matches(selector) ? e : e.querySelector(selector);
      if (found) {
        const box = found.getBoundingClientRect();
        return {top: box.top + window.scrollY, bottom: box.bottom + window.scrollY};
      }
    }
    return null;
  };
  const small = [];
  let texts = 0;
  for (const figure of document.querySelectorAll('figure')) {
    for (const text of figure.querySelectorAll('svg text')) {
      if (!text.textContent.trim()) continue;
      texts++;
      const m = text.getScreenCTM();
      const px = parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b);
      if (px < 8 - 1e-6) small.push(`${figure.id} (${figure.querySelector('figcaption')?.textContent
                                      .slice(0, 40)}): ${text.textContent.trim().slice(0, 30)} at ${px.toFixed(1)} px`);
    }
  }
  return {summaryTable: extent(document.getElementById('summary'), 'table'),
          answer: extent(document.querySelector('[id^="the-answer"]'), 'ul'),
          texts, smallTexts: small};
})()
"""


_AS_FDS_3_AND_4 = ("import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); "
                   "os.execvp(sys.argv[3], sys.argv[3:])")


class BrowserUnavailable(Exception):
    """Chromium is installed but does not start or answer: the reason, for a skip."""


def find_chromium():
    """The browser to use: $LB_CHROMIUM, else the first of EXECUTABLES on PATH; or None."""
    named = os.environ.get("LB_CHROMIUM")
    if named:
        return shutil.which(named)  # None where it names no executable
    return next((path for path in map(shutil.which, EXECUTABLES) if path), None)


class Chromium:
    """One headless browser with one page (WIDTH × HEIGHT CSS px); a context manager."""

    def __init__(self, executable, profile_dir):
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()
        arguments = ["--headless", "--remote-debugging-pipe", "--disable-gpu",
                     f"--user-data-dir={profile_dir}", "--no-first-run",
                     "--no-default-browser-check", "--disable-extensions",
                     "--disable-background-networking", "--disable-component-update",
                     "--hide-scrollbars", "--mute-audio", "about:blank"]
        if os.geteuid() == 0:
            arguments.insert(0, "--no-sandbox")  # Chromium refuses root with its sandbox
        self._stderr = open(os.path.join(profile_dir, "chromium.stderr"), "w+b")
        # fds 3 and 4 of the browser: its commands and its answers (set by a Python that
        # then becomes the browser: a shell's `3<&12` fails in dash beyond fd 9).
        self._process = subprocess.Popen(
            [sys.executable, "-c", _AS_FDS_3_AND_4, str(to_browser_read),
             str(from_browser_write), executable, *arguments],
            pass_fds=(to_browser_read, from_browser_write), stdin=subprocess.DEVNULL,
            stdout=self._stderr, stderr=self._stderr)
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._messages = queue.Queue()
        self._events = []
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        try:
            target = self.send("Target.createTarget", {"url": "about:blank"},
                               timeout=START_TIMEOUT_S)["targetId"]
        except BrowserUnavailable:
            self.close()
            raise
        self._session = self.send("Target.attachToTarget",
                                  {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.page(f"{domain}.enable")
        self.page("Emulation.setDeviceMetricsOverride",
                  {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def close(self):
        if self._process.poll() is None:
            try:
                self._write({"id": -1, "method": "Browser.close"})
                self._process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self._process.kill()
                self._process.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self._stderr.close()

    def stderr_tail(self, size=2000):
        self._stderr.flush()
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")[-size:]

    # ------------------------------------------------------------------ protocol

    def _read(self):
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self._messages.put(None)  # the browser went away
                return
            buffer += chunk
            *complete, buffer = buffer.split(b"\0")
            for raw in complete:
                self._messages.put(json.loads(raw))

    def _write(self, message):
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")

    def send(self, method, params=None, session=None, timeout=COMMAND_TIMEOUT_S):
        """Send one command; return its result (events that arrive meanwhile are kept)."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        try:
            self._write(message)
        except OSError as error:
            raise BrowserUnavailable(f"cannot write to the browser: {error}; its stderr: "
                                     f"{self.stderr_tail()}") from None
        reply = self._until(lambda m: m.get("id") == self._next_id, timeout, method)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def _until(self, wanted, timeout, what):
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self._messages.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise BrowserUnavailable(f"no answer to {what} in {timeout} s; the browser's "
                                         f"stderr: {self.stderr_tail()}") from None
            if message is None:
                try:
                    status = self._process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    status = "still running, its pipe closed"
                raise BrowserUnavailable(f"the browser exited (status {status}) "
                                         f"before answering {what}; its stderr: "
                                         f"{self.stderr_tail()}")
            if "method" in message:
                self._events.append(message)
            if wanted(message):
                return message

    def page(self, method, params=None):
        return self.send(method, params, session=self._session)

    # ------------------------------------------------------------------ what tests use

    def open(self, url):
        """Load `url`; return the problems the page caused while loading (problems())."""
        self._events.clear()
        self.page("Page.navigate", {"url": url})
        self._until(lambda m: m.get("method") == "Page.loadEventFired", COMMAND_TIMEOUT_S,
                    f"the load of {url}")
        return self.facts()

    def facts(self):
        """PAGE_FACTS evaluated in the page."""
        reply = self.page("Runtime.evaluate", {"expression": PAGE_FACTS, "awaitPromise": True,
                                               "returnByValue": True})
        if "exceptionDetails" in reply:
            raise RuntimeError(f"the page check threw: {reply['exceptionDetails']}")
        return reply["result"]["value"]

    def first_screen(self):
        """FIRST_SCREEN_FACTS of the page open now (scrolled to its top)."""
        self.evaluate("window.scrollTo(0, 0)")
        return self.evaluate(FIRST_SCREEN_FACTS)

    def evaluate(self, expression):
        reply = self.page("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in reply:
            raise RuntimeError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"]["value"]

    def as_printed(self, expression):
        """`expression` evaluated with the page laid out for print (its print CSS)."""
        self.page("Emulation.setEmulatedMedia", {"media": "print"})
        try:
            return self.evaluate(expression)
        finally:
            self.page("Emulation.setEmulatedMedia", {"media": ""})

    def problems(self, own_url):
        """What the page did wrong so far: console errors, exceptions, the browser's errors
        about it, requests for anything but `own_url` and data: URLs."""
        found = []
        for event in self._events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                text = " ".join(str(a.get("value", a.get("description", "")))
                                for a in params.get("args", []))
                found.append(f"console.{params['type']}: {text}")
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                found.append("exception: " + str(details.get("exception", {}).get(
                    "description", details.get("text"))))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                entry = params["entry"]
                found.append(f"browser error ({entry.get('source')}): {entry.get('text')} "
                             f"{entry.get('url', '')}".rstrip())
            elif method == "Network.requestWillBeSent":
                url = params["request"]["url"]
                if url != own_url and not url.startswith("data:"):
                    found.append(f"request for another resource: {url}")
        return found

    def screenshot(self, path):
        """The whole page (up to MAX_SCREENSHOT_HEIGHT px) at WIDTH CSS px, as a PNG file."""
        height = self.page("Page.getLayoutMetrics")["cssContentSize"]["height"]
        clip = {"x": 0, "y": 0, "width": WIDTH, "scale": 1,
                "height": min(max(height, HEIGHT), MAX_SCREENSHOT_HEIGHT)}
        data = self.page("Page.captureScreenshot", {"format": "png", "clip": clip,
                                                    "captureBeyondViewport": True})["data"]
        with open(path, "wb") as out:
            out.write(base64.b64decode(data))
        return path
